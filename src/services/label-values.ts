import { ANSWER_SCALE_KEYS } from '../domain/campaigns.ts';
import { badInput } from '../domain/errors.ts';
import { SCALES } from '../domain/labels.ts';
import { CLAIM_VERDICTS } from '../domain/verdicts.ts';
import { claimIndex } from './claim-marks.ts';

/**
 * The value one saved label (POST /api/annotations, saveLabel) stores, checked against its unit's scale:
 * a rubric item a verdict, `claim:<n>` a claim verdict, `answer:binary` pass/fail, `answer:numeric` a
 * number, the whole answer ('') pass/fail or a number (its scale is chosen when calibrating). A label no
 * scale reads would be stored with a 200 and then set aside by every report, so it is refused instead.
 * Stored in the form the workspace and campaigns store (verdicts lower case, pass/fail as true|false).
 */
export function storedLabelValue(where: string, item: string, label: string): string {
  const given = label.trim();
  const refuse = (problem: string) => badInput(`${where}: ${problem}; nothing saved`);
  if (claimIndex(item) !== null) {
    const v = given.toLowerCase();
    if (!(CLAIM_VERDICTS as readonly string[]).includes(v)) throw refuse(`claim ${claimIndex(item)}: label must be one of ${CLAIM_VERDICTS.join('|')}, got '${label}'`);
    return v;
  }
  if (item === ANSWER_SCALE_KEYS.binary) {
    const n = SCALES.binary.normalise(given);
    if (!n) throw refuse(`${item}: ${JSON.stringify(label)} is not ${SCALES.binary.accepts}`);
    return String(n.category);
  }
  if (item === ANSWER_SCALE_KEYS.numeric) {
    if (!SCALES.numeric.normalise(given)) throw refuse(`${item}: ${JSON.stringify(label)} is not ${SCALES.numeric.accepts}`);
    return given;
  }
  if (item === '') {
    if (!SCALES.binary.normalise(given) && !SCALES.numeric.normalise(given)) {
      throw refuse(`whole-answer label: ${JSON.stringify(label)} is neither pass/fail (${SCALES.binary.accepts}) nor a number`);
    }
    return given;
  }
  const n = SCALES.verdict.normalise(given);
  if (!n) throw refuse(`item '${item}': label must be one of ${SCALES.verdict.accepts}, got '${label}'`);
  return String(n.category);
}

/**
 * Only a description is annotated (describe, or the description half of describe-then-solve): an
 * assembly or a choice answer can carry its puzzle's rubric, but the workspace never opens it and no
 * report reads a human label of it, so such a label is refused (annotationTask's rule) instead of stored.
 */
export function refuseUndescribed(a: { id: number; task: string }): void {
  if (!describes(a.task)) throw badInput(`answer ${a.id}: task '${a.task}' has no description to annotate`);
}

/** Whether an answer of this task has a description to label (refuseUndescribed's rule; a label file's rows are refused by it too). */
export const describes = (task: string): boolean => task === 'describe' || task === 'describe-then-solve';
