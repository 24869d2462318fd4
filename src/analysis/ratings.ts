import { badInput } from '../domain/errors.ts';
import { jsonlRows } from '../scoring/choice/rows.ts';
import { icc, type IccResult } from '../stats/icc.ts';
import { krippendorffAlpha, type AlphaResult } from '../stats/krippendorff.ts';

/**
 * Human ratings of model answers (e.g. 5-point scores for silhouette match, plausibility, closeness by
 * several experts): mean ± sample SD per model and criterion, and per criterion how far the experts
 * agree. The rated unit is one answer, (model, item); the raters are the experts.
 */
export interface RatingRow {
  model: string;
  item: string;
  criterion: string;
  rater: string;
  rating: number;
}

export interface RatingSummary {
  model: string;
  criterion: string;
  /** Ratings (answers × raters that rated them). */
  n: number;
  items: number;
  raters: number;
  mean: number;
  /** Sample SD (n − 1 denominator); null when n < 2. */
  sd: number | null;
  reason?: string;
}

export interface CriterionAgreement {
  criterion: string;
  raters: string[];
  /** Rated answers, (model, item) pairs. */
  units: number;
  /** Answers rated by every rater: the only ones ICC can use. */
  completeUnits: number;
  /** ICC over the complete answers; null when fewer than 2 answers or raters are complete. */
  icc: IccResult | null;
  iccReason?: string;
  /** Krippendorff's alpha over all answers (missing ratings allowed). */
  alpha: { ordinal: AlphaResult; interval: AlphaResult };
}

export interface RatingsReport {
  summaries: RatingSummary[];
  agreement: CriterionAgreement[];
}

const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();
const unitKey = (r: RatingRow) => JSON.stringify([r.model, r.item]);

export function summarizeRatings(rows: RatingRow[]): RatingsReport {
  const seen = new Set<string>();
  for (const r of rows) {
    if (!Number.isFinite(r.rating)) throw badInput(`ratings: ${r.rater} rated ${r.model}/${r.item}/${r.criterion} ${r.rating}, expected a number`);
    const key = JSON.stringify([r.model, r.item, r.criterion, r.rater]);
    if (seen.has(key)) throw badInput(`ratings: ${r.rater} rated ${r.model}/${r.item} on ${r.criterion} twice`);
    seen.add(key);
  }
  const criteria = sorted(rows.map((r) => r.criterion));
  const summaries: RatingSummary[] = [];
  for (const model of sorted(rows.map((r) => r.model))) {
    for (const criterion of criteria) {
      const mine = rows.filter((r) => r.model === model && r.criterion === criterion);
      if (mine.length > 0) summaries.push(describe(model, criterion, mine));
    }
  }
  return { summaries, agreement: criteria.map((c) => agreement(c, rows.filter((r) => r.criterion === c))) };
}

function describe(model: string, criterion: string, rows: RatingRow[]): RatingSummary {
  const xs = rows.map((r) => r.rating);
  const n = xs.length;
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  const base = { model, criterion, n, items: new Set(rows.map((r) => r.item)).size, raters: new Set(rows.map((r) => r.rater)).size, mean };
  if (n < 2) return { ...base, sd: null, reason: 'one rating: no sample SD' };
  return { ...base, sd: Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1)) };
}

function agreement(criterion: string, rows: RatingRow[]): CriterionAgreement {
  const raters = sorted(rows.map((r) => r.rater));
  const units = sorted(rows.map(unitKey));
  const unitIndex = new Map(units.map((u, i) => [u, i]));
  const raterIndex = new Map(raters.map((r, i) => [r, i]));
  // raters × units, null where a rater did not rate an answer
  const matrix: (number | null)[][] = raters.map(() => units.map(() => null));
  for (const r of rows) matrix[raterIndex.get(r.rater)!]![unitIndex.get(unitKey(r))!] = r.rating;
  const complete = units.map((_, u) => matrix.map((row) => row[u]!)).filter((col) => col.every((v) => v !== null)) as number[][];
  const out: CriterionAgreement = {
    criterion,
    raters,
    units: units.length,
    completeUnits: complete.length,
    icc: null,
    alpha: { ordinal: krippendorffAlpha(matrix, 'ordinal'), interval: krippendorffAlpha(matrix, 'interval') },
  };
  if (raters.length < 2) out.iccReason = 'one rater: nothing to agree with';
  else if (complete.length < 2) out.iccReason = `${complete.length} answer(s) rated by all ${raters.length} raters; ICC needs at least 2`;
  else out.icc = icc(complete);
  return out;
}

/** `assay analyze ratings --input R.jsonl`: rows {"model","item","criterion","rater","rating"}. */
export function parseRatingsJsonl(text: string, name: string): RatingRow[] {
  return jsonlRows(text, name).map(({ line, value: v }) => {
    const where = `${name}: line ${line}`;
    const field = (k: string) => {
      const x = v[k];
      if ((typeof x !== 'string' || x === '') && typeof x !== 'number') throw badInput(`${where}: "${k}" must be a non-empty string`);
      return String(x);
    };
    if (typeof v.rating !== 'number' || !Number.isFinite(v.rating)) throw badInput(`${where}: "rating" must be a number, got ${JSON.stringify(v.rating)}`);
    return { model: field('model'), item: field('item'), criterion: field('criterion'), rater: field('rater'), rating: v.rating };
  });
}
