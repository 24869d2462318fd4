import { ITEM_VERDICTS, VERDICT_POINTS, type ItemVerdict } from '../../domain/verdicts.ts';
import { bootstrapClustered } from '../../stats/bootstrap.ts';
import { cohenKappa } from '../../stats/kappa.ts';
import { POINT_LEVELS } from '../calibration/compare.ts';
import { DROP_REASON_TEXT, DROP_REASONS, type CompareUnit, type DropReason, type JudgeGrade, type UnitSet } from './units.ts';

/**
 * Judge B against judge A on the same human labels: what a user needs to accept or reject a prompt change.
 * The kappas are the calibration's (calibrate's `kappa` over the four verdicts and its `weightedKappa`,
 * linear weights over the verdict points 0, 0.5, 1); the difference B − A gets a paired bootstrap interval
 * that resamples answers (the sampled unit: an answer's items are not independent) with both judges'
 * verdicts of a resampled answer kept together.
 */

export interface JudgeCompareOptions {
  seed: number;
  resamples: number;
  /** Answers listed in `f1Moves`. */
  top: number;
  confidence?: number;
}

export interface KappaFigure {
  kappa: number | null;
  ci: [number, number] | null;
  reason?: string;
}

export interface JudgeAgreement {
  judge: string;
  /** Share of units where the judge's verdict equals the human one. */
  agreement: number | null;
  kappa: KappaFigure;
  weightedKappa: KappaFigure;
}

export interface Difference {
  /** kappa(B) − kappa(A) on all units. */
  estimate: number | null;
  /** Paired percentile bootstrap over answers. */
  ci: [number, number] | null;
  resamples: number;
  reason?: string;
}

export interface Transition {
  from: ItemVerdict;
  to: ItemVerdict;
  count: number;
}

export interface FlipCounts {
  units: number;
  /** Units whose verdict differs between A and B. */
  flips: number;
  /** Flips where B gives the human verdict and A did not. */
  towardHuman: number;
  /** Flips where A gave the human verdict and B does not. */
  awayFromHuman: number;
  /** Flips where neither gives the human verdict. */
  neither: number;
}

export interface ItemFlips extends FlipCounts {
  /** The item's rubric (null when unknown): rubrics share item ids, so a row is one (rubric, item). */
  rubric: string | null;
  item: string;
  /** A→B verdict pairs that differ, most frequent first. */
  transitions: Transition[];
}

export interface F1Move {
  answer: string;
  f1A: number;
  f1B: number;
  /** f1B − f1A. */
  delta: number;
  /** Whether some human labelled an item of the answer. */
  humanLabelled: boolean;
}

export interface JudgeComparison {
  judgeA: string;
  judgeB: string;
  units: number;
  answers: number;
  humanLabelledPairs: number;
  dropped: { total: number; byReason: Array<{ reason: DropReason; count: number; description: string }> };
  a: JudgeAgreement;
  b: JudgeAgreement;
  difference: { kappa: Difference; weightedKappa: Difference };
  bootstrap: { seed: number; resamples: number; confidence: number; unit: 'answer' };
  flips: FlipCounts & { items: ItemFlips[] };
  f1Moves: { graded: number; top: F1Move[] };
}

type Side = 'a' | 'b';
type Kind = 'kappa' | 'weightedKappa';

/** The calibration's two verdict kappas of one judge against the human verdicts. */
const KAPPAS: Readonly<Record<Kind, (judge: ItemVerdict[], human: ItemVerdict[], confidence: number) => ReturnType<typeof cohenKappa>>> = {
  kappa: (j, h, confidence) => cohenKappa(j, h, { weights: 'none', categories: ITEM_VERDICTS, confidence }),
  weightedKappa: (j, h, confidence) =>
    cohenKappa(j.map((v) => VERDICT_POINTS[v]), h.map((v) => VERDICT_POINTS[v]), { weights: 'linear', categories: POINT_LEVELS, confidence }),
};

function kappaOf(units: readonly CompareUnit[], side: Side, kind: Kind, confidence: number): ReturnType<typeof cohenKappa> {
  return KAPPAS[kind](units.map((u) => u[side]), units.map((u) => u.human), confidence);
}

function figure(units: readonly CompareUnit[], side: Side, kind: Kind, confidence: number): KappaFigure {
  const k = kappaOf(units, side, kind, confidence);
  return { kappa: k.kappa, ci: k.ci, ...(k.reason ? { reason: k.reason } : {}) };
}

function agreementOf(judge: string, units: readonly CompareUnit[], side: Side, confidence: number): JudgeAgreement {
  return {
    judge,
    agreement: units.length > 0 ? units.filter((u) => u[side] === u.human).length / units.length : null,
    kappa: figure(units, side, 'kappa', confidence),
    weightedKappa: figure(units, side, 'weightedKappa', confidence),
  };
}

function difference(units: readonly CompareUnit[], kind: Kind, opts: JudgeCompareOptions, confidence: number): Difference {
  const diff = (sample: readonly CompareUnit[]): number | null => {
    const a = kappaOf(sample, 'a', kind, confidence).kappa;
    const b = kappaOf(sample, 'b', kind, confidence).kappa;
    return a === null || b === null ? null : b - a;
  };
  const r = bootstrapClustered(units, (u) => u.answer, diff, { seed: opts.seed, resamples: opts.resamples, confidence });
  return { estimate: r.estimate, ci: r.ci, resamples: r.resamples, ...(r.reason ? { reason: r.reason } : {}) };
}

function countFlips(units: readonly CompareUnit[]): FlipCounts {
  const out: FlipCounts = { units: units.length, flips: 0, towardHuman: 0, awayFromHuman: 0, neither: 0 };
  for (const u of units) {
    if (u.a === u.b) continue;
    out.flips++;
    if (u.b === u.human) out.towardHuman++;
    else if (u.a === u.human) out.awayFromHuman++;
    else out.neither++;
  }
  return out;
}

/** Per (rubric, item), by rubric then item id: the ImageInWords rubrics share ids ('sky'), which name no one item. */
function itemFlips(units: readonly CompareUnit[]): ItemFlips[] {
  const byItem = new Map<string, CompareUnit[]>();
  for (const u of units) {
    const key = JSON.stringify([u.rubric, u.item]);
    byItem.set(key, [...(byItem.get(key) ?? []), u]);
  }
  return [...byItem.values()]
    .sort(([x], [y]) => (x!.rubric ?? '').localeCompare(y!.rubric ?? '') || x!.item.localeCompare(y!.item))
    .map((list) => {
      const { rubric, item } = list[0]!;
      const pairs = new Map<string, Transition>();
      for (const u of list) {
        if (u.a === u.b) continue;
        const key = `${u.a}→${u.b}`;
        const t = pairs.get(key) ?? { from: u.a, to: u.b, count: 0 };
        t.count++;
        pairs.set(key, t);
      }
      const transitions = [...pairs.values()].sort((x, y) => y.count - x.count || x.from.localeCompare(y.from) || x.to.localeCompare(y.to));
      return { rubric, item, ...countFlips(list), transitions };
    });
}

/** Answers graded ok (with an F1) by both judges, largest |F1_B − F1_A| first, ties by answer id. */
function f1Moves(gradesA: ReadonlyMap<string, JudgeGrade>, gradesB: ReadonlyMap<string, JudgeGrade>, labelled: ReadonlySet<string>, top: number) {
  const moves: F1Move[] = [];
  for (const [answer, a] of gradesA) {
    const b = gradesB.get(answer);
    if (!b || a.status !== 'ok' || b.status !== 'ok' || a.f1 === null || b.f1 === null) continue;
    moves.push({ answer, f1A: a.f1, f1B: b.f1, delta: b.f1 - a.f1, humanLabelled: labelled.has(answer) });
  }
  moves.sort((x, y) => Math.abs(y.delta) - Math.abs(x.delta) || x.answer.localeCompare(y.answer));
  return { graded: moves.length, top: moves.slice(0, top) };
}

export function compareJudges(
  names: { a: string; b: string },
  set: UnitSet,
  grades: { a: ReadonlyMap<string, JudgeGrade>; b: ReadonlyMap<string, JudgeGrade>; humanLabelledAnswers: ReadonlySet<string> },
  opts: JudgeCompareOptions,
): JudgeComparison {
  const confidence = opts.confidence ?? 0.95;
  const { units } = set;
  const byReason = DROP_REASONS.filter((r) => set.dropped[r] > 0).map((reason) => ({ reason, count: set.dropped[reason], description: DROP_REASON_TEXT[reason] }));
  return {
    judgeA: names.a,
    judgeB: names.b,
    units: units.length,
    answers: new Set(units.map((u) => u.answer)).size,
    humanLabelledPairs: set.labelled,
    dropped: { total: byReason.reduce((s, r) => s + r.count, 0), byReason },
    a: agreementOf(names.a, units, 'a', confidence),
    b: agreementOf(names.b, units, 'b', confidence),
    difference: { kappa: difference(units, 'kappa', opts, confidence), weightedKappa: difference(units, 'weightedKappa', opts, confidence) },
    bootstrap: { seed: opts.seed, resamples: opts.resamples, confidence, unit: 'answer' },
    flips: { ...countFlips(units), items: itemFlips(units) },
    f1Moves: f1Moves(grades.a, grades.b, grades.humanLabelledAnswers, opts.top),
  };
}
