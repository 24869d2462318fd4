import type { Located } from '../import-parse.ts';

/** A record inside a one-document file, named by its path there (`log.json: samples[3]`): no line to give. */
export function at(file: string, path: string, value: unknown): Located {
  return { value, file: `${file}: ${path}`, line: null, lineOf: () => null };
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The text of a chat message's content: a string, or the `text` parts of a content list joined. */
export function contentText(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const parts = content.flatMap((p) => (isObject(p) && p.type === 'text' && typeof p.text === 'string' ? [p.text] : []));
  return parts.length ? parts.join('\n') : null;
}

/** A short string field for meta (long inputs and images stay in the tool's own file). */
export const short = (v: unknown, max = 2000): string | undefined => (typeof v === 'string' ? v.slice(0, max) : typeof v === 'number' ? String(v) : undefined);
