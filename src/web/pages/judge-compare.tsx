import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Database } from '../../db/client.ts';
import { isAssayError, type ErrorCode } from '../../domain/errors.ts';
import { judgeCompare, type JudgeCompareReport } from '../../services/judge-compare.ts';
import type { PageSpec } from '../respond.tsx';
import { DataTable, type Table } from '../table.tsx';
import { cachedPage, param } from './report-page.ts';
import { declareQuery } from '../page-query.ts';

/**
 * /judges/compare?run=R&a=A&b=B: the figures of `assay judge compare` (stored grades, same human labels).
 * It grades nothing (`assay judge compare --grade` or POST /api/runs/{id}/grade do); it says how many of
 * the run's answers each judge has not graded, which the comparison leaves out.
 */

type Loaded = { report: JudgeCompareReport } | { problem: string; status: ContentfulStatusCode };

/** Refusals the page explains in place (the rest are failures and propagate). */
const STATUS: Partial<Record<ErrorCode, ContentfulStatusCode>> = { bad_input: 400, not_found: 404 };

async function load(database: Database, run: string, a: string, b: string): Promise<Loaded> {
  try {
    return { report: await judgeCompare(database, { run, a, b }) };
  } catch (e) {
    const status = isAssayError(e) ? STATUS[e.code] : undefined;
    if (status === undefined) throw e;
    return { problem: (e as Error).message, status };
  }
}

/** The page's query parameters (page-query.ts: any other name is refused). */
export const JUDGE_COMPARE_QUERY = declareQuery(['run', 'a', 'b'], { downloads: true });

export async function judgeComparePage(q: URLSearchParams, database: Database): Promise<PageSpec> {
  const [run, a, b] = [param(q, 'run'), param(q, 'a'), param(q, 'b')];
  if (!run || !a || !b) return view(q, { problem: 'Name a run and two judges (run, a, b) to compare.', status: 200 }, run, a, b);
  return cachedPage(database, 'judge-compare', q, () => load(database, run, a, b), (data) => view(q, data, run, a, b));
}

const fmt = (x: number | null | undefined) => (x === null || x === undefined ? '—' : x.toFixed(3));
const ci = (c: [number, number] | null) => (c ? `[${fmt(c[0])}, ${fmt(c[1])}]` : '—');

function tables(r: JudgeCompareReport): Table[] {
  const kappas: Table = {
    id: 'kappas',
    caption: 'Each judge against the human labels (95% intervals)',
    columns: [
      { key: 'role', label: 'Role' },
      { key: 'judge', label: 'Judge' },
      { key: 'agreement', label: 'Agreement', kind: 'num' },
      { key: 'kappa', label: 'Kappa', kind: 'ci', help: "Cohen's kappa over the four verdicts" },
      { key: 'weightedKappa', label: 'Weighted kappa', kind: 'ci', help: 'linear weights over the verdict points 0, 0.5, 1' },
    ],
    rows: (['a', 'b'] as const).map((side) => {
      const j = r[side];
      return {
        role: side.toUpperCase(),
        judge: j.judge,
        agreement: j.agreement,
        kappa: j.kappa.kappa,
        kappaLow: j.kappa.ci?.[0] ?? null,
        kappaHigh: j.kappa.ci?.[1] ?? null,
        weightedKappa: j.weightedKappa.kappa,
        weightedKappaLow: j.weightedKappa.ci?.[0] ?? null,
        weightedKappaHigh: j.weightedKappa.ci?.[1] ?? null,
      };
    }),
  };
  const difference: Table = {
    id: 'difference',
    caption: `B − A with a paired bootstrap interval (answers resampled; seed ${r.bootstrap.seed}, ${r.bootstrap.resamples} resamples)`,
    columns: [
      { key: 'figure', label: 'Figure' },
      { key: 'estimate', label: 'B − A', kind: 'ci' },
      { key: 'resamples', label: 'Resamples used', kind: 'int' },
    ],
    rows: (['kappa', 'weightedKappa'] as const).map((k) => {
      const d = r.difference[k];
      return { figure: k === 'kappa' ? 'kappa' : 'weighted kappa', estimate: d.estimate, estimateLow: d.ci?.[0] ?? null, estimateHigh: d.ci?.[1] ?? null, resamples: d.resamples };
    }),
  };
  const flips: Table = {
    id: 'flips',
    caption: 'Verdict flips from A to B per rubric item',
    columns: [
      // Rubrics share item ids ('sky' in ~25 ImageInWords rubrics): a row is one rubric's item.
      { key: 'rubric', label: 'Rubric' },
      { key: 'item', label: 'Item' },
      { key: 'units', label: 'Units', kind: 'int' },
      { key: 'flips', label: 'Flips', kind: 'int' },
      { key: 'towardHuman', label: 'Toward human', kind: 'int', help: 'B gives the human verdict, A did not' },
      { key: 'awayFromHuman', label: 'Away from human', kind: 'int', help: 'A gave the human verdict, B does not' },
      { key: 'neither', label: 'Neither', kind: 'int' },
      { key: 'transitions', label: 'A→B', render: (row) => (row.transitions as Array<{ from: string; to: string; count: number }>).map((t) => `${t.from}→${t.to} ${t.count}`).join(', ') },
    ],
    rows: r.flips.items,
    empty: 'No units: no (answer, item) pair is labelled by a human and graded ok by both judges.',
  };
  const moves: Table = {
    id: 'f1-moves',
    caption: `Answers whose F1 moved most (${r.f1Moves.top.length} of ${r.f1Moves.graded} graded ok by both)`,
    columns: [
      { key: 'answer', label: 'Answer' },
      { key: 'f1A', label: 'F1 A', kind: 'num' },
      { key: 'f1B', label: 'F1 B', kind: 'num' },
      { key: 'delta', label: 'B − A', kind: 'num' },
      { key: 'humanLabelled', label: 'Human-labelled', render: (row) => (row.humanLabelled ? 'yes' : 'no') },
    ],
    rows: r.f1Moves.top,
    empty: 'No answer is graded ok by both judges.',
  };
  return [kappas, difference, flips, moves];
}

function view(q: URLSearchParams, data: Loaded, run?: string, a?: string, b?: string): PageSpec {
  const form = (
    <form method="get" class="filters">
      <label for="run">Run</label>
      <input id="run" name="run" value={run ?? ''} />
      <label for="a">Judge A</label>
      <input id="a" name="a" value={a ?? ''} />
      <label for="b">Judge B</label>
      <input id="b" name="b" value={b ?? ''} />
      <button type="submit">Compare</button>
    </form>
  );
  if ('problem' in data) {
    return { title: 'Compare two judges', tables: [], status: data.status, body: () => (<>{form}<p class="empty">{data.problem}</p></>) };
  }
  const r = data.report;
  const ts = tables(r);
  return {
    title: `Compare judges: ${r.judgeA} → ${r.judgeB}`,
    tables: ts,
    body: () => (
      <>
        {form}
        <p class="lede">
          Run {r.run}: {r.units} units (answer × item labelled by a human and graded ok by both) over {r.answers} answers; {r.dropped.total} of{' '}
          {r.humanLabelledPairs} human-labelled pairs dropped. Flips: {r.flips.flips} ({r.flips.towardHuman} toward the human label, {r.flips.awayFromHuman} away).
          Kappa B − A: {fmt(r.difference.kappa.estimate)} {ci(r.difference.kappa.ci)}.
        </p>
        {r.ungraded.a > 0 || r.ungraded.b > 0 ? (
          <p class="ungraded">
            Left out for want of a grade (answers of the run without a final grade): {r.judgeA} {r.ungraded.a}, {r.judgeB} {r.ungraded.b}. Grade them with{' '}
            <code>assay judge compare --run {r.run} --judge {r.judgeA} --judge {r.judgeB} --grade</code> (or {'POST /api/runs/{id}/grade'} for each judge).
          </p>
        ) : null}
        {r.excludedExamples > 0 ? (
          <p class="excluded-examples">
            Left out as examples: {r.excludedExamples} answer(s) of the run that {r.judgeA} or {r.judgeB} was shown with the people's verdicts (anchored judges).
          </p>
        ) : null}
        {r.notes.length > 0 ? (
          <ul class="notes">
            {r.notes.map((n) => (
              <li>{n}</li>
            ))}
          </ul>
        ) : null}
        {r.dropped.byReason.length > 0 ? (
          <ul class="dropped">
            {r.dropped.byReason.map((d) => (
              <li>
                {d.count}: {d.description}
              </li>
            ))}
          </ul>
        ) : null}
        {ts.map((t) => (
          <DataTable table={t} search={q} />
        ))}
      </>
    ),
  };
}
