import { duplicateKey } from '../domain/json-check.ts';

/**
 * The first key given twice in one object of a judge's JSON reply, as a re-ask can state it, or null.
 * JSON.parse keeps the last value of a repeated key without a word, so
 * `{"id":"barn","verdict":"correct","verdict":"incorrect"}` would become one verdict the judge gave
 * alongside another. The reply already parsed (strict, or as jsonrepair wrote it); domain/json-check.ts
 * scans it, as it scans API bodies and imported files.
 */
export function duplicateKeyError(json: string): string | null {
  const d = duplicateKey(json)?.path;
  if (!d) return null;
  const where = d.slice(0, -1).join('.');
  return `key '${String(d.at(-1))}' given twice ${where === '' ? 'at the top level' : `in ${where}`}`;
}
