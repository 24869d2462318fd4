import { isDeepStrictEqual } from 'node:util';

/**
 * A ```console block is a list of steps: a `$ ` line is a command (a line ending in `\` or `|` continues it),
 * and the lines up to the next command are what it prints (stdout and stderr, in the order written).
 */

export interface Step {
  command: string;
  expected: string[];
}

export function parseConsole(body: string[]): Step[] {
  const steps: Step[] = [];
  for (let i = 0; i < body.length; i++) {
    const line = body[i]!;
    if (line.startsWith('$ ')) {
      let command = line.slice(2);
      // A line ending in `\` or `|` goes on on the next one, as in a shell.
      while (/[\\|]\s*$/.test(command) && i + 1 < body.length) command = `${command}\n${body[++i]!}`;
      // A here-document (`cat > f <<'EOF'`) runs to its delimiter line: it is input, not output.
      const here = /<<-?\s*(['"]?)(\w+)\1/.exec(command);
      if (here) {
        while (i + 1 < body.length && body[i + 1] !== here[2]) command = `${command}\n${body[++i]!}`;
        if (i + 1 >= body.length) throw new Error(`here-document without its '${here[2]}' line: ${JSON.stringify(line)}`);
        command = `${command}\n${body[++i]!}`;
      }
      steps.push({ command, expected: [] });
    } else if (steps.length) {
      steps.at(-1)!.expected.push(line);
    } else if (line.trim() !== '') {
      throw new Error(`output before the first '$ ' command: ${JSON.stringify(line)}`);
    }
  }
  return steps;
}

/**
 * What may differ between a doc and a real run, and nothing else. A doc value that matches one of these
 * is bound to the value the run printed: later output must repeat the same value where the doc repeats it,
 * and later commands get the real value (so `assay keys revoke <prefix>` revokes the key just created).
 */
export interface Volatile {
  name: string;
  pattern: string;
  /**
   * A sticky value is one thing the doc refers to again (a key): the same doc value must be the same real
   * value wherever it recurs, and commands after it get the real one. Others (times) vary freely.
   */
  sticky: boolean;
  /** Parts of a value that the doc may also show on their own (a key's prefix), with their pattern. */
  parts?: (value: string) => Array<{ value: string; pattern: string }>;
}

export const VOLATILE: Volatile[] = [
  {
    // An API key is 256 random bits, new on every `assay keys create` and first start; its prefix
    // (8 random hex digits) is what `keys list` shows and `keys revoke` takes.
    name: 'api key',
    pattern: 'assay_[0-9a-f]{8}_[A-Za-z0-9_-]{43}',
    sticky: true,
    parts: (key) => [{ value: key.slice(6, 14), pattern: '[0-9a-f]{8}' }],
  },
  {
    // Creation and last-use times are the clock's.
    name: 'timestamp',
    pattern: '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?Z',
    sticky: false,
  },
];

function kindOf(token: string): Volatile | undefined {
  return VOLATILE.find((v) => new RegExp(`^(?:${v.pattern})$`).test(token));
}

/**
 * `assay run`'s progress lines (stderr) depend on timing: in a log one is written at the first update and
 * then one every 5 s, so how many appear, and which counts they show, vary with the machine's speed. They
 * are checked for their form only — on both sides, so the doc shows a real one — and then left out.
 */
const PROGRESS = /^[█░]+ \d+\/\d+ /;
const PROGRESS_FORM =
  /^[█░]{24} \d+\/\d+ {2}done \d+ {2}failed \d+ {2}remaining \d+ {2}(?:\d+\.\d\/s|—) {2}ETA \S+ {2}\d+ tokens {2}\$\d+\.\d{4}(?: {2}.*)?$/;

function withoutProgress(lines: string[]): { lines: string[]; malformed: string[] } {
  return { lines: lines.filter((l) => !PROGRESS.test(l)), malformed: lines.filter((l) => PROGRESS.test(l) && !PROGRESS_FORM.test(l)) };
}

/** Trailing spaces are invisible in a doc (and editors strip them); trailing blank lines too. */
function tidy(lines: string[]): string[] {
  const out = lines.map((l) => l.replace(/\s+$/, ''));
  while (out.length && out.at(-1) === '') out.pop();
  return out;
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export type Bindings = Map<string, string>;

export interface Comparison {
  ok: boolean;
  /** The doc's text with bound values filled in: what the run was expected to print (for the diff). */
  expected: string;
  actual: string;
}

/**
 * Compares a run's output with the doc's. Exact, after: trailing whitespace; the progress-line rule; the
 * volatile values above; and a pretty-printed JSON document in the doc, which equals the one-line JSON
 * the command prints when both parse to the same value.
 */
export function compareOutput(expectedLines: string[], actualText: string, bindings: Bindings): Comparison {
  const e = withoutProgress(tidy(expectedLines));
  const a = withoutProgress(tidy(actualText.split('\n')));
  const expectedTidy = e.lines;
  const expected = expectedTidy.join('\n');
  const actual = a.lines.join('\n');
  if (e.malformed.length || a.malformed.length) return { ok: false, expected: [...e.malformed, expected].join('\n'), actual: [...a.malformed, actual].join('\n') };
  if (expectedTidy.length > 1 && /^[{[]/.test(expected)) {
    const real = tryJson(actual);
    const doc = tryJson(expected);
    if (doc !== undefined) return { ok: real !== undefined && isDeepStrictEqual(real, doc), expected: JSON.stringify(doc), actual };
  }
  // Tokens: volatile values, then doc values whose real value is (or will be) known: bound ones, and the
  // parts (a key's prefix) of this output's own volatile values.
  const volatile = new RegExp(VOLATILE.map((v) => v.pattern).join('|'), 'g');
  const own = [...expected.matchAll(volatile)].map((m) => m[0]);
  const parts = new Map<string, { pattern: string; of: string; index: number }>();
  for (const token of own) kindOf(token)?.parts?.(token).forEach((p, index) => parts.set(p.value, { pattern: p.pattern, of: token, index }));
  const literals = [...new Set([...bindings.keys(), ...parts.keys()])].sort((a, b) => b.length - a.length).map(escape);
  const tokenizer = new RegExp([...VOLATILE.map((v) => v.pattern), ...literals].join('|'), 'g');

  const groups: string[] = [];
  const partChecks: Array<{ group: number; of: string; index: number }> = [];
  let source = '';
  let last = 0;
  for (const m of expected.matchAll(tokenizer)) {
    source += escape(expected.slice(last, m.index));
    last = m.index + m[0].length;
    const token = m[0];
    const bound = bindings.get(token);
    if (bound !== undefined) source += escape(bound);
    else if (groups.includes(token) && kindOf(token)?.sticky !== false) source += `\\k<v${groups.indexOf(token)}>`;
    else {
      const part = kindOf(token) ? undefined : parts.get(token);
      if (part) partChecks.push({ group: groups.length, of: part.of, index: part.index });
      source += `(?<v${groups.length}>${part ? part.pattern : kindOf(token)!.pattern})`;
      groups.push(token);
    }
  }
  source += escape(expected.slice(last));
  const match = new RegExp(`^${source}$`).exec(actual);
  if (!match) return { ok: false, expected: fill(expected, bindings), actual };
  const real = (i: number) => match.groups![`v${i}`]!;
  const partsAgree = partChecks.every((c) => {
    const whole = groups.indexOf(c.of);
    return kindOf(c.of)!.parts!(real(whole))[c.index]!.value === real(c.group);
  });
  if (!partsAgree) return { ok: false, expected: fill(expected, bindings), actual };
  groups.forEach((token, i) => bind(bindings, token, real(i)));
  return { ok: true, expected: fill(expected, bindings), actual };
}

function bind(bindings: Bindings, doc: string, real: string): void {
  if (bindings.has(doc) || kindOf(doc)?.sticky === false) return;
  bindings.set(doc, real);
  const docParts = kindOf(doc)?.parts?.(doc) ?? [];
  const realParts = kindOf(doc)?.parts?.(real) ?? [];
  docParts.forEach((p, i) => bindings.set(p.value, realParts[i]!.value));
}

/** `text` with every bound doc value replaced by the real one. */
export function fill(text: string, bindings: Bindings): string {
  let out = text;
  for (const [doc, real] of [...bindings].sort((a, b) => b[0].length - a[0].length)) out = out.split(doc).join(real);
  return out;
}

function tryJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}
