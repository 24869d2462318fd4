import { AssayError, badInput, isAssayError } from '../domain/errors.ts';
import { requireOrderOfText } from './categories.ts';
import { kendall, pearson, spearman } from './correlation.ts';
import { countsFromRatings, fleissKappa } from './fleiss.ts';
import { icc, type IccResult } from './icc.ts';
import { requireLabels, requireNumberMatrix, requireNumbers, type Cell } from './input.ts';
import { cohenKappa, gwetAC, scottPi, WEIGHTED_NEEDS_ORDER, type KappaWeights } from './kappa.ts';
import { krippendorffAlpha, ORDINAL_NEEDS_ORDER, type AlphaLevel } from './krippendorff.ts';
import { unifyLabelTypes } from './label-types.ts';
import { mcnemar } from './mcnemar.ts';
import type { Label } from './types.ts';
import { wilson } from './wilson.ts';

/**
 * The JSON document of each `assay stats` command, from data already in memory, so the CLI (files) and
 * `POST /api/stats/*` (a request body) give the same numbers, errors and warnings for the same input.
 * `names` say how an input is named in a message: the CLI says `--a labels.json`, the API says `a`.
 * Warnings are returned (and put in the document as `warnings` when there are any); the front decides
 * where else they go.
 */

export type StatDocument = Record<string, unknown>;
export interface Computed<R> {
  result: R;
  json: StatDocument;
  warnings: string[];
}

/** Library checks speak of "data"/"counts"; name the input the user gave instead. */
function naming<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (isAssayError(e) && e.code === 'bad_input') throw new AssayError('bad_input', `${what}: ${e.message}`);
    throw e;
  }
}

function done<R>(result: R, json: StatDocument, warnings: readonly string[]): Computed<R> {
  if (warnings.length) json.warnings = [...warnings];
  return { result, json, warnings: [...warnings] };
}

export function requireConfidence(c: number, given: string = String(c)): number {
  if (!(c > 0 && c < 1)) throw badInput(`confidence must be strictly between 0 and 1 (e.g. 0.95), got ${given}`);
  return c;
}

/**
 * Rating data has few raters and many units; a matrix the other way round is most likely transposed, and
 * read as it stands it answers a different question with a meaningless number (alpha 0.0101 on the
 * issue's example). Not an error: a small study can have more raters than units.
 */
export function orientationWarnings(src: string, rows: readonly (readonly unknown[])[], shape: 'raters × units' | 'subjects × raters'): string[] {
  const r = rows.length;
  const c = rows[0]?.length ?? 0;
  const [rowName, colName] = shape === 'raters × units' ? ['raters', 'units'] : ['subjects', 'raters'];
  const suspicious = shape === 'raters × units' ? r > c : c > r;
  if (!suspicious) return [];
  return [
    `${src} has ${r} rows and ${c} columns, read as ${r} ${rowName} × ${c} ${colName}; this command expects one row per ${rowName.slice(0, -1)} and one column per ${colName.slice(0, -1)} — if the rows are ${colName}, transpose the matrix`,
  ];
}

export const KAPPA_METHODS = { cohen: cohenKappa, scott: scottPi, gwet: gwetAC } as const;
export type KappaMethod = keyof typeof KAPPA_METHODS;

export interface KappaInput {
  a: readonly Cell[];
  b: readonly Cell[];
  categories?: readonly Cell[] | undefined;
  weights: KappaWeights;
  method: KappaMethod;
  confidence: number;
}

export function kappaDocument(input: KappaInput, names: { a: string; b: string; categories: string }) {
  requireLabels(input.a, names.a);
  requireLabels(input.b, names.b);
  if (input.a.length !== input.b.length) throw badInput(`${names.a} has ${input.a.length} labels but ${names.b} has ${input.b.length} (need one label per item in each)`);
  const lists = [{ source: names.a, values: input.a }, { source: names.b, values: input.b }];
  if (input.categories) {
    requireLabels(input.categories, names.categories);
    lists.push({ source: names.categories, values: input.categories });
  }
  // One label type across both raters and the category list (label-types.ts): 1 and "1" are one category or an error.
  const unified = unifyLabelTypes(lists);
  const [la, lb, categories] = unified.sources.map((l) => l.values as Label[]);
  const { weights, confidence, method } = input;
  // Said here, naming the input the front calls the category list; the library refuses the same case.
  if (weights !== 'none' && !categories) requireOrderOfText(la!.concat(lb!), WEIGHTED_NEEDS_ORDER, `give ${names.categories}`);
  const r = naming(names.categories, () => KAPPA_METHODS[method](la!, lb!, { weights, confidence, ...(categories ? { categories } : {}) }));
  const json: StatDocument = { kappa: r.kappa, se: r.se, ci: r.ci, agreement: r.agreement, n: r.n, categories: r.categories, method, weights };
  if (r.excluded) json.excluded = r.excluded;
  if (r.reason) json.reason = r.reason;
  return done(r, json, unified.warnings);
}

export interface FleissInput {
  data: readonly (readonly Cell[])[];
  raw: boolean;
  categories?: readonly Cell[] | undefined;
}

export function fleissDocument(input: FleissInput, names: { data: string; categories: string }) {
  const warnings: string[] = [];
  let counts: number[][];
  let labels: string[] | undefined;
  if (input.raw) {
    // Subjects × raters labels: count them per category (the categories name the columns).
    const unified = unifyLabelTypes([{ source: names.data, values: input.data }]);
    warnings.push(...unified.warnings, ...orientationWarnings(names.data, input.data, 'subjects × raters'));
    const converted = naming(names.data, () => countsFromRatings(unified.sources[0]!.values as Cell[][]));
    counts = converted.counts;
    labels = converted.categories.map(String);
  } else {
    counts = requireNumberMatrix(input.data, names.data);
    if (input.categories) {
      labels = naming(names.categories, () => {
        const list = requireLabels(input.categories!, names.categories).map(String);
        const twice = list.findIndex((name, i) => list.indexOf(name) !== i);
        if (twice >= 0) throw badInput(`value ${twice + 1}: name ${JSON.stringify(list[twice])} is listed twice`);
        return list;
      });
    }
  }
  const r = naming(names.data, () => fleissKappa(counts, labels));
  const json: StatDocument = { kappa: r.kappa, se: r.se, z: r.z, p: r.p, byCategory: r.byCategory, subjects: r.subjects, raters: r.raters };
  if (r.reason) json.reason = r.reason;
  return done(r, json, warnings);
}

export const ALPHA_LEVELS: readonly AlphaLevel[] = ['nominal', 'ordinal', 'interval', 'ratio'];

export function alphaDocument(input: { data: readonly (readonly Cell[])[]; level: AlphaLevel; order?: readonly Cell[] | undefined }, names: { data: string; order: string }) {
  const sources: { source: string; values: readonly Cell[] | readonly (readonly Cell[])[] }[] = [{ source: names.data, values: input.data }];
  if (input.order) {
    requireLabels(input.order, names.order);
    sources.push({ source: names.order, values: input.order });
  }
  const unified = unifyLabelTypes(sources);
  const data = unified.sources[0]!.values as Cell[][];
  const order = unified.sources[1]?.values as Label[] | undefined;
  if (input.level === 'ordinal' && !order) requireOrderOfText(data.flat(), ORDINAL_NEEDS_ORDER, `give ${names.order}`);
  const r = naming(names.data, () => krippendorffAlpha(data, input.level, order ? { order } : {}));
  const json: StatDocument = { alpha: r.alpha, level: r.level, units: r.units, pairable: r.pairable, values: r.values };
  if (r.reason) json.reason = r.reason;
  return done({ ...r, raters: data.length }, json, [...unified.warnings, ...orientationWarnings(names.data, data, 'raters × units')]);
}

export function wilsonDocument(input: { successes: number; trials: number; confidence: number }, names: { successes: string; trials: string }) {
  const { successes: k, trials: n, confidence } = input;
  if (k > n) throw badInput(`${names.successes} ${k} cannot exceed ${names.trials} ${n}`);
  const r = wilson(k, n, confidence);
  const json: StatDocument = { estimate: r.estimate, ci: r.ci, successes: k, trials: n, confidence };
  if (r.reason) json.reason = r.reason;
  return done(r, json, []);
}

export const CORRELATIONS = ['pearson', 'spearman', 'kendall'] as const;
export type CorrelationMethod = (typeof CORRELATIONS)[number];

export function corrDocument(input: { x: readonly Cell[]; y: readonly Cell[]; method: CorrelationMethod; confidence: number }, names: { x: string; y: string }) {
  const xs = requireNumbers(input.x, names.x);
  const ys = requireNumbers(input.y, names.y);
  if (xs.length !== ys.length) throw badInput(`${names.x} has ${xs.length} values but ${names.y} has ${ys.length} (need one pair per item)`);
  const { method, confidence } = input;
  const r = method === 'pearson' ? pearson(xs, ys, confidence) : method === 'spearman' ? spearman(xs, ys) : kendall(xs, ys);
  const json: StatDocument = { r: r.r, p: r.p, n: r.n };
  if ('ci' in r) json.ci = r.ci;
  json.method = method;
  if (r.reason) json.reason = r.reason;
  return done(r, json, []);
}

export function mcnemarDocument(input: { b: number; c: number; exact: boolean; correction: boolean }) {
  const r = mcnemar(input.b, input.c, { exact: input.exact, correction: input.correction });
  const json: StatDocument = { statistic: r.statistic, p: r.p, method: r.method, b: input.b, c: input.c };
  if (r.reason) json.reason = r.reason;
  return done(r, json, []);
}

export function iccDocument(input: { data: readonly (readonly Cell[])[]; confidence: number }, names: { data: string }): Computed<IccResult> {
  const ratings = requireNumberMatrix(input.data, names.data);
  const r = naming(names.data, () => icc(ratings, input.confidence));
  return done(r, { ...r }, orientationWarnings(names.data, ratings, 'subjects × raters'));
}
