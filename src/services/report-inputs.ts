/**
 * The tables reports read (the data), and the subsets a report can name: the inputs a cached report is
 * filed under (report-cache.ts), each with its data version (data-versions.ts). The operational tables (API
 * keys, rate limits, usage ledger, workers, provider batches, the judge cache, grading runs) are left
 * out: no report reads them, and they are written all the time.
 */
export const GRADED_TABLES = ['rubrics', 'rubric_versions', 'puzzles', 'runs', 'answers', 'judges', 'grades', 'assembly_scores'] as const;
export const REPORT_TABLES = [...GRADED_TABLES, 'rubric_items', 'labels', 'campaigns', 'campaign_answers', 'campaign_assignments', 'adjudications'] as const;
export type ReportTable = (typeof REPORT_TABLES)[number];
/** Calibration: labels, grades and their judges, adjudications (humans=adjudicated), campaigns; no puzzles or scores. */
export const CALIBRATION_TABLES = ['runs', 'answers', 'judges', 'grades', 'labels', 'campaigns', 'campaign_answers', 'campaign_assignments', 'adjudications'] as const satisfies readonly ReportTable[];
