import type { Web } from '../index.tsx';
import { BENCHMARKS_QUERY, benchmarksPage } from './benchmarks.tsx';
import { CALIBRATION_QUERY, calibrationPage } from './calibration.tsx';
import { DTS_QUERY, dtsPage } from './dts.tsx';
import { JUDGE_COMPARE_QUERY, judgeComparePage } from './judge-compare.tsx';
import { LEADERBOARD_QUERY, leaderboardPage } from './leaderboard.tsx';
import { reportPage } from './report-page.ts';

export function registerReportPages(web: Web): void {
  const db = web.api.deps.database;
  reportPage(web, '/', LEADERBOARD_QUERY, (c, q) => leaderboardPage(c, q, db));
  reportPage(web, '/calibration', CALIBRATION_QUERY, (_c, q) => calibrationPage(q, db));
  reportPage(web, '/describe-then-solve', DTS_QUERY, (_c, q) => dtsPage(q, db));
  reportPage(web, '/benchmarks', BENCHMARKS_QUERY, (_c, q) => benchmarksPage(q, db));
  reportPage(web, '/judges/compare', JUDGE_COMPARE_QUERY, (_c, q) => judgeComparePage(q, db));
}
