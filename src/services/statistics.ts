import { badInput } from '../domain/errors.ts';
import {
  alphaDocument,
  corrDocument,
  fleissDocument,
  iccDocument,
  kappaDocument,
  mcnemarDocument,
  requireConfidence,
  wilsonDocument,
  type CorrelationMethod,
  type KappaMethod,
  type StatDocument,
} from '../stats/documents.ts';
import { checkList, checkMatrix, type Cell } from '../stats/input.ts';
import type { KappaWeights } from '../stats/kappa.ts';
import type { AlphaLevel } from '../stats/krippendorff.ts';

/**
 * `POST /api/stats/{name}`: the statistics of `assay stats` on data posted in a request body, computed
 * by the same documents (src/stats/documents.ts), so a body and the CLI's files give the same JSON. Inputs
 * are named by their body field in messages (`a: value 3 is missing …`).
 */

export interface StatInputs {
  kappa: { a: unknown; b: unknown; categories?: unknown; weights?: KappaWeights; method?: KappaMethod; confidence?: number };
  fleiss: { data: unknown; raw?: boolean; categories?: unknown };
  alpha: { data: unknown; level: AlphaLevel; order?: unknown };
  wilson: { successes: number; trials: number; confidence?: number };
  corr: { x: unknown; y: unknown; method?: CorrelationMethod; confidence?: number };
  icc: { data: unknown; confidence?: number };
  mcnemar: { b: number; c: number; exact?: boolean; correction?: boolean };
}
export type StatName = keyof StatInputs;

const list = (v: unknown, name: string): Cell[] => checkList(v, name);
const optionalList = (v: unknown, name: string): Cell[] | undefined => (v === undefined ? undefined : checkList(v, name));
const confidence = (c: number | undefined): number => requireConfidence(c ?? 0.95);

const COMPUTE: { [K in StatName]: (b: StatInputs[K]) => StatDocument } = {
  kappa: (b) =>
    kappaDocument(
      { a: list(b.a, 'a'), b: list(b.b, 'b'), categories: optionalList(b.categories, 'categories'), weights: b.weights ?? 'none', method: b.method ?? 'cohen', confidence: confidence(b.confidence) },
      { a: 'a', b: 'b', categories: 'categories' },
    ).json,
  fleiss: (b) => {
    if (b.raw && b.categories !== undefined) throw badInput('categories: not used with raw (the labels name the categories)');
    return fleissDocument({ data: checkMatrix(b.data, 'data'), raw: b.raw ?? false, categories: optionalList(b.categories, 'categories') }, { data: 'data', categories: 'categories' }).json;
  },
  alpha: (b) => alphaDocument({ data: checkMatrix(b.data, 'data'), level: b.level, order: optionalList(b.order, 'order') }, { data: 'data', order: 'order' }).json,
  wilson: (b) => wilsonDocument({ successes: b.successes, trials: b.trials, confidence: confidence(b.confidence) }, { successes: 'successes', trials: 'trials' }).json,
  corr: (b) => corrDocument({ x: list(b.x, 'x'), y: list(b.y, 'y'), method: b.method ?? 'pearson', confidence: confidence(b.confidence) }, { x: 'x', y: 'y' }).json,
  icc: (b) => iccDocument({ data: checkMatrix(b.data, 'data'), confidence: confidence(b.confidence) }, { data: 'data' }).json,
  mcnemar: (b) => mcnemarDocument({ b: b.b, c: b.c, exact: b.exact ?? false, correction: b.correction ?? true }).json,
};

/** The JSON document `assay stats <name> --json` prints for the same data. */
export function computeStatistic<K extends StatName>(name: K, body: StatInputs[K]): StatDocument {
  return COMPUTE[name](body);
}
