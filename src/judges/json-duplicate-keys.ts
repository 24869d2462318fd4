/**
 * The first key given twice in one object of a JSON text. JSON.parse keeps the last value of a repeated
 * key without a word, so `{"id":"barn","verdict":"correct","verdict":"incorrect"}` would become one
 * verdict the judge gave alongside another. Scans text that already parsed (valid JSON: strict, or as
 * jsonrepair wrote it), iteratively, so a deep reply cannot overflow the stack.
 */

type Frame = { kind: 'object'; keys: Set<string>; key: string | null; expectKey: boolean } | { kind: 'array'; index: number };

export interface DuplicateKey {
  key: string;
  /** Where the object stands: `items.0`, or '' for the top level. */
  path: string;
}

export function firstDuplicateKey(json: string): DuplicateKey | null {
  const stack: Frame[] = [];
  const pathOf = (): string =>
    stack
      .slice(0, -1)
      .map((f) => (f.kind === 'array' ? String(f.index) : (f.key ?? '')))
      .join('.');
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === '"') {
      let j = i + 1;
      while (j < json.length && json[j] !== '"') j += json[j] === '\\' ? 2 : 1;
      const top = stack[stack.length - 1];
      if (top?.kind === 'object' && top.expectKey) {
        // Decoded, so "\u0069tems" and "items" are the same key, as JSON.parse sees them.
        const key = JSON.parse(json.slice(i, j + 1)) as string;
        if (top.keys.has(key)) return { key, path: pathOf() };
        top.keys.add(key);
        top.key = key;
        top.expectKey = false;
      }
      i = j;
    } else if (c === '{') stack.push({ kind: 'object', keys: new Set(), key: null, expectKey: true });
    else if (c === '[') stack.push({ kind: 'array', index: 0 });
    else if (c === '}' || c === ']') stack.pop();
    else if (c === ',') {
      const top = stack[stack.length - 1];
      if (top?.kind === 'object') top.expectKey = true;
      else if (top) top.index++;
    }
  }
  return null;
}

/** The duplicate as a re-ask can state it, or null. */
export function duplicateKeyError(json: string): string | null {
  const d = firstDuplicateKey(json);
  return d ? `key '${d.key}' given twice ${d.path === '' ? 'at the top level' : `in ${d.path}`}` : null;
}
