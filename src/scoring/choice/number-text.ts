/**
 * Options are compared as written tokens ("2.50" is not "2.5"), but JSON.parse gives a key's `2.50` as the
 * number 2.5, and stringified it names an option the key never wrote: a model answering 2.50 scored wrong.
 * This reads the written text of the numbers at `answer` and `options[i]` of a key line (its top-level
 * object) and returns those whose text is not String(n), for the caller to refuse. A linear scan of the
 * line: strings are skipped whole, so brackets and digits inside them do not count.
 */
export interface RewrittenNumber {
  path: string;
  text: string;
  value: number;
}

const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STRING_END = /(?:[^"\\]|\\.)*"/y;

export function rewrittenNumbers(line: string): RewrittenNumber[] {
  const out: RewrittenNumber[] = [];
  let depth = 0;
  let expectKey = false;
  let key: string | null = null;
  let inOptions = false;
  let index = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '"') {
      STRING_END.lastIndex = i + 1;
      const m = STRING_END.exec(line);
      if (!m) return out; // not JSON: JSON.parse has refused it already
      const end = i + m[0].length;
      if (depth === 1 && expectKey) {
        key = JSON.parse(line.slice(i, end + 1)) as string;
        expectKey = false;
      }
      i = end;
    } else if (c === '{' || c === '[') {
      depth++;
      if (depth === 1) expectKey = c === '{';
      if (depth === 2 && c === '[' && key === 'options') {
        inOptions = true;
        index = 0;
      }
    } else if (c === '}' || c === ']') {
      if (depth === 2) inOptions = false;
      depth--;
    } else if (c === ',') {
      if (depth === 1) expectKey = true;
      else if (depth === 2 && inOptions) index++;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      NUMBER.lastIndex = i;
      const text = NUMBER.exec(line)?.[0];
      if (text === undefined) return out;
      const path = depth === 1 && key === 'answer' ? 'answer' : depth === 2 && inOptions ? `options[${index}]` : null;
      if (path !== null && String(Number(text)) !== text) out.push({ path, text, value: Number(text) });
      i += text.length - 1;
    }
  }
  return out;
}
