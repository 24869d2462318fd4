import { badInput } from '../../domain/errors.ts';
import { extractChoice, type Extraction } from './extract.ts';
import { canonicalAnswer, keyOptionsByKind } from './options.ts';
import type { KeyRow, ResponseRow } from './rows.ts';

/**
 * Multiple-choice accuracy per model (design §2.3). Every model is scored on the whole key: n is the
 * number of key items, and an item the model has no response for counts as invalid (and wrong) and
 * is also counted in `missing`. accuracy = correct / n, invalidRate = invalid / n (missing included).
 */
export interface Slice {
  n: number;
  accuracy: number;
  invalidRate: number;
}

export interface ModelChoiceScore extends Slice {
  correct: number;
  invalid: number;
  missing: number;
  byCategory: Record<string, Slice>;
  byDomain: Record<string, Slice>;
  /** Mean of the per-category accuracies, each category weighing the same; null without categories. */
  unweightedCategoryMean: number | null;
  reason?: string;
}

export interface ChoiceScores {
  models: Record<string, ModelChoiceScore>;
}

export interface ScoredResponse {
  model: string;
  id: string;
  expected: string;
  extraction: Extraction;
  correct: boolean;
}

/** Rows without a category sit in this bucket when other rows have one, so no item is silently dropped. */
export const UNCATEGORISED = '(none)';

interface Tally {
  n: number;
  correct: number;
  invalid: number;
}

const slice = (t: Tally): Slice => ({ n: t.n, accuracy: t.correct / t.n, invalidRate: t.invalid / t.n });

function bump(map: Map<string, Tally>, key: string, correct: boolean, invalid: boolean): void {
  const t = map.get(key) ?? { n: 0, correct: 0, invalid: 0 };
  t.n += 1;
  if (correct) t.correct += 1;
  if (invalid) t.invalid += 1;
  map.set(key, t);
}

const sortedRecord = (m: Map<string, Tally>): Record<string, Slice> =>
  Object.fromEntries([...m.keys()].sort().map((k) => [k, slice(m.get(k)!)]));

export interface ChoiceOptions {
  keyName?: string;
  responsesName?: string;
}

/** Checks the rows against each other and extracts every response; exported for per-response listings. */
export function scoreResponses(key: KeyRow[], responses: ResponseRow[], opts: ChoiceOptions = {}): ScoredResponse[] {
  const keyName = opts.keyName ?? 'key';
  const responsesName = opts.responsesName ?? 'responses';
  if (key.length === 0) throw badInput(`${keyName}: the key has no rows`);
  const byId = new Map<string, KeyRow>();
  key.forEach((k, i) => {
    const at = `${keyName}: line ${k.line ?? i + 1}`;
    if (typeof k.answer !== 'string' || k.answer.trim() === '') throw badInput(`${at}: key row '${k.id}' has no "answer"`);
    if (byId.has(k.id)) throw badInput(`${at}: duplicate key id '${k.id}'`);
    // The label of "no category" in byCategory/byDomain: a real one of that name merged with those questions.
    for (const field of ['category', 'domain'] as const) {
      if (k[field] === UNCATEGORISED) throw badInput(`${at}: ${field} '${UNCATEGORISED}' is the name reports give questions without a ${field}; rename it`);
    }
    byId.set(k.id, k);
  });
  // A row with its own options sets its own question's only: its answer ("yes" in a lettered key) would
  // otherwise turn the key-wide set from A–E into the distinct answers.
  const keyOptions = keyOptionsByKind(key.filter((k) => k.options === undefined).map((k) => k.answer.trim()));
  const seen = new Map<string, number>();
  return responses.map((r, i) => {
    const line = r.line ?? i + 1;
    const at = `${responsesName}: line ${line}`;
    const k = byId.get(r.id);
    if (!k) throw badInput(`${at}: id '${r.id}' is not in the key`);
    const pair = `${r.model}\u0000${r.id}`;
    const first = seen.get(pair);
    if (first !== undefined) throw badInput(`${at}: duplicate response for model '${r.model}', id '${r.id}' (first on line ${first})`);
    seen.set(pair, line);
    const options = k.options ?? keyOptions(k.answer);
    const expected = canonicalAnswer(k.answer, options);
    const extraction = r.response === null ? { choice: null, status: 'invalid' as const, reason: 'no response' } : extractChoice(r.response, options);
    return { model: r.model, id: r.id, expected, extraction, correct: extraction.choice === expected };
  });
}

export function scoreChoices(key: KeyRow[], responses: ResponseRow[], opts: ChoiceOptions = {}): ChoiceScores {
  const scored = scoreResponses(key, responses, opts);
  const perModel = new Map<string, Map<string, ScoredResponse>>();
  for (const s of scored) {
    const m = perModel.get(s.model) ?? new Map<string, ScoredResponse>();
    m.set(s.id, s);
    perModel.set(s.model, m);
  }
  const anyCategory = key.some((k) => k.category !== undefined);
  const anyDomain = key.some((k) => k.domain !== undefined);
  // entries, not assignment into {}: a model named "__proto__" would set the prototype and vanish
  const models: Array<[string, ModelChoiceScore]> = [];
  for (const model of [...perModel.keys()].sort()) {
    const answered = perModel.get(model)!;
    const total: Tally = { n: 0, correct: 0, invalid: 0 };
    let missing = 0;
    const cats = new Map<string, Tally>();
    const doms = new Map<string, Tally>();
    for (const k of key) {
      const s = answered.get(k.id);
      const correct = s?.correct ?? false;
      const invalid = !s || s.extraction.status === 'invalid';
      if (!s) missing += 1;
      total.n += 1;
      if (correct) total.correct += 1;
      if (invalid) total.invalid += 1;
      if (anyCategory) bump(cats, k.category ?? UNCATEGORISED, correct, invalid);
      if (anyDomain) bump(doms, k.domain ?? UNCATEGORISED, correct, invalid);
    }
    const byCategory = sortedRecord(cats);
    const accs = Object.values(byCategory).map((c) => c.accuracy);
    const score: ModelChoiceScore = {
      ...slice(total),
      correct: total.correct,
      invalid: total.invalid,
      missing,
      byCategory,
      byDomain: sortedRecord(doms),
      unweightedCategoryMean: accs.length > 0 ? accs.reduce((a, b) => a + b, 0) / accs.length : null,
    };
    if (accs.length === 0) score.reason = 'no key row has a category';
    models.push([model, score]);
  }
  return { models: Object.fromEntries(models) };
}
