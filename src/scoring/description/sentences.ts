/**
 * An answer's sentences: the claims an annotator marks true, false or unverifiable. Pure and
 * deterministic (claim marks are stored by index, so the same text must always give the same list).
 *
 * Answers arrive hard-wrapped ("… a dirt\npath."), so lines are joined before segmenting: a newline
 * inside a paragraph is a space, a blank line ends a paragraph. Two kinds of line stand alone because
 * they are not wrapped prose: list items ("- …", "1. …") and blocks of field lines such as the meta
 * statements at an answer's end ("Orientation: landscape" / "Grid: 6 x 9"), each line a statement.
 * Each paragraph is cut by ICU's sentence rules (Intl.Segmenter), then repaired where ICU cuts too
 * early: after a known abbreviation ("Mr.", "e.g."), before a lowercase start, or before a piece with
 * no letter or digit — so a claim is never a fragment of a sentence. A paragraph or line with no
 * letter or digit at all (a "---" rule) is no claim.
 */

export interface Sentence {
  text: string;
  /** Offsets of the sentence in the original text (start inclusive, end exclusive). */
  start: number;
  end: number;
}

const SEGMENTER = new Intl.Segmenter('en', { granularity: 'sentence' });

/** Abbreviations ICU ends a sentence after; the next word continues the sentence. Lowercase, no dot. */
const ABBREVIATIONS = new Set(['mr', 'mrs', 'ms', 'dr', 'st', 'mt', 'vs', 'etc', 'e.g', 'i.e', 'approx', 'ca', 'cf', 'no', 'fig', 'jr', 'sr', 'prof', 'inc', 'ltd']);

const LIST_ITEM = /^\s*(?:[-*•–]|\d{1,3}[.)])\s+/;
const FIELD_LINE = /^\s*[*_]*[A-Z][A-Za-z][\w ()/-]{0,38}[*_]*:[*_]*\s*\S/;
const MARKER_ONLY = /^\s*(?:[-*•–]|\d{1,3}[.)])\s*$/;
const WORDY = /[\p{L}\p{N}]/u;

interface Span {
  start: number;
  end: number;
}

/** Paragraphs and stand-alone lines, as spans of the text (trimmed). */
function units(text: string): Span[] {
  const lines: Span[] = [];
  const re = /[^\n]*(?:\n|$)/g;
  for (let m = re.exec(text); m && m[0] !== ''; m = re.exec(text)) {
    const body = m[0].replace(/\r?\n$/, '');
    lines.push({ start: m.index, end: m.index + body.length });
    if (m.index + m[0].length >= text.length) break;
  }
  const out: Span[] = [];
  let para: Span[] = [];
  const flush = () => {
    if (para.length === 0) return;
    const alone = para.every((l) => FIELD_LINE.test(text.slice(l.start, l.end)));
    if (alone) out.push(...para);
    else out.push({ start: para[0]!.start, end: para[para.length - 1]!.end });
    para = [];
  };
  for (const l of lines) {
    const s = text.slice(l.start, l.end);
    if (s.trim() === '') flush();
    else if (LIST_ITEM.test(s)) {
      flush();
      para = [l];
      flush();
    } else para.push(l);
  }
  flush();
  return out;
}

function endsWithAbbreviation(s: string): boolean {
  const m = /(?:^|[\s(])([A-Za-z][A-Za-z.]*)\.\s*$/.exec(s);
  return m !== null && ABBREVIATIONS.has(m[1]!.toLowerCase());
}

/** True when `piece` continues the sentence before it rather than starting one. */
function continues(prev: string, piece: string): boolean {
  const t = piece.trimStart();
  return !WORDY.test(t) || /^\p{Ll}/u.test(t) || endsWithAbbreviation(prev) || MARKER_ONLY.test(prev);
}

/**
 * The sentences of one unit. `joined` is the unit's text with each newline (and the blanks around it)
 * replaced by as many spaces, so ICU never reads a wrapped line's end as a sentence end and every
 * offset in `joined` is also an offset in the original text.
 */
function sentencesOf(joined: string, offset: number): Sentence[] {
  const pieces: Sentence[] = [];
  for (const seg of SEGMENTER.segment(joined)) {
    const lead = seg.segment.length - seg.segment.trimStart().length;
    const body = seg.segment.trim();
    if (body === '') continue;
    const start = seg.index + lead;
    const prev = pieces[pieces.length - 1];
    if (prev && continues(prev.text, body)) {
      prev.end = offset + start + body.length;
      prev.text = joined.slice(prev.start - offset, prev.end - offset).replace(/\s+/g, ' ');
    } else pieces.push({ text: body.replace(/\s+/g, ' '), start: offset + start, end: offset + start + body.length });
  }
  return pieces;
}

/** The answer's sentences with their offsets, in order. */
export function sentenceSpans(text: string): Sentence[] {
  // A unit with no letter or digit ("---", "**") states nothing: it is no claim.
  return units(text).filter((u) => WORDY.test(text.slice(u.start, u.end))).flatMap((u) => sentencesOf(text.slice(u.start, u.end).replace(/[ \t]*\r?\n[ \t]*/g, (m) => ' '.repeat(m.length)), u.start));
}

/** The answer's sentences: what the annotator marks true, false or unverifiable. */
export function splitSentences(text: string): string[] {
  return sentenceSpans(text).map((s) => s.text);
}
