/** Annotation campaigns (issue 14): one verb per file, each owning its transaction. */
export { createCampaign, parseCampaignSpec, type CreatedCampaign } from './create.ts';
export { getCampaign, listCampaigns, type Campaign, type CampaignSummary } from './load.ts';
export { nextForAnnotator, campaignWorkspace, type NextAnswer } from './next.ts';
export { saveCampaignLabels } from './save-labels.ts';
export { campaignProgress, type CampaignProgress, type AnswerProgress } from './progress.ts';
export { campaignDisagreements, type Disagreement } from './disagreements.ts';
export { adjudicate, type AdjudicationInput } from './adjudicate.ts';
export { exportCampaign, EXPORT_COLUMNS, type ExportRow } from './export.ts';
export { campaignAgreement, type ScaleAgreement } from './agreement.ts';
export type { Adjudication, CampaignLabel } from './campaign-labels.ts';
