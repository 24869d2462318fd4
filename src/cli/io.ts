import { readFileSync, statSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { badInput } from '../domain/errors.ts';

/** File reading for CLI commands: every failure becomes one clear bad-input line naming the file. */

export function readText(path: string, what = 'file'): string {
  try {
    if (statSync(path).isDirectory()) throw badInput(`${what} ${path}: is a directory, expected a file`);
    return readFileSync(path, 'utf8');
  } catch (e) {
    if (e instanceof Error && 'code' in e && (e as NodeJS.ErrnoException).code === 'ENOENT') {
      throw badInput(`${what} ${path}: no such file`);
    }
    if (e instanceof Error && e.name === 'AssayError') throw e;
    throw badInput(`${what} ${path}: cannot be read (${(e as Error).message})`);
  }
}

export function readJson(path: string, what = 'file'): unknown {
  const text = readText(path, what);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw badInput(`${what} ${path}: not valid JSON (${(e as Error).message})`);
  }
}

export function readYaml(path: string, what = 'file'): unknown {
  const text = readText(path, what);
  try {
    return parseYaml(text);
  } catch (e) {
    throw badInput(`${what} ${path}: not valid YAML (${(e as Error).message.split('\n')[0]})`);
  }
}

/** JSON or YAML by extension (YAML is a superset, but JSON errors read better from JSON.parse). */
export function readStructured(path: string, what = 'file'): unknown {
  return /\.ya?ml$/i.test(path) ? readYaml(path, what) : readJson(path, what);
}

/** JSON Lines: one object per non-blank line; errors name the line. */
export function readJsonl(path: string, what = 'file'): unknown[] {
  const text = readText(path, what);
  const rows: unknown[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    try {
      rows.push(JSON.parse(line));
    } catch (e) {
      throw badInput(`${what} ${path}: line ${i + 1}: not valid JSON (${(e as Error).message})`);
    }
  }
  if (rows.length === 0) throw badInput(`${what} ${path}: empty (no JSON lines)`);
  return rows;
}

/** A required string flag. */
export function requireFlag(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw badInput(`missing required option --${name}`);
  return v;
}

/** An optional number flag with validation. */
export function numberFlag(
  values: Record<string, unknown>,
  name: string,
  opts: { integer?: boolean; min?: number; max?: number } = {},
): number | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (typeof v !== 'string' || v.trim() === '' || !Number.isFinite(n)) {
    throw badInput(`--${name} must be a number, got '${String(v)}'`);
  }
  if (opts.integer && !Number.isInteger(n)) throw badInput(`--${name} must be a whole number, got '${v}'`);
  if (opts.min !== undefined && n < opts.min) throw badInput(`--${name} must be ≥ ${opts.min}, got ${v}`);
  if (opts.max !== undefined && n > opts.max) throw badInput(`--${name} must be ≤ ${opts.max}, got ${v}`);
  return n;
}

/** An optional flag restricted to a set of values. */
export function choiceFlag<T extends string>(
  values: Record<string, unknown>,
  name: string,
  choices: readonly T[],
  fallback: T,
): T {
  const v = values[name];
  if (v === undefined) return fallback;
  if (typeof v !== 'string' || !(choices as readonly string[]).includes(v)) {
    throw badInput(`--${name} must be one of ${choices.join('|')}, got '${String(v)}'`);
  }
  return v as T;
}
