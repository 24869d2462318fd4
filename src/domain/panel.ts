/**
 * Panel judges (design §2.5): the vocabulary shared by the panel file schema (src/judges) and the pure
 * vote (src/scoring/panel), so neither defines it for the other.
 */
export const PANEL_VOTES = ['majority', 'mean'] as const;
export type PanelVote = (typeof PANEL_VOTES)[number];

/** The status of a panel grade with fewer ok samples than its quorum (its scores are null). */
export const NO_QUORUM_STATUS = 'no_quorum';

/** Default quorum: more than half of the panel's samples (members × samples per member). */
export const defaultQuorum = (totalSamples: number): number => Math.floor(totalSamples / 2) + 1;

/** How a sample is named in reports and in pairwise figures: `<judge>#<sample>`, samples counted from 1. */
export const sampleLabel = (judge: string, sample: number): string => `${judge}#${sample}`;
