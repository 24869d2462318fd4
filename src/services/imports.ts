import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { badInput } from '../domain/errors.ts';
import { readInputText } from '../input/text-file.ts';
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
  // Size cap, UTF-8, no NUL (binary) and not empty: src/input/text-file.ts.
  return paths.map((p) => ({ path: p, content: readInputText(p) }));
}

export const RUBRIC_FILES = /\.(ya?ml|json|jsonl)$/i;
export const PUZZLE_FILES = /\.(ya?ml|json|jsonl)$/i;
