/** Who gave a stored label (`labels.kind`): a person, or a judge whose verdicts were stored as labels. */
export const LABEL_KINDS = ['human', 'judge'] as const;
export type LabelKind = (typeof LABEL_KINDS)[number];
