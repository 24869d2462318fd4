/**
 * The set of options a multiple-choice response may pick from. Extraction only accepts a token that is an
 * option, so "The answer is 42" cannot read as a choice on an A–E question.
 */
export const DEFAULT_OPTIONS: readonly string[] = ['A', 'B', 'C', 'D', 'E'];

/** What extraction reads as one option: letters and digits, joined by '.', '/' or '-' ("B", "12", "1.5", "yes"). */
export const OPTION_TOKEN = String.raw`[A-Za-z0-9]+(?:[./-][A-Za-z0-9]+)*`;
const WHOLE_TOKEN = new RegExp(`^${OPTION_TOKEN}$`);
/** A key answer as keys often write it: "(B)", "[c]", "D.", "E)". */
const DRESSED = new RegExp(String.raw`^[(\[]?\s*(${OPTION_TOKEN})\s*[)\]]?\.?$`);

/**
 * A key's answer or option as the option it names ("(B)" → "B"), or null when no response could ever name it
 * (extraction reads one token, so "not sure" or "A and B" can never be chosen).
 */
export function keyOption(written: string): string | null {
  const t = written.trim();
  if (WHOLE_TOKEN.test(t)) return t;
  return DRESSED.exec(t)?.[1] ?? null;
}

const LETTER = /^[A-Za-z]$/;
const INTEGER = /^\d+$/;

/**
 * Options implied by a key's answers: all single letters → A through the highest letter (at least E);
 * all whole numbers → 1 (or 0 when a key uses 0) through the highest (at least 5); anything else
 * (yes/no, words) → the distinct answers themselves.
 */
export function optionsFromAnswers(answers: readonly string[]): string[] {
  if (answers.length === 0) return [...DEFAULT_OPTIONS];
  if (answers.every((a) => LETTER.test(a))) {
    const top = Math.max('E'.charCodeAt(0), ...answers.map((a) => a.toUpperCase().charCodeAt(0)));
    const out: string[] = [];
    for (let c = 'A'.charCodeAt(0); c <= top; c++) out.push(String.fromCharCode(c));
    return out;
  }
  if (answers.every((a) => INTEGER.test(a))) {
    const nums = answers.map(Number);
    const out: string[] = [];
    for (let n = nums.includes(0) ? 0 : 1, top = Math.max(5, ...nums); n <= top; n++) out.push(String(n));
    return out;
  }
  const seen = new Map<string, string>();
  for (const a of answers) if (!seen.has(optionKey(a))) seen.set(optionKey(a), a);
  return [...seen.values()];
}

/**
 * Options of each question of a key from its answers, kind by kind: questions answered with a letter get
 * optionsFromAnswers of the key's letter answers, whole numbers of its number answers, words of its word
 * answers. A key mixing lettered and counting questions would otherwise fall to "the distinct answers"
 * for all of them, and a wrong B (or 4) not among them could not be read.
 */
export function keyOptionsByKind(answers: readonly string[]): (answer: string) => readonly string[] {
  const kind = (a: string) => (LETTER.test(a) ? 0 : INTEGER.test(a) ? 1 : 2);
  const groups: string[][] = [[], [], []];
  for (const a of answers) groups[kind(a)]!.push(a);
  const sets = groups.map((g) => optionsFromAnswers(g));
  return (answer) => sets[kind(answer.trim())]!;
}

/**
 * The key a written token is looked up by: trimmed, upper case, and a whole number without leading zeros,
 * so "b" names option B and "01" names option 1 (a key answer "01" was otherwise no option of 1–5, and
 * nothing could score right on it).
 */
export function optionKey(token: string): string {
  const t = token.trim().toUpperCase();
  return INTEGER.test(t) ? t.replace(/^0+(?=\d)/, '') : t;
}

/** Lookup from optionKey(token) to the canonical option. */
export type OptionLookup = ReadonlyMap<string, string>;

const lookups = new WeakMap<readonly string[], OptionLookup>();

export function optionLookup(options: readonly string[]): OptionLookup {
  let m = lookups.get(options);
  if (!m) {
    const built = new Map<string, string>();
    for (const o of options) built.set(optionKey(o), o);
    lookups.set(options, built);
    m = built;
  }
  return m;
}

/** The canonical form of a key answer: the option it names, or itself trimmed. */
export function canonicalAnswer(answer: string, options: readonly string[]): string {
  return optionLookup(options).get(optionKey(answer)) ?? answer.trim();
}
