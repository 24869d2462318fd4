/**
 * Reports over stored data (the API's /api/reports/*, the pages, the CLI): each computed in memory
 * from two row queries with the pure stats and analysis code. See report-*.ts.
 */
export { leaderboard, buildLeaderboard, RANDOM_BASELINE, type Leaderboard, type LeaderboardRow } from './report-leaderboard.ts';
export {
  orientationTable,
  ablationTable,
  effortTable,
  buildOrientation,
  buildAblation,
  buildEffort,
  type OrientationRow,
  type AblationRow,
  type EffortRow,
} from './report-tables.ts';
export { calibrationReport, calibrationRows, describeThenSolveReport, flattenDts, DTS_DEFAULT_THRESHOLD, DTS_METRICS, type DtsMetric, type DtsResult, type JudgeNotes } from './report-analysis.ts';
export { LEXICAL_BASELINE_NOTE } from './report-data.ts';
export type { ReportFilters, JudgeInfo } from './report-data.ts';
export type { ReportOptions } from './report-stats.ts';
