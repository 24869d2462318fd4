import { SCALES } from '../../domain/labels.ts';
import type { ItemVerdict } from '../../domain/verdicts.ts';

/**
 * The units of a judge comparison: (answer, rubric item) pairs a human labelled and both judges graded ok.
 * The human reference is the label per (answer, item); with several annotators the verdict most of them gave,
 * and a tie for the top is skipped (counted) rather than broken arbitrarily — the calibration's rule.
 */

export interface HumanItemLabel {
  answer: string;
  /** The answer's rubric, when known: the per-item flips are per (rubric, item), rubrics sharing item ids. */
  rubric?: string | null;
  item: string;
  rater: string;
  label: string;
}

/** One judge's stored grade of one answer: its status, its item verdicts (ok grades) and F1. */
export interface JudgeGrade {
  status: string;
  items: ReadonlyArray<{ id: string; verdict: string }> | null;
  f1: number | null;
}

export interface CompareUnit {
  answer: string;
  rubric: string | null;
  item: string;
  a: ItemVerdict;
  b: ItemVerdict;
  human: ItemVerdict;
}

/** Why a human-labelled (answer, item) pair is not a unit; each pair counts once, under its first reason. */
export const DROP_REASONS = [
  'humanTie',
  'humanNotAVerdict',
  'aNotGraded',
  'aNotOk',
  'aNoVerdict',
  'bNotGraded',
  'bNotOk',
  'bNoVerdict',
] as const;
export type DropReason = (typeof DROP_REASONS)[number];

export const DROP_REASON_TEXT: Readonly<Record<DropReason, string>> = {
  humanTie: 'the human labels tie (no majority)',
  humanNotAVerdict: 'a human label is not a verdict (correct|partial|incorrect|missing)',
  aNotGraded: 'judge A has no grade of the answer',
  aNotOk: "judge A's grade of the answer is not ok",
  aNoVerdict: "judge A's ok grade has no verdict for the item",
  bNotGraded: 'judge B has no grade of the answer',
  bNotOk: "judge B's grade of the answer is not ok",
  bNoVerdict: "judge B's ok grade has no verdict for the item",
};

export interface UnitSet {
  units: CompareUnit[];
  /** Human-labelled (answer, item) pairs seen. */
  labelled: number;
  dropped: Record<DropReason, number>;
}

function verdictOf(label: string): ItemVerdict | null {
  const n = SCALES.verdict.normalise(label);
  return n ? (n.category as ItemVerdict) : null;
}

/** The human majority verdict of one pair, 'tie', or 'invalid' when some label is not a verdict. */
function majority(labels: readonly string[]): ItemVerdict | 'tie' | 'invalid' {
  const counts = new Map<ItemVerdict, number>();
  for (const l of labels) {
    const v = verdictOf(l);
    if (v === null) return 'invalid';
    counts.set(v, (counts.get(v) ?? 0) + 1);
  }
  const ranked = [...counts.entries()].sort((x, y) => y[1] - x[1]);
  if (ranked.length > 1 && ranked[0]![1] === ranked[1]![1]) return 'tie';
  return ranked[0]![0];
}

type Side = 'a' | 'b';
const SIDE_REASONS: Readonly<Record<Side, { none: DropReason; notOk: DropReason; noVerdict: DropReason }>> = {
  a: { none: 'aNotGraded', notOk: 'aNotOk', noVerdict: 'aNoVerdict' },
  b: { none: 'bNotGraded', notOk: 'bNotOk', noVerdict: 'bNoVerdict' },
};

function judgeVerdict(side: Side, grade: JudgeGrade | undefined, item: string): ItemVerdict | DropReason {
  const r = SIDE_REASONS[side];
  if (!grade) return r.none;
  if (grade.status !== 'ok') return r.notOk;
  const found = (grade.items ?? []).find((it) => it.id === item);
  const v = found ? verdictOf(found.verdict) : null;
  return v ?? r.noVerdict;
}

const isReason = (v: string): v is DropReason => (DROP_REASONS as readonly string[]).includes(v);

/** Units in answer, item order from human labels and both judges' grades keyed by answer. */
export function buildUnits(
  humans: readonly HumanItemLabel[],
  gradesA: ReadonlyMap<string, JudgeGrade>,
  gradesB: ReadonlyMap<string, JudgeGrade>,
): UnitSet {
  const pairs = new Map<string, { answer: string; rubric: string | null; item: string; labels: string[] }>();
  for (const h of humans) {
    const key = JSON.stringify([h.answer, h.item]);
    const p = pairs.get(key);
    if (p) p.labels.push(h.label);
    else pairs.set(key, { answer: h.answer, rubric: h.rubric ?? null, item: h.item, labels: [h.label] });
  }
  const dropped = Object.fromEntries(DROP_REASONS.map((r) => [r, 0])) as Record<DropReason, number>;
  const units: CompareUnit[] = [];
  const ordered = [...pairs.values()].sort((x, y) => x.answer.localeCompare(y.answer) || x.item.localeCompare(y.item));
  for (const p of ordered) {
    const human = majority(p.labels);
    const a = judgeVerdict('a', gradesA.get(p.answer), p.item);
    const b = judgeVerdict('b', gradesB.get(p.answer), p.item);
    const reason = human === 'tie' ? 'humanTie' : human === 'invalid' ? 'humanNotAVerdict' : isReason(a) ? a : isReason(b) ? b : null;
    if (reason !== null) dropped[reason]++;
    else units.push({ answer: p.answer, rubric: p.rubric, item: p.item, a: a as ItemVerdict, b: b as ItemVerdict, human: human as ItemVerdict });
  }
  return { units, labelled: pairs.size, dropped };
}
