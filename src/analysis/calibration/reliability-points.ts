import { SCALES } from '../../domain/labels.ts';
import type { ItemVerdict } from '../../domain/verdicts.ts';

/**
 * The points of a reliability diagram (reliability.ts) from a judge's graded items and the human labels:
 * one point per (answer, rubric item) the judge gave a verdict with a confidence and humans labelled with
 * a majority. `agrees` = the judge's verdict equals the human majority verdict. The majority is the
 * verdict most annotators of the item gave; a tie for the top has no majority and the item is left out
 * (counted), as calibration leaves tied units out rather than breaking them arbitrarily.
 */

/** One ok grade of the judge: its items as stored (GradeItem with the confidence fields). */
export interface ConfidentGrade {
  answer: string;
  items: ReadonlyArray<{ id: string; verdict: string; confidence?: number | null; confidenceSource?: string | null }>;
}

export interface HumanVerdictLabel {
  answer: string;
  item: string;
  label: string;
}

export interface ReliabilityPointRow {
  answer: string;
  item: string;
  verdict: string;
  majority: ItemVerdict;
  confidence: number;
  confidenceSource: string | null;
  agrees: boolean;
}

/** Why a graded item is not a point; each counts once, under the first reason that applies. */
export interface ReliabilityLeftOut {
  /** The item's verdict has no confidence (a lexical or Anthropic judge, a reply without log-probabilities). */
  noConfidence: number;
  /** No human labelled the item of that answer. */
  noHumanLabel: number;
  /** The human labels of the item tie for the top (no majority). */
  humanTie: number;
  /** Some human label of the item is not a verdict (correct|partial|incorrect|missing). */
  humanNotAVerdict: number;
}

function verdictOf(label: string): ItemVerdict | null {
  const n = SCALES.verdict.normalise(label);
  return n ? (n.category as ItemVerdict) : null;
}

/** The verdict most labels give, 'tie' when two share the top count, 'invalid' when a label is not a verdict. */
export function humanMajority(labels: readonly string[]): ItemVerdict | 'tie' | 'invalid' {
  const counts = new Map<ItemVerdict, number>();
  for (const l of labels) {
    const v = verdictOf(l);
    if (v === null) return 'invalid';
    counts.set(v, (counts.get(v) ?? 0) + 1);
  }
  const ranked = [...counts.entries()].sort((x, y) => y[1] - x[1]);
  if (ranked.length === 0) return 'invalid';
  if (ranked.length > 1 && ranked[0]![1] === ranked[1]![1]) return 'tie';
  return ranked[0]![0];
}

/** Points in grade order, then item order; the left-out counts say what did not become one. */
export function reliabilityPoints(grades: readonly ConfidentGrade[], humans: readonly HumanVerdictLabel[]): { points: ReliabilityPointRow[]; leftOut: ReliabilityLeftOut } {
  const labels = new Map<string, string[]>();
  for (const h of humans) {
    const key = JSON.stringify([h.answer, h.item]);
    const list = labels.get(key);
    if (list) list.push(h.label);
    else labels.set(key, [h.label]);
  }
  const leftOut: ReliabilityLeftOut = { noConfidence: 0, noHumanLabel: 0, humanTie: 0, humanNotAVerdict: 0 };
  const points: ReliabilityPointRow[] = [];
  for (const g of grades) {
    for (const it of g.items) {
      if (typeof it.confidence !== 'number') {
        leftOut.noConfidence++;
        continue;
      }
      const l = labels.get(JSON.stringify([g.answer, it.id]));
      if (!l) {
        leftOut.noHumanLabel++;
        continue;
      }
      const majority = humanMajority(l);
      if (majority === 'tie') leftOut.humanTie++;
      else if (majority === 'invalid') leftOut.humanNotAVerdict++;
      else points.push({ answer: g.answer, item: it.id, verdict: it.verdict, majority, confidence: it.confidence, confidenceSource: it.confidenceSource ?? null, agrees: verdictOf(it.verdict) === majority });
    }
  }
  return { points, leftOut };
}
