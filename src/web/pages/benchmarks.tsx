import type { Database } from '../../db/client.ts';
import { notFound } from '../../domain/errors.ts';
import { ablationTable, effortTable, orientationTable } from '../../services/reports.ts';
import { runTags } from '../../services/runs.ts';
import { JudgeNote } from '../judge-note.tsx';
import type { PageSpec } from '../respond.tsx';
import { DataTable, type Table } from '../table.tsx';
import { cachedPage, oneOf, param } from './report-page.ts';
import { PolicyNote } from '../policy-note.tsx';
import { REPORT_UNVERIFIABLE_DEFAULT, UNVERIFIABLE_POLICIES } from '../../services/report-policy.ts';
import { declareQuery } from '../page-query.ts';
import { ciOrSmallN, SmallNNote } from '../small-n.tsx';

/** Benchmark tables: orientation, condition ablation (plain vs tagged), reasoning effort. */

const frac = (k: string, n: string) => (r: Record<string, unknown>) => `${String(r[k] ?? 0)} / ${String(r[n] ?? 0)}`;

/** The page's query parameters (page-query.ts: any other name is refused). */
export const BENCHMARKS_QUERY = declareQuery(['tag', 'unverifiable'], { downloads: true });

export async function benchmarksPage(q: URLSearchParams, database: Database): Promise<PageSpec> {
  const asked = param(q, 'tag');
  if (asked !== undefined) {
    // A tag no run carries would compare nothing with plain and look like an empty result.
    const tags = await runTags(database);
    if (!tags.includes(asked)) throw notFound(`tag: no run has the condition tag '${asked.slice(0, 40)}' (tags: ${tags.join(', ') || 'none'})`);
  }
  const tag = asked ?? 'tagged';
  const unverifiable = oneOf(q, 'unverifiable', UNVERIFIABLE_POLICIES, REPORT_UNVERIFIABLE_DEFAULT);
  const load = () => Promise.all([orientationTable(database), ablationTable(database, { tag, unverifiable }, { seed: 1 }), effortTable(database, { unverifiable }, { seed: 1 })]);
  return cachedPage(database, 'benchmarks', q, load, (tables) => view(q, tag, tables));
}

type Tables = [Awaited<ReturnType<typeof orientationTable>>, Awaited<ReturnType<typeof ablationTable>>, Awaited<ReturnType<typeof effortTable>>];

function view(q: URLSearchParams, tag: string, [o, a, e]: Tables): PageSpec {
  const orientation: Table = {
    id: 'orientation',
    caption: 'Orientation: is the stated landscape / portrait orientation correct?',
    columns: [
      { key: 'model', label: 'Model' },
      { key: 'landscapeCorrect', label: 'Landscape correct', render: frac('landscapeCorrect', 'landscapeTotal') },
      { key: 'portraitCorrect', label: 'Portrait correct', render: frac('portraitCorrect', 'portraitTotal') },
      { key: 'notStated', label: 'Not stated', kind: 'int' },
      { key: 'accuracy', label: 'Accuracy', kind: 'ci', help: '95% Wilson interval', render: ciOrSmallN('accuracy', 'total') },
    ],
    rows: o.rows,
    empty: 'No graded descriptions of puzzles with a known orientation yet.',
  };
  const ablation: Table = {
    id: 'ablation',
    caption: `Condition ablation: ${tag} vs plain`,
    columns: [
      { key: 'model', label: 'Model' },
      { key: 'condition', label: 'Condition' },
      { key: 'descriptions', label: 'Descriptions', kind: 'int' },
      { key: 'f1', label: 'F1', kind: 'ci', render: ciOrSmallN('f1', 'descriptions') },
      { key: 'pieceCountStated', label: 'Counts stated', kind: 'int' },
      { key: 'pieceCountError', label: 'Count error', kind: 'ci', help: 'mean |stated − true| / true', render: ciOrSmallN('pieceCountError', 'pieceCountStated') },
      { key: 'assemblies', label: 'Assemblies', kind: 'int' },
      { key: 'neighbour', label: 'Neighbour', kind: 'num' },
    ],
    rows: a.rows,
  };
  const effort: Table = {
    id: 'effort',
    caption: 'Reasoning effort: scores, median output tokens, missing answers',
    columns: [
      { key: 'model', label: 'Model' },
      { key: 'effort', label: 'Effort' },
      { key: 'answers', label: 'Answers', kind: 'int' },
      { key: 'missing', label: 'Missing', kind: 'int', help: 'no answer, truncated or error' },
      { key: 'f1', label: 'F1', kind: 'ci', render: ciOrSmallN('f1', 'descriptions') },
      { key: 'neighbour', label: 'Neighbour', kind: 'ci', render: ciOrSmallN('neighbour', 'assemblies') },
      { key: 'medianOutputTokens', label: 'Median output tokens', kind: 'int' },
    ],
    rows: e.rows,
  };
  return {
    title: 'Benchmark tables',
    tables: [orientation, ablation, effort],
    body: () => (
      <>
        <p class="lede">Intervals are 95%.</p>
        <SmallNNote />
        <JudgeNote judge={o.judge} baseline={o.judgeBaseline} />
        <DataTable table={orientation} search={q} />
        <form method="get" class="filters">
          <label for="tag">Condition tag</label>
          <input id="tag" name="tag" value={tag} />
          {param(q, 'unverifiable') ? <input type="hidden" name="unverifiable" value={a.unverifiable} /> : null}
          <button type="submit">Compare</button>
        </form>
        {/* Ablation and effort read the same judge's grades under one policy: one note for both F1 columns. */}
        <PolicyNote unverifiable={a.unverifiable} unverifiableNote={a.unverifiableNote} />
        <DataTable table={ablation} search={q} />
        <DataTable table={effort} search={q} />
      </>
    ),
  };
}
