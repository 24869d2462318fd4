import { createHash } from 'node:crypto';
import { VersionedCache } from './versioned-cache.ts';

/**
 * Values memoised by their input alone (chart markup from report rows, a calibration from its label rows):
 * no data version is needed and nothing goes stale.
 */

const content = new VersionedCache(100);

/**
 * A value that depends only on `input` (e.g. chart markup from report rows), computed once per distinct
 * input: the key is a hash of the input itself, so no data version is needed and nothing goes stale.
 */
export function memoByContent<T>(name: string, input: unknown, compute: () => Promise<T>): Promise<T> {
  const digest = createHash('sha256').update(JSON.stringify(input) ?? 'undefined').digest('base64url');
  return content.get(`${name}:${digest}`, async () => '', compute);
}

/**
 * A value computed from `input` under `key`, reused while the next input under the key is equal to the
 * last one (structurally: the same arrays, objects and primitives). For large inputs that rarely change
 * between data versions (a calibration's label rows: a regrade's F1 leaves the verdict rows as they
 * were), comparing with the last input costs a walk over it, several times less than hashing it. The
 * value is shared, not copied: callers only read it (the reports that use it are cloned per request).
 */
export async function memoLast<T>(key: string, input: unknown, compute: () => Promise<T>): Promise<T> {
  const last = lastInputs.get(key);
  if (last && sameData(last.input, input)) {
    lastInputs.delete(key);
    lastInputs.set(key, last);
    return last.value as T;
  }
  const value = await compute();
  lastInputs.delete(key);
  lastInputs.set(key, { input, value });
  while (lastInputs.size > LAST_INPUTS_KEPT) lastInputs.delete(lastInputs.keys().next().value!);
  return value;
}

const LAST_INPUTS_KEPT = 16;
const lastInputs = new Map<string, { input: unknown; value: unknown }>();

/** Structural equality of plain data (JSON-like; numbers by Object.is, so -0 is not 0). */
export function sameData(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameData(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b) || Object.getPrototypeOf(a) !== Object.prototype || Object.getPrototypeOf(b) !== Object.prototype) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i]!;
    if (k !== kb[i] || !sameData((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/**
 * memoByContent for each of `inputs` on its own (a page's charts: a regrade that moves the F1 chart leaves
 * the three assembly charts as they were), the ones not remembered computed together by one call of
 * `computeMissing` (one thread round trip), which returns their values in order.
 */
export function memoEachByContent<T>(name: string, inputs: readonly unknown[], computeMissing: (inputs: unknown[]) => Promise<T[]>): Promise<T[]> {
  const missing: number[] = [];
  let batch: Promise<T[]> | undefined;
  const computeOne = (i: number): Promise<T> => {
    missing.push(i);
    // Deferred past the microtasks in which every input's lookup asks, so one call gets all the missing ones.
    batch ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => computeMissing(missing.map((j) => inputs[j])));
    return batch.then((values) => values[missing.indexOf(i)]!);
  };
  return Promise.all(inputs.map((input, i) => memoByContent(name, input, () => computeOne(i))));
}
