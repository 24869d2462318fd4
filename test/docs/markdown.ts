import { readdirSync, readFileSync } from 'node:fs';
import { ROOT } from '../helpers/cli.ts';

/**
 * Just enough Markdown for the doc tests: fenced blocks (with the `<!-- example: … -->` marker that
 * may precede one), headings with GitHub's anchor slugs, and relative links outside code.
 */

/** The documents the tests read: README.md and every docs/*.md, as repo-relative paths. */
export function docFiles(): string[] {
  const docs = readdirSync(`${ROOT}docs`)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs];
}

export function readDoc(path: string): string {
  return readFileSync(`${ROOT}${path}`, 'utf8');
}

export interface Fence {
  /** The info string's first word (`console`, `sh`, `json`, …; '' for a bare fence). */
  lang: string;
  /** 1-based line of the opening fence. */
  line: number;
  body: string[];
  /** The text of an `<!-- example: … -->` comment right before the fence (blank lines allowed between). */
  marker: string | null;
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/;
const MARKER = /^\s*<!--\s*example:\s*(.*?)\s*-->\s*$/;

export function fences(text: string): Fence[] {
  const lines = text.split('\n');
  const out: Fence[] = [];
  let marker: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const m = MARKER.exec(line);
    if (m) {
      marker = m[1]!;
      continue;
    }
    const f = FENCE.exec(line);
    if (!f) {
      if (line.trim() !== '') marker = null;
      continue;
    }
    const indent = f[1]!.length;
    const close = new RegExp(`^\\s*${f[2]![0] === '`' ? '`' : '~'}{${f[2]!.length},}\\s*$`);
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !close.test(lines[j]!); j++) body.push(lines[j]!.slice(Math.min(indent, leadingSpaces(lines[j]!))));
    out.push({ lang: f[3]!.toLowerCase(), line: i + 1, body, marker });
    marker = null;
    i = j;
  }
  return out;
}

function leadingSpaces(s: string): number {
  return /^ */.exec(s)![0].length;
}

/** The lines of `text` outside fenced blocks, with their 1-based line numbers. */
export function proseLines(text: string): Array<{ line: number; text: string }> {
  const lines = text.split('\n');
  const out: Array<{ line: number; text: string }> = [];
  let close: RegExp | null = null;
  lines.forEach((l, i) => {
    if (close) {
      if (close.test(l)) close = null;
      return;
    }
    const f = FENCE.exec(l);
    if (f) {
      close = new RegExp(`^\\s*${f[2]![0] === '`' ? '`' : '~'}{${f[2]!.length},}\\s*$`);
      return;
    }
    out.push({ line: i + 1, text: l });
  });
  return out;
}

/**
 * GitHub's heading anchor (github-slugger): the rendered text lower-cased, every character that is not a
 * letter, mark, digit, connector (`_`), space or hyphen dropped, spaces turned into hyphens; a repeated
 * slug gets -1, -2, … in document order.
 */
export function slugify(heading: string): string {
  return renderedText(heading)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Heading source → the text GitHub renders: code spans keep their content, links their text, `*` emphasis goes. */
function renderedText(s: string): string {
  return s
    .replace(/`([^`]*)`/g, '$1')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    // `*` emphasis only: an underscore is kept (as in snake_case ids); no heading here uses _emphasis_.
    .replace(/\*/g, '')
    .trim();
}

/** Every anchor a document defines: heading slugs (deduplicated as GitHub does) and `<a id|name="…">`. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const { text: l } of proseLines(text)) {
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(l);
    if (h) {
      const base = slugify(h[1]!);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      out.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const a of l.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(a[1]!);
  }
  return out;
}

export interface Link {
  line: number;
  target: string;
}

/** Inline links `[text](target)` outside code blocks and code spans; external and mail links left out. */
export function relativeLinks(text: string): Link[] {
  const out: Link[] = [];
  for (const { line, text: l } of proseLines(text)) {
    const prose = l.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      out.push({ line, target });
    }
  }
  return out;
}
