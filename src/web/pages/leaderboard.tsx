import type { Context } from 'hono';
import type { Database } from '../../db/client.ts';
import { leaderboard, type Leaderboard, type LeaderboardRow } from '../../services/reports.ts';
import { NO_PUZZLE } from '../../services/report-stats.ts';
import { NO_MODEL } from '../../domain/answers.ts';
import { listRuns } from '../../services/runs.ts';
import { reportModels } from '../../services/report-models.ts';
import type { DotPoint } from '../charts.ts';
import { BASELINE_COLOUR, colourScale, modelColours, type ColourMap } from '../model-colours.ts';
import { isSmallN, SmallNNote, ciOrSmallN } from '../small-n.tsx';
import { JudgeNote } from '../judge-note.tsx';
import { Figure } from '../layout.tsx';
import type { PageSpec } from '../respond.tsx';
import { DataTable, type Table } from '../table.tsx';
import { charts, type DotChartInput } from './report-charts.ts';
import { cachedPage, oneOf, param } from './report-page.ts';
import { PolicyNote } from '../policy-note.tsx';
import { REPORT_UNVERIFIABLE_DEFAULT, UNVERIFIABLE_POLICIES } from '../../services/report-policy.ts';
import { declareQuery } from '../page-query.ts';

/** Runs and the leaderboard: per model × size bucket, with a dot-and-interval chart of each metric by size. */

/** Each metric with the count column its n is read from (small-n cells). */
const METRICS = [
  { key: 'f1', n: 'descriptions', label: 'Description F1', help: 'mean F1 of the graded descriptions (2·completeness·correctness / (completeness + correctness))' },
  { key: 'neighbour', n: 'assemblies', label: 'Neighbour', help: 'share of truly adjacent pairs placed side by side in the same order' },
  { key: 'direct', n: 'assemblies', label: 'Direct', help: 'share of pieces in their true cell' },
  { key: 'proximity', n: 'assemblies', label: 'Proximity', help: '1 = perfect, 0 = random arrangement, below 0 = worse than random' },
] as const;

const BASELINE_SERIES = 'random arrangement';

type Runs = Awaited<ReturnType<typeof listRuns>>;

/** The page's query parameters (page-query.ts: any other name is refused). */
export const LEADERBOARD_QUERY = declareQuery(['judge', 'unverifiable'], { downloads: true });

export async function leaderboardPage(_c: Context, q: URLSearchParams, database: Database): Promise<PageSpec> {
  const judge = param(q, 'judge');
  const unverifiable = oneOf(q, 'unverifiable', UNVERIFIABLE_POLICIES, REPORT_UNVERIFIABLE_DEFAULT);
  const load = async () => {
    const [lb, runs, models] = await Promise.all([leaderboard(database, { ...(judge ? { judge } : {}), unverifiable }, { seed: 1 }), allRuns(database), reportModels(database)]);
    return { lb, runs, models };
  };
  return cachedPage(database, 'leaderboard', q, load, ({ lb, runs, models }) => view(q, lb, runs, modelColours(models, { [BASELINE_SERIES]: BASELINE_COLOUR })));
}

/** A non-answer is a wrong assembly (design §2.2): in the means at 0, and said so, with how many. */
function NoAnswerNote({ rows }: { rows: readonly LeaderboardRow[] }) {
  const all = rows.filter((r) => !r.baseline && r.sizeBucket === 'all');
  const none = all.reduce((s, r) => s + r.noAnswer, 0);
  if (none === 0) return null;
  const total = all.reduce((s, r) => s + r.assemblies, 0);
  return (
    <p class="note">
      {none} of the {total} assembl{total === 1 ? 'y' : 'ies'} {none === 1 ? 'is a' : 'are'} no answer (no output): scored 0 and counted in the assembly
      means (column <em>No answer</em>).
    </p>
  );
}

/** A failed model call is no answer to score (a failure is a status, never a score of 0): out of the means, and said so, with how many. */
function ErrorsNote({ rows }: { rows: readonly LeaderboardRow[] }) {
  const n = rows.filter((r) => !r.baseline && r.sizeBucket === 'all').reduce((s, r) => s + r.errors, 0);
  if (n === 0) return null;
  return (
    <p class="note">
      {n === 1 ? '1 answer whose model call failed (status error) is' : `${n} answers whose model call failed (status error) are`} left out of the means: a grade or
      score stored for one is not read (column <em>Errors</em>).
    </p>
  );
}

/** Every run, page by page (the table and its download hold all of them, not the first page). */
async function allRuns(database: Database): Promise<Runs> {
  const first = await listRuns(database, { limit: 500 });
  const runs = [...first.runs];
  while (runs.length < first.total) {
    const next = await listRuns(database, { limit: 500, offset: runs.length });
    if (next.runs.length === 0) break;
    runs.push(...next.runs);
  }
  return { ...first, runs };
}

function view(q: URLSearchParams, lb: Leaderboard, runs: Runs, colours: ColourMap): PageSpec {
  const runsTable: Table = {
    id: 'runs',
    caption: `Runs (${runs.total})`,
    columns: [
      { key: 'name', label: 'Run', href: (r) => `/answers?run=${encodeURIComponent(String(r.name))}` },
      { key: 'model', label: 'Model', render: (r) => (r.model === NO_MODEL ? <em>none named (ad hoc)</em> : String(r.model)) },
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
      ...METRICS.slice(0, 1).map((m) => ({ key: m.key, label: m.label, kind: 'ci' as const, help: m.help, render: ciOrSmallN(m.key, m.n) })),
      {
        key: 'sameFamilyAsJudge',
        label: 'Judge family',
        help: `the judge (${lb.judge ?? 'none'}, family ${lb.judgeFamily ?? '—'}) and this model are of one family (judges/families.yaml): the F1 may carry self-preference`,
        render: (r) => (r.sameFamilyAsJudge ? <strong class="flag">same as judge ({lb.judgeFamily})</strong> : ''),
      },
      { key: 'assemblies', label: 'Assemblies', kind: 'int' },
      { key: 'noAnswer', label: 'No answer', kind: 'int', help: 'of the assemblies, answers with no output (no_answer): each scored 0 and counted in the means' },
      { key: 'errors', label: 'Errors', kind: 'int', help: 'answers whose model call failed (status error): in no mean, neither descriptions nor assemblies' },
      ...METRICS.slice(1).map((m) => ({ key: m.key, label: m.label, kind: 'ci' as const, help: m.help, render: ciOrSmallN(m.key, (r) => (r.baseline ? null : r[m.n])) })),
    ],
    rows: lb.rows,
    empty: 'Nothing graded or scored yet.',
  };
  const buckets = [...new Set(lb.rows.map((r) => r.sizeBucket))];
  const hasNoPuzzle = buckets.includes(NO_PUZZLE);
  return {
    title: 'Runs and leaderboard',
    tables: [board, runsTable],
    body: async () => {
      const inputs = METRICS.map((m) => metricChart(lb.rows, m, buckets, colours));
      const drawn = await charts('dotCharts', inputs.filter((x) => x !== null));
      const svgs = inputs.map((x) => (x === null ? null : drawn.shift()!));
      return (
        <>
          <p class="lede">
            Means with 95% bootstrap intervals over answers (seed 1). The <em>random arrangement</em> row is what a uniformly random placement of
            the same puzzles scores in expectation; “all” pools every size{hasNoPuzzle ? <>, and <em>{NO_PUZZLE}</em> holds descriptions of pictures not cut into a puzzle (no size to bucket)</> : null}.
          </p>
          <SmallNNote />
          {lb.unattributed > 0 ? (
            <p class="note">
              {lb.unattributed} ad hoc answer{lb.unattributed === 1 ? '' : 's'} name no model and {lb.unattributed === 1 ? 'is' : 'are'} not ranked: grade answer text with{' '}
              <code>assay grade --model M</code> (or <code>model</code> in <code>POST /api/grades</code>) to rank it.
            </p>
          ) : null}
          <NoAnswerNote rows={lb.rows} />
          <ErrorsNote rows={lb.rows} />
          <JudgeNote judge={lb.judge} baseline={lb.judgeBaseline} />
          <PolicyNote unverifiable={lb.unverifiable} unverifiableNote={lb.unverifiableNote} />
          <DataTable table={board} search={q} />
          <h2>By puzzle size</h2>
          <div class="charts">
            {svgs.map((ch, i) =>
              ch ? (
                <Figure caption={`${METRICS[i]!.label} by size bucket: a dot per model (its colour is the same on every chart), bars are 95% intervals; hollow dots rest on fewer than 5 answers.`} svg={ch} />
              ) : (
                <p class="empty">{`${METRICS[i]!.label}: no data yet.`}</p>
              ),
            )}
          </div>
          <DataTable table={runsTable} search={q} />
        </>
      );
    },
  };
}

function metricChart(rows: readonly LeaderboardRow[], m: (typeof METRICS)[number], buckets: string[], colours: ColourMap): DotChartInput | null {
  const points: DotPoint[] = [];
  for (const r of rows) {
    const rec = r as unknown as Record<string, number | null>;
    const y = rec[m.key];
    if (y === null || y === undefined) continue;
    points.push({ series: r.baseline ? BASELINE_SERIES : r.model, x: r.sizeBucket, y, low: rec[`${m.key}Low`], high: rec[`${m.key}High`], small: !r.baseline && isSmallN(rec[m.n]) });
  }
  if (points.length === 0) return null;
  const xOrder = buckets.filter((b) => points.some((p) => p.x === b));
  return {
    points,
    o: { xTitle: 'size bucket', yTitle: m.label, xOrder, colours: colourScale(colours, points.map((p) => p.series)), ...(m.key === 'proximity' ? {} : { yDomain: [0, 1] as [number, number] }) },
  };
}
