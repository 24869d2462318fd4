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
