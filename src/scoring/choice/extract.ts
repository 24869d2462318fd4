import { DEFAULT_OPTIONS, OPTION_TOKEN, optionKey, optionLookup, type OptionLookup } from './options.ts';

/**
 * Reads the chosen option from a raw model response (design §2.3), in this order:
 *  1. tag      `<answer>X</answer>` (case-insensitive); several tags must agree; a tag whose content
 *              is not an option makes the response invalid (the model committed to a format and broke it).
 *  2. explicit "answer: X", "answer is X", "answer = X", "final/correct/best/my answer X",
 *              "The correct option is (C)", "\boxed{C}"; markdown marks, brackets, quotes and a trailing
 *              period are tolerated. When any statement says "final" (or is boxed), only those count.
 *              Disagreeing statements make the response invalid.
 *  3. lone     the last non-empty line is nothing but an option ("B", "(B)", "**B.**", "Option B").
 * Otherwise invalid. Tokens match options case-insensitively, except that a lowercase single letter
 * followed by more words ("the answer is a cat") is read as prose, not as option A, and so is the pronoun
 * I ("Answer: I think C") on keys that have an option I.
 * Never throws; linear in the response length.
 */
export interface Extraction {
  choice: string | null;
  status: 'ok' | 'invalid';
  reason?: string;
  source?: 'tag' | 'explicit' | 'lone';
}

const TAG_START = /<answer/i;
// Open and close tags are searched for separately: a lazy `<answer>(.*?)</answer>` rescans the rest of
// the text from every unclosed opening tag, which is quadratic on a response full of them.
const TAG_OPEN = /<answer\s*>/gi;
const TAG_CLOSE = /<\/answer\s*>/gi;
const TOKEN = OPTION_TOKEN;
const TAG_CONTENT = new RegExp(String.raw`^[\s(\[{]*(?:(?:option|choice|answer)\s*:?\s*)?(${TOKEN})[\s)\]}]*(?:[.:)\-–—,;]|\s|$)`, 'id');
// The keyword alone is searched for (a leading optional group would be tried at every position, doubling
// the cost on long responses); the qualifier is then read from the few characters before it.
const KEYWORD = /(answer|option|choice)\b/gi;
const QUALIFIER = /(?:^|[^A-Za-z])(final|correct|best|my)\s+$/i;
const WORD_CHAR = /[A-Za-z0-9]/;
const TAIL = new RegExp(
  String.raw`[ \t]*((?:would be|should be|must be|is)\b[ \t]*:?|:|=|[-–—](?=\s))?(\s*)(?:(?:option|choice|letter)\s+)?([(\[]?)(${TOKEN})([)\]]?)`,
  'iy',
);
const BOXED = new RegExp(String.raw`\\boxed\{\s*\(?(${TOKEN})\)?\s*\}`, 'g');
const MARKS = /[*_`]/g;
const HAS_MARKS = /[*_`]/;
/** An option in quotes ("B", 'C', “D”) names it as brackets do; the quotes are dropped before reading. */
const QUOTED = new RegExp(String.raw`["'“‘](${TOKEN})["'”’]`, 'g');
/** An option in LaTeX (`\text{B}`, `\mathbf{B}`, `$C$`, as in `$\boxed{\text{B}}$`) is that option; the wrapping is dropped. */
const LATEX_WRAPPED = new RegExp(String.raw`\\(?:text|textbf|textrm|mathrm|mathbf)\{\s*([(\[]?${TOKEN}[)\]]?)\s*\}`, 'g');
// `$` or `$$`, never `\$+`: a greedy run would be rescanned from each of its dollars (quadratic on "$$$…").
const DOLLARED = new RegExp(String.raw`\$\$?[ \t]*([(\[]?${TOKEN}[)\]]?)[ \t]*\$\$?`, 'g');
/** The other math delimiters, `\( B \)` and `\[ B \]`, as `$B$`. */
const DELIMITED = new RegExp(String.raw`\\[(\[][ \t]*([(\[]?${TOKEN}[)\]]?)[ \t]*\\[)\]]`, 'g');
const HAS_LATEX = /[\\$]/;
const unlatex = (text: string): string =>
  HAS_LATEX.test(text) ? text.replace(LATEX_WRAPPED, '$1').replace(DOLLARED, '$1').replace(DELIMITED, '$1') : text;
const unwrap = (text: string): string => unlatex(text).replace(QUOTED, '$1');
/**
 * A second option joined to the first ("A or B", "A, B", "A; B", "A+B", "(A) and (B)", "B/D" in a tag, "A B" in a tag),
 * also as an alternative ("C, or perhaps D", "C or possibly D", "C (or D)"): a hedge between options is no
 * choice. Not when a verb follows ("C and D is a distractor" names one answer and discusses another) or
 * when a lowercase letter starts prose ("B and a half turn").
 */
const JOIN = String.raw`(?:\([ \t]*)?(?:(?:,[ \t]*)?\b(?:and/or|or|and)\b|,|/|&|\+|;)[ \t]*(?:(?:possibly|maybe|perhaps|probably|alternatively)[ \t]+)?`;
// In a tag anything between two options joins them ("B; C", "(B)(C)"); in a statement a bracketed option
// right after a bracketed one does ("Answer: (B) (C)").
const JOINED = new RegExp(
  String.raw`[)\]}]*[ \t]*(?:${JOIN}|;[ \t]*|(?<=[\s)\]}]))(?:(?:option|choice)[ \t]+)?([(\[]?)(${TOKEN})([)\]]?)(?![A-Za-z0-9])`,
  'iy',
);
const JOINED_EXPLICIT = new RegExp(
  // (the lookbehind reads one character: one scanning back over the spaces made a long run of them quadratic)
  String.raw`[)\]}]*(?:[ \t]*${JOIN}|(?<=[)\]])[ \t]*(?=[(\[]))(?:(?:option|choice)[ \t]+)?([(\[]?)(${TOKEN})([)\]]?)(?![A-Za-z0-9])`,
  'iy',
);
/** After an unbracketed "I": the pronoun ("I'm not sure", "I think C"), not option I of a key with nine or more options. */
const PRONOUN_NEXT = /^(?:['’](?:m|d|ll|ve)\b|[ \t]+(?:think|believe|guess|would|am|will|suspect|feel|chose|choose|pick|say|can|cannot|can't|could|should|might|must|need|have|was|agree|see|do|don't|hope|reckon|go|prefer)\b)/i;
/** After "no" on a yes/no key: a determiner before its noun ("no idea", "no clear match"), not the option no. */
const NOUN_NEXT = /^[ \t]+(?:idea|doubt|clue|longer|way|one|clear|definitive|single|such|obvious|answer|option|choice|match|matching|correct|valid|reason|information|consensus|more|further|need)\b/i;
/** An unbracketed token that, by the words after it, is prose: the pronoun I, the determiner no. */
const proseToken = (token: string, after: string): boolean =>
  (token === 'I' && PRONOUN_NEXT.test(after)) || (token.toLowerCase() === 'no' && NOUN_NEXT.test(after));
const VERB_NEXT = /^[ \t]+(?:is|are|was|were|seems?|looks?|would|could|can(?:not|'t)?|isn't|doesn't|does|has|had|might|may|must|should|will|fits?|matches?)\b/i;

/** The option joined to the one that ends at `end` (the JOINED* pattern decides what joins), if any. */
function joinedOption(text: string, end: number, joined: RegExp, lookup: OptionLookup): string | undefined {
  joined.lastIndex = end;
  const m = joined.exec(text);
  if (!m) return undefined;
  const [, open, token, close] = m;
  const option = lookup.get(optionKey(token!));
  if (option === undefined) return undefined;
  const after = text.slice(joined.lastIndex, joined.lastIndex + 16);
  if (VERB_NEXT.test(after)) return undefined;
  const bracketed = open !== '' && close !== '';
  if (!bracketed && /^[a-z]$/.test(token!) && /^ [A-Za-z]/.test(after)) return undefined;
  if (!bracketed && proseToken(token!, after)) return undefined;
  return option;
}

const LONE = new RegExp(String.raw`^(?:(?:option|choice|answer)\s*:?\s*)?[(\[]?(${TOKEN})[)\]]?[.!]?$`, 'i');

const invalid = (reason: string): Extraction => ({ choice: null, status: 'invalid', reason });
const ok = (choice: string, source: NonNullable<Extraction['source']>): Extraction => ({ choice, status: 'ok', source });

function fromTags(text: string, lookup: OptionLookup): Extraction | null {
  if (!TAG_START.test(text)) return null;
  const chosen = new Set<string>();
  let any = false;
  TAG_OPEN.lastIndex = 0;
  for (let open = TAG_OPEN.exec(text); open; open = TAG_OPEN.exec(text)) {
    TAG_CLOSE.lastIndex = TAG_OPEN.lastIndex;
    const close = TAG_CLOSE.exec(text);
    if (!close) break;
    any = true;
    const content = unwrap(text.slice(TAG_OPEN.lastIndex, close.index).replace(MARKS, '')).trim();
    TAG_OPEN.lastIndex = TAG_CLOSE.lastIndex;
    const t = TAG_CONTENT.exec(content);
    const rest = t === null ? '' : content.slice(t.indices![1]![1], t.indices![1]![1] + 16);
    // as in a statement: the pronoun I, "no idea", and a lowercase letter starting prose ("a cat")
    const prose = t !== null && (proseToken(t[1]!, rest) || (/^[a-z]$/.test(t[1]!) && /^ [A-Za-z]/.test(rest)));
    const option = t && !prose ? lookup.get(optionKey(t[1]!)) : undefined;
    if (option === undefined) return invalid(`<answer> tag holds '${content.slice(0, 40)}', not one of the options`);
    const second = joinedOption(content, t!.indices![1]![1], JOINED, lookup);
    if (second !== undefined && second !== option) return invalid(`<answer> tag names more than one option: ${option}, ${second}`);
    chosen.add(option);
  }
  if (!any) return null;
  if (chosen.size > 1) return invalid(`conflicting <answer> tags: ${[...chosen].join(', ')}`);
  return ok([...chosen][0]!, 'tag');
}

function fromExplicit(text: string, lookup: OptionLookup): Extraction | null {
  const finals = new Set<string>();
  const others = new Set<string>();
  KEYWORD.lastIndex = 0;
  for (let m = KEYWORD.exec(text); m; m = KEYWORD.exec(text)) {
    if (m.index > 0 && WORD_CHAR.test(text[m.index - 1]!)) continue;
    const word = m[1]!.toLowerCase();
    const qualifier = QUALIFIER.exec(text.slice(Math.max(0, m.index - 12), m.index))?.[1]?.toLowerCase();
    if (!qualifier && word !== 'answer') continue; // "option A is wrong" is discussion, not a choice
    TAIL.lastIndex = m.index + m[0].length;
    const t = TAIL.exec(text);
    const tailEnd = TAIL.lastIndex;
    if (!t) continue;
    const [, sep, gap, open, token, close] = t;
    if (!qualifier && !sep) continue; // bare "answer B" is too loose; "answer: B" or "final answer B"
    if (!sep && gap!.includes('\n')) continue;
    const option = lookup.get(optionKey(token!));
    if (option === undefined) continue;
    const bracketed = open !== '' && close !== '';
    if (!bracketed && proseToken(token!, text.slice(tailEnd, tailEnd + 16))) continue; // "Answer: I think C", "Answer: no idea"
    if (!bracketed && /^[a-z]$/.test(token!)) {
      const after = text.slice(tailEnd, tailEnd + 2);
      if (/^ [A-Za-z]/.test(after)) continue; // "the answer is a cat"
    }
    const set = qualifier === 'final' ? finals : others;
    set.add(option);
    // "answer: A or B" states both: they conflict as two statements would.
    const second = joinedOption(text, tailEnd, JOINED_EXPLICIT, lookup);
    if (second !== undefined) set.add(second);
  }
  if (text.includes('\\boxed')) {
    for (const m of text.matchAll(BOXED)) {
      const option = lookup.get(optionKey(m[1]!));
      if (option !== undefined) finals.add(option);
    }
  }
  const set = finals.size > 0 ? finals : others;
  if (set.size === 0) return null;
  if (set.size > 1) return invalid(`conflicting explicit answers: ${[...set].join(', ')}`);
  return ok([...set][0]!, 'explicit');
}

function lastNonEmptyLine(text: string): string {
  let end = text.length;
  while (end > 0) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    const line = text.slice(start, end).trim();
    if (line !== '') return line;
    end = start - 1;
  }
  return '';
}

function fromLone(text: string, lookup: OptionLookup): Extraction | null {
  const line = lastNonEmptyLine(text).replace(MARKS, '').trim();
  if (line.length > 60) return null;
  const m = LONE.exec(line);
  const option = m ? lookup.get(optionKey(m[1]!)) : undefined;
  return option === undefined ? null : ok(option, 'lone');
}

/** Full-width ASCII forms ("Ｂ", "３", "：", "（"), the ideographic space, no-break and thin spaces. */
const WIDE_OR_SPACE = /[\uff01-\uff5e\u3000\u00a0\u2000-\u200a\u202f\u205f]/g;
const narrow = (c: string): string => (c >= '\uff01' && c <= '\uff5e' ? String.fromCharCode(c.charCodeAt(0) - 0xfee0) : ' ');
/**
 * Full-width "Ｂ" as B and a no-break or thin space as a space (what NFKC does to these, and only these:
 * a superscript or a circled digit stays as written), so "Answer: Ｂ" is not "no answer found" and
 * "B\u00a0or C" is the hedge "B or C".
 */
const asciiForms = (text: string): string => (/[^\x00-\x7f]/.test(text) ? text.replace(WIDE_OR_SPACE, narrow) : text);

export function extractChoice(raw: string, options: readonly string[] = DEFAULT_OPTIONS): Extraction {
  if (typeof raw !== 'string' || raw.trim() === '') return invalid('empty response');
  const response = asciiForms(raw);
  const lookup = optionLookup(options);
  const tagged = fromTags(response, lookup);
  if (tagged) return tagged;
  const plain = unwrap(HAS_MARKS.test(response) ? response.replace(MARKS, '') : response);
  return fromExplicit(plain, lookup) ?? fromLone(plain, lookup) ?? invalid('no answer found');
}
