import type { LabelScale } from '../domain/labels.ts';

/**
 * The stored calibration report's notes, word for word: the report thread (report-tasks.ts) writes them
 * for the page and GET API, and `assay calibrate --run` (grading/calibration-labels.ts) for the CLI, and a
 * user comparing the two surfaces must read the same sentence.
 */
export const noJudgeSideNote = (judge: string, scale: LabelScale): string => `judge '${judge}' has no grade of the labelled answers on the ${scale} scale: only the human ceiling is reported`;

/** The set-aside count in words; nothing when none was set aside. */
export const setAsideNote = (n: number, scale: LabelScale): string[] => (n ? [`${n} label(s) of another scale than ${scale}, or claim marks, set aside`] : []);
