import type { Web } from '../index.tsx';
import { benchmarksPage } from './benchmarks.tsx';
import { calibrationPage } from './calibration.tsx';
import { dtsPage } from './dts.tsx';
import { judgeComparePage } from './judge-compare.tsx';
import { leaderboardPage } from './leaderboard.tsx';
import { reportPage } from './report-page.ts';

export function registerReportPages(web: Web): void {
  const db = web.api.deps.database;
  reportPage(web, '/', (c, q) => leaderboardPage(c, q, db));
  reportPage(web, '/calibration', (_c, q) => calibrationPage(q, db));
  reportPage(web, '/describe-then-solve', (_c, q) => dtsPage(q, db));
  reportPage(web, '/benchmarks', (_c, q) => benchmarksPage(q, db));
  reportPage(web, '/judges/compare', (_c, q) => judgeComparePage(q, db));
}
