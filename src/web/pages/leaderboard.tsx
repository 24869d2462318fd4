import type { Context } from 'hono';
import type { Database } from '../../db/client.ts';
import { leaderboard, type Leaderboard, type LeaderboardRow } from '../../services/reports.ts';
import { listRuns } from '../../services/runs.ts';
import type { LinePoint } from '../charts.ts';
import { JudgeNote } from '../judge-note.tsx';
import { Figure } from '../layout.tsx';
import type { PageSpec } from '../respond.tsx';
import { DataTable, type Table } from '../table.tsx';
import { charts, type LineChartInput } from './report-charts.ts';
import { cachedPage, param } from './report-page.ts';

/** Runs and the leaderboard: per model × size bucket, with line charts of each metric by size. */

const METRICS = [
  { key: 'f1', label: 'Description F1', help: 'mean F1 of the graded descriptions (2·completeness·correctness / (completeness + correctness))' },
  { key: 'neighbour', label: 'Neighbour', help: 'share of truly adjacent pairs placed side by side in the same order' },
  { key: 'direct', label: 'Direct', help: 'share of pieces in their true cell' },
  { key: 'proximity', label: 'Proximity', help: '1 = perfect, 0 = random arrangement, below 0 = worse than random' },
] as const;

type Runs = Awaited<ReturnType<typeof listRuns>>;

export async function leaderboardPage(_c: Context, q: URLSearchParams, database: Database): Promise<PageSpec> {
  const judge = param(q, 'judge');
  const load = async () => {
    const [lb, runs] = await Promise.all([leaderboard(database, judge ? { judge } : {}, { seed: 1 }), listRuns(database, { limit: 500 })]);
    return { lb, runs };
  };
  return cachedPage(database, 'leaderboard', q, load, ({ lb, runs }) => view(q, lb, runs));
}

function view(q: URLSearchParams, lb: Leaderboard, runs: Runs): PageSpec {
  const runsTable: Table = {
    id: 'runs',
    caption: `Runs (${runs.total})`,
    columns: [
      { key: 'name', label: 'Run', href: (r) => `/answers?run=${encodeURIComponent(String(r.name))}` },
      { key: 'model', label: 'Model' },
      { key: 'effort', label: 'Effort' },
      { key: 'tags', label: 'Condition tags', render: (r) => ((r.tags as string[]).length ? (r.tags as string[]).join(', ') : 'plain') },
      { key: 'answers', label: 'Answers', kind: 'int' },
    ],
    rows: runs.runs.map((r) => ({ name: r.name, model: r.model, effort: r.effort, tags: r.tags, answers: r.answers })),
    empty: 'No runs yet: import answers with bin/assay import answers FILE.jsonl.',
  };
  const board: Table = {
    id: 'leaderboard',
    caption: `Leaderboard per model and size bucket${lb.judge ? ` (descriptions graded by ${lb.judge}${lb.judgeBaseline ? ', the lexical baseline' : ''})` : ' (no graded descriptions yet)'}`,
    columns: [
      { key: 'model', label: 'Model', render: (r) => (r.baseline ? <em>random arrangement</em> : String(r.model)) },
      { key: 'sizeBucket', label: 'Size' },
      { key: 'descriptions', label: 'Descriptions', kind: 'int' },
      ...METRICS.slice(0, 1).map((m) => ({ key: m.key, label: m.label, kind: 'ci' as const, help: m.help })),
      {
        key: 'sameFamilyAsJudge',
        label: 'Judge family',
        help: `the judge (${lb.judge ?? 'none'}, family ${lb.judgeFamily ?? '—'}) and this model are of one family (judges/families.yaml): the F1 may carry self-preference`,
        render: (r) => (r.sameFamilyAsJudge ? <strong class="flag">same as judge ({lb.judgeFamily})</strong> : ''),
      },
      { key: 'assemblies', label: 'Assemblies', kind: 'int' },
      ...METRICS.slice(1).map((m) => ({ key: m.key, label: m.label, kind: 'ci' as const, help: m.help })),
    ],
    rows: lb.rows,
    empty: 'Nothing graded or scored yet.',
  };
  const buckets = [...new Set(lb.rows.map((r) => r.sizeBucket))];
  return {
    title: 'Runs and leaderboard',
    tables: [board, runsTable],
    body: async () => {
      const inputs = METRICS.map((m) => metricChart(lb.rows, m.key, m.label, buckets));
      const drawn = await charts('lineCharts', inputs.filter((x) => x !== null));
      const svgs = inputs.map((x) => (x === null ? null : drawn.shift()!));
      return (
        <>
          <p class="lede">
            Means with 95% bootstrap intervals over answers (seed 1). The <em>random arrangement</em> row is what a uniformly random placement of
            the same puzzles scores in expectation; “all” pools every size.
          </p>
          <JudgeNote judge={lb.judge} baseline={lb.judgeBaseline} />
          <DataTable table={board} search={q} />
          <h2>By puzzle size</h2>
          <div class="charts">
            {svgs.map((ch, i) =>
              ch ? <Figure caption={`${METRICS[i]!.label} by size bucket, one line per model; bars are 95% intervals.`} svg={ch} /> : <p class="empty">{`${METRICS[i]!.label}: no data yet.`}</p>,
            )}
          </div>
          <DataTable table={runsTable} search={q} />
        </>
      );
    },
  };
}

function metricChart(rows: readonly LeaderboardRow[], key: string, label: string, buckets: string[]): LineChartInput | null {
  const points: LinePoint[] = [];
  for (const r of rows) {
    const y = (r as unknown as Record<string, number | null>)[key];
    if (y === null || y === undefined) continue;
    const rec = r as unknown as Record<string, number | null>;
    points.push({ series: r.baseline ? 'random arrangement' : r.model, x: r.sizeBucket, y, low: rec[`${key}Low`], high: rec[`${key}High`] });
  }
  if (points.length === 0) return null;
  return { points, o: { xTitle: 'size bucket', yTitle: label, xOrder: buckets, ...(key === 'proximity' ? {} : { yDomain: [0, 1] as [number, number] }) } };
}
