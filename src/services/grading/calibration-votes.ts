import { SCALES, type LabelScale } from '../../domain/labels.ts';
import { answerLevelUnit } from '../campaigns/calibration-humans.ts';

/** How calibrationLabelSet (calibration-labels.ts) keeps one stored label per person and unit. */

/** A stored label as the calibration's one query reads it. */
export type StoredLabel = [answer: string, answerId: number, stored: string, rater: string, kind: string, label: string, model: string, campaignId: number | null, versionId: number | null, at: number, id: number];

/**
 * One label per person and unit: an annotator may have labelled a unit in several campaigns and on the
 * plain pages. In one campaign its own label stands over a plain one; over every label the newest stands.
 * Those set aside with another label than the one standing are counted (superseded), never dropped unsaid.
 * `unitOf` names the unit a label counts for (voteUnit).
 */
export function onePerPerson(labels: readonly StoredLabel[], campaign: number | undefined, isUnit: (key: string) => boolean, unitOf: (l: StoredLabel) => string): { kept: StoredLabel[]; superseded: number } {
  const own = (l: StoredLabel) => (campaign !== undefined && l[7] === campaign ? 1 : 0);
  // The campaign's own first, then the newest written (created_at, then id, as grades are ordered).
  const before = (a: StoredLabel, b: StoredLabel) => own(a) - own(b) || a[9] - b[9] || a[10] - b[10];
  const by = new Map<string, StoredLabel[]>();
  for (const l of labels) {
    const k = `${l[1]}\u0000${unitOf(l)}\u0000${l[3]}`;
    by.set(k, [...(by.get(k) ?? []), l]);
  }
  const kept: StoredLabel[] = [];
  let superseded = 0;
  for (const list of by.values()) {
    const standing = list.reduce((a, b) => (before(b, a) > 0 ? b : a));
    kept.push(standing);
    if (isUnit(standing[2])) superseded += list.filter((l) => l !== standing && l[5] !== standing[5]).length;
  }
  return { kept, superseded };
}

/**
 * The unit a stored label is a person's vote on. On the binary and numeric scales a person's whole-answer
 * labels that read on the scale are one vote, whether imported (item '') or given in the workspace or a
 * campaign (answer:binary, answer:numeric): their newest stands, as describe-then-solve counts the
 * pass/fail (report-tasks.ts binaryMajority). Before, the two keys were two votes of one person. A label
 * the scale does not read (a rating in a binary report) stays under its own key, for rowsOnScale to set
 * aside and count; item labels and reads without a scale are by key, as before.
 */
export function voteUnit(scale: LabelScale | undefined, key: string, label: string): string {
  if (scale === undefined || scale === 'verdict' || answerLevelUnit(scale, key) !== '' || SCALES[scale].normalise(label) === null) return key;
  return `\u0000whole answer`;
}
