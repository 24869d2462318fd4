import { badInput } from '../../domain/errors.ts';
import type { Rubric } from '../../domain/rubric.ts';
import type { Verdicts } from '../../domain/verdicts.ts';
import { jsonlRows } from '../choice/rows.ts';
import { parseVerdicts } from './rubric.ts';
import { scoreDescription, type DescriptionScore, type UnverifiablePolicy } from './score.ts';
import { assertExactId } from '../row-id.ts';

/**
 * Many verdict sets of one rubric in one pass (`assay score description --verdicts V.jsonl`): each line
 * is a verdicts document plus its "id" (and, optionally, the "answer" text for the meta statements).
 * Every line is scored exactly as the single-file form scores that document; the aggregate is the mean
 * of each metric over the lines (every set counts once, as FActScore averages per response) and the
 * pooled points and claims. A bad line is bad input naming its line number; nothing is scored then.
 */

export interface VerdictRow {
  line: number;
  id: string;
  verdicts: Verdicts;
  answer?: string;
}

export interface BatchLine {
  id: string;
  completeness: number;
  correctness: number;
  f1: number;
  points: DescriptionScore['points'];
  claims: DescriptionScore['claims'];
  meta?: DescriptionScore['meta'];
}

export interface BatchAggregate {
  n: number;
  /** Means over the verdict sets. */
  completeness: number;
  correctness: number;
  f1: number;
  /** Sums over the verdict sets. */
  points: DescriptionScore['points'];
  claims: DescriptionScore['claims'];
}

export function parseVerdictsJsonl(text: string, name: string): VerdictRow[] {
  const seen = new Set<string>();
  return jsonlRows(text, name).map(({ line, value }) => {
    const where = `${name}: line ${line}`;
    const { id: rawId, answer, ...doc } = value;
    assertExactId(rawId, where);
    const id = typeof rawId === 'number' && Number.isFinite(rawId) ? String(rawId) : typeof rawId === 'string' && rawId.trim() !== '' ? rawId.trim() : null;
    if (id === null) throw badInput(`${where}: "id" must be a non-empty string or a number`);
    if (seen.has(id)) throw badInput(`${where}: duplicate id '${id}'`);
    seen.add(id);
    if (answer !== undefined && typeof answer !== 'string') throw badInput(`${where}: "answer" must be a string (the answer text)`);
    const row: VerdictRow = { line, id, verdicts: parseVerdicts(doc, where) };
    if (answer !== undefined) row.answer = answer;
    return row;
  });
}

export function scoreDescriptionBatch(
  rubric: Rubric,
  rows: VerdictRow[],
  opts: { unverifiable?: UnverifiablePolicy; name?: string } = {},
): { lines: BatchLine[]; aggregate: BatchAggregate } {
  const points = { earned: 0, possible: 0 };
  const claims = { true: 0, false: 0, unverifiable: 0, total: 0 };
  let completeness = 0;
  let correctness = 0;
  let f1 = 0;
  const lines = rows.map((row) => {
    const s = scoreDescription(rubric, row.verdicts, {
      ...(opts.unverifiable ? { unverifiable: opts.unverifiable } : {}),
      ...(row.answer !== undefined ? { answer: row.answer } : {}),
      where: `${opts.name ?? 'verdicts'}: line ${row.line}`,
    });
    completeness += s.completeness;
    correctness += s.correctness;
    f1 += s.f1;
    points.earned += s.points.earned;
    points.possible += s.points.possible;
    for (const k of ['true', 'false', 'unverifiable', 'total'] as const) claims[k] += s.claims[k];
    const out: BatchLine = { id: row.id, completeness: s.completeness, correctness: s.correctness, f1: s.f1, points: s.points, claims: s.claims };
    if (s.meta) out.meta = s.meta;
    return out;
  });
  const n = rows.length;
  return { lines, aggregate: { n, completeness: completeness / n, correctness: correctness / n, f1: f1 / n, points, claims } };
}
