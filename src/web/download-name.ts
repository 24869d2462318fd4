/**
 * The file name of a table download: the page, the table (when it is not the page's own name), then
 * the filters of the query, so two downloads of one page under different filters never overwrite each
 * other, and a file says what it holds: `calibration_judges_scale-binary.csv`,
 * `describe-then-solve_metric-direct_threshold-0.6.json`. `table`, `format` and `offset` are not
 * filters (a download holds the whole table, whatever page of it the screen shows). Only letters,
 * digits, `.` and `-` survive, so the name is safe in a quoted Content-Disposition filename.
 */
const NOT_FILTERS = new Set(['table', 'format', 'offset']);
const safe = (s: string) => s.replace(/[^A-Za-z0-9.-]+/g, '-').replace(/^-+|-+$/g, '');

export function downloadName(path: string, query: URLSearchParams, table: string, format: 'csv' | 'json' | 'latex'): string {
  const page = path === '/' ? 'leaderboard' : safe(path.replace(/^\/+/, '').replace(/\//g, '-')) || 'page';
  const filters = [...query.entries()].filter(([k, v]) => !NOT_FILTERS.has(k) && v.trim() !== '').map(([k, v]) => safe(`${k}-${v.trim()}`));
  const parts = [page, ...(safe(table) === page ? [] : [safe(table)]), ...filters].filter((p) => p !== '');
  return `${parts.join('_').slice(0, 150)}.${format === 'latex' ? 'tex' : format}`;
}
