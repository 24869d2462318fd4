import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { badInput } from '../domain/errors.ts';
import { decodeUtf8 } from '../domain/json-check.ts';

/**
 * A user-named text file, read whole. Refused (one bad-input line naming the file): missing, a
 * directory, unreadable, larger than the cap, not UTF-8, containing a NUL byte (a binary file read as
 * text would be scored or stored as garbage), and — unless `allowEmpty` — empty or blank.
 * A leading UTF-8 byte-order mark is dropped (editors on Windows write one; JSON.parse refuses it).
 */

/** Input files above this are refused before they are read (a run of 10,000 long answers is ~50 MB). */
export const MAX_INPUT_BYTES = 128 * 1024 * 1024;

export interface ReadOptions {
  /** Words naming the file in messages, e.g. "rubric" → "rubric r.yaml: no such file". */
  what?: string;
  maxBytes?: number;
  allowEmpty?: boolean;
}

const label = (what: string | undefined, path: string) => (what ? `${what} ${path}` : path);

function errnoText(e: unknown): string {
  const code = (e as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'is a directory, expected a file';
  if (code === 'ENOTDIR') return 'no such file (a part of the path is not a directory)';
  if (code === 'ELOOP') return 'cannot be read (too many symbolic links)';
  return `cannot be read (${code ?? (e as Error)?.message ?? String(e)})`;
}

/** The bytes of a file, at most `maxBytes` (pipes and devices are read up to the cap, never unbounded). */
export function readInputBytes(path: string, opts: ReadOptions = {}): Buffer {
  const name = label(opts.what, path);
  const max = opts.maxBytes ?? MAX_INPUT_BYTES;
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw badInput(`${name}: ${errnoText(e)}`);
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw badInput(`${name}: is a directory, expected a file`);
    if (st.isFile() && st.size > max) throw badInput(`${name}: too large (${st.size} bytes; the limit is ${max})`);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(1 << 20, max + 1 - total));
      let n: number;
      try {
        n = readSync(fd, buf, 0, buf.length, null);
      } catch (e) {
        throw badInput(`${name}: ${errnoText(e)}`);
      }
      if (n === 0) break;
      chunks.push(buf.subarray(0, n));
      total += n;
      if (total > max) throw badInput(`${name}: too large (more than ${max} bytes)`);
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/** Text from bytes with the same checks as readInputText (for content that did not come from a path). */
export function decodeInputText(bytes: Uint8Array, name: string, allowEmpty = false): string {
  const nul = bytes.indexOf(0);
  if (nul !== -1) {
    const line = bytes.subarray(0, nul).reduce((n, b) => (b === 10 ? n + 1 : n), 1);
    throw badInput(`${name}: contains a NUL byte (line ${line}): a binary file, not text`);
  }
  let text = decodeUtf8(bytes, name);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (!allowEmpty && text.trim() === '') throw badInput(`${name}: empty file`);
  return text;
}

export function readInputText(path: string, opts: ReadOptions = {}): string {
  return decodeInputText(readInputBytes(path, opts), label(opts.what, path), opts.allowEmpty ?? false);
}
