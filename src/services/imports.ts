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

/**
 * The one file of an import that reads one (answers, labels). A directory is refused: taking its first
 * file would drop the others without a word.
 */
export function readImportFile(path: string): ImportFile {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw badInput(`${path}: no such file or directory`);
  }
  if (isDir) throw badInput(`${path}: is a directory (this import reads one file; import each file of it on its own)`);
  return { path, content: readInputText(path) };
}

export const RUBRIC_FILES = /\.(ya?ml|json|jsonl)$/i;
export const PUZZLE_FILES = /\.(ya?ml|json|jsonl)$/i;
