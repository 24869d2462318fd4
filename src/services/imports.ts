import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { badInput } from '../domain/errors.ts';
import type { ImportFile } from './import-parse.ts';

/**
 * Gathering the files of an `assay import` (a file, or a directory's matching files, not recursive).
 * A directory's `schema.json` is the JSON Schema editors validate against, never data.
 */
export function readImportFiles(path: string, accept: RegExp): ImportFile[] {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw badInput(`${path}: no such file or directory`);
  }
  const paths = isDir
    ? readdirSync(path)
        .filter((f) => accept.test(f) && f !== 'schema.json')
        .sort()
        .map((f) => join(path, f))
    : [path];
  if (paths.length === 0) throw badInput(`${path}: no files to import (looked for ${accept.source})`);
  return paths.map((p) => {
    try {
      return { path: p, content: readFileSync(p, 'utf8') };
    } catch (e) {
      throw badInput(`${p}: cannot be read (${(e as Error).message})`);
    }
  });
}

export const RUBRIC_FILES = /\.(ya?ml|json|jsonl)$/i;
export const PUZZLE_FILES = /\.(ya?ml|json|jsonl)$/i;
