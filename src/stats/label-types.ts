import { badInput } from '../domain/errors.ts';
import type { Cell } from './input.ts';

/**
 * One type per label set. Labels are compared exactly (1 !== "1", see types.ts), so a rater file of
 * numbers against one of strings used to count every pair as a disagreement — kappa 0 over the
 * categories "1, 2, 1, 2", exit 0. The rule, over every file of one statistic together (both raters and
 * the category list of kappa; the matrix and the order of alpha; the matrix of fleiss --raw):
 *
 *   - all numbers, or all text: used as they are;
 *   - numbers and text mixed, and every text value is an integer written plainly ("1", "-2"; not "01",
 *     "1.0", " 1" or "1e3"): the text values are read as those numbers, and a warning says so;
 *   - numbers and any other text ("yes", "1.5", "01"): bad input, naming one value of each kind.
 *
 * Booleans are never labels (the parsers in input.ts refuse them). A CSV cell that reads as a number is
 * that number, so in CSV the text labels "A" and "1" cannot share a file: write such label sets as JSON.
 */
export interface LabelSource {
  /** How the file is named to the user, e.g. "--a ratings.json". */
  source: string;
  /** A flat list (value i) or a matrix (row r, column c). */
  values: readonly Cell[] | readonly (readonly Cell[])[];
}

interface Seen {
  source: string;
  where: string;
  value: string | number;
}

const PLAIN_INTEGER = /^-?(0|[1-9]\d*)$/;
const isPlainInteger = (s: string): boolean => PLAIN_INTEGER.test(s) && Number.isSafeInteger(Number(s));

function* cells(src: LabelSource): Generator<[Cell, string]> {
  for (let i = 0; i < src.values.length; i++) {
    const v = src.values[i]!;
    if (Array.isArray(v)) for (let j = 0; j < v.length; j++) yield [v[j] as Cell, `row ${i + 1}, column ${j + 1}`];
    else yield [v as Cell, `value ${i + 1}`];
  }
}

const show = (s: Seen): string => `${s.source} ${s.where} is ${typeof s.value === 'number' ? `the number ${s.value}` : `the text ${JSON.stringify(s.value)}`}`;

/** The sources with one label type, plus the warnings of any conversion; throws on a real mix. */
export function unifyLabelTypes<S extends LabelSource>(sources: readonly S[]): { sources: S[]; warnings: string[] } {
  let number: Seen | null = null;
  let text: Seen | null = null;
  let otherText: Seen | null = null;
  const textSources = new Set<string>();
  let converted = 0;
  for (const src of sources) {
    for (const [v, where] of cells(src)) {
      if (typeof v === 'number') number ??= { source: src.source, where, value: v };
      else if (typeof v === 'string') {
        text ??= { source: src.source, where, value: v };
        if (!isPlainInteger(v)) otherText ??= { source: src.source, where, value: v };
        textSources.add(src.source);
        converted++;
      }
    }
  }
  if (!number || !text) return { sources: [...sources], warnings: [] };
  if (otherText) {
    throw badInput(`labels mix numbers and text: ${show(number)} but ${show(otherText)} (use one type for every label: all numbers or all text)`);
  }
  const toNumber = (v: Cell): Cell => (typeof v === 'string' ? Number(v) : v);
  const out = sources.map((src) => ({
    ...src,
    values: src.values.map((v) => (Array.isArray(v) ? v.map(toNumber) : toNumber(v as Cell))),
  })) as S[];
  const where = [...textSources].join(', ');
  return {
    sources: out,
    warnings: [
      `${converted} label${converted === 1 ? '' : 's'} written as text in ${where} (e.g. ${show(text)}) read as numbers, to match the numeric labels (e.g. ${show(number)})`,
    ],
  };
}
