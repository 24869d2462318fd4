/**
 * Where the JSON objects stand in a model's free text: the judge reply parser (judges/parse.ts) and
 * the tangram answer extractor (scoring/tangram/extract.ts) both look for `{…}` inside prose, and both
 * must skip braces inside JSON strings and keep an object cut off at the end of the text (near-JSON
 * worth one repair attempt). One scanner here, pure, so both layers may import it.
 */

export interface JsonSpan {
  /** Index of the opening `{`. */
  from: number;
  /** Index just past the closing `}`; text.length for an object left open at the end. */
  to: number;
}

/**
 * Balanced top-level {…} spans in text order. A `"` opens a string only inside an object (prose
 * quotes do not hide braces); inside a string a backslash escapes the next character.
 */
export function topLevelObjectSpans(text: string): JsonSpan[] {
  const spans: JsonSpan[] = [];
  let depth = 0;
  let from = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"' && depth > 0) inString = true;
    else if (c === '{') {
      if (depth === 0) from = i;
      depth++;
    } else if (c === '}' && depth > 0) {
      depth--;
      if (depth === 0) spans.push({ from, to: i + 1 });
    }
  }
  if (depth > 0) spans.push({ from, to: text.length });
  return spans;
}

/**
 * The top-level members of one JSON object's text, in text order and repeats included, as [key, value
 * text] pairs: JSON.parse keeps only the last of a repeated key, and a grid answer's mapping must keep the
 * first (design §2.2: duplicate id → first occurrence kept, later ones reported). `text` must be one valid
 * JSON object (the caller parsed it); anything else gives [].
 */
export function topLevelMembers(text: string): Array<[string, string]> {
  const t = text.trim();
  if (t[0] !== '{') return [];
  const members: Array<[string, string]> = [];
  let depth = 0;
  let inString = false;
  let keyFrom = -1;
  let key: string | null = null;
  let valueFrom = -1;
  const close = (end: number) => {
    if (key !== null && valueFrom >= 0) members.push([key, t.slice(valueFrom, end).trim()]);
    key = null;
    valueFrom = -1;
  };
  for (let i = 0; i < t.length; i++) {
    const c = t[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') {
        inString = false;
        if (depth === 1 && key === null && valueFrom < 0) key = JSON.parse(t.slice(keyFrom, i + 1)) as string;
      }
      continue;
    }
    if (c === '"') {
      inString = true;
      if (depth === 1 && key === null && valueFrom < 0) keyFrom = i;
    } else if (c === ':' && depth === 1 && key !== null && valueFrom < 0) valueFrom = i + 1;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      if (depth === 1) close(i);
      depth--;
    } else if (c === ',' && depth === 1) close(i);
  }
  return members;
}
