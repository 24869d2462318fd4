import { TASK_KINDS } from '../../domain/answers.ts';
import { notFound } from '../../domain/errors.ts';
import { parseRowId } from '../../domain/limits.ts';
import { puzzleTruth } from '../../services/puzzles.ts';
import { getRun, listRuns } from '../../services/runs.ts';
import { answerDetail, listAnswerRows } from '../../services/web-answer.ts';
import { assemblyPicture } from '../assembly-svg.ts';
import type { Web } from '../index.tsx';
import type { PageSpec } from '../respond.tsx';
import { SelectField } from '../select-field.tsx';
import { pictureFile } from '../static.ts';
import { DataTable, type Table } from '../table.tsx';
import { GradeSection, gradeTables } from './grade.tsx';
import { declareQuery } from '../page-query.ts';
import { numberIn, oneOf, param, reportPage } from './report-page.ts';
import { PolicyNote } from '../policy-note.tsx';
import { REPORT_UNVERIFIABLE_DEFAULT, UNVERIFIABLE_POLICIES } from '../../services/report-policy.ts';

/** Answers: a filtered list, and one answer with its grades and (for assemblies) the rebuilt puzzle. */

const PAGE = 50;

/** The query parameters of each page (page-query.ts: any other name is refused). */
export const ANSWERS_QUERY = declareQuery(['run', 'model', 'task', 'judge', 'unverifiable', 'offset'], { downloads: true });
export const ANSWER_QUERY = declareQuery([], { downloads: true });

async function listPage(q: URLSearchParams, web: Web): Promise<PageSpec> {
  const run = param(q, 'run');
  const model = param(q, 'model');
  const task = param(q, 'task') ? oneOf(q, 'task', TASK_KINDS, 'describe') : undefined;
  const judge = param(q, 'judge');
  // The F1 column under the reports' policy (report-policy.ts), so it agrees with the leaderboard read alike.
  const unverifiable = oneOf(q, 'unverifiable', UNVERIFIABLE_POLICIES, REPORT_UNVERIFIABLE_DEFAULT);
  const offset = numberIn(q, 'offset', 0, 2_147_483_647, 0, { integer: true });
  // A run or model that names nothing is a 404: "No answers match" would pass for a real, empty filter.
  const database = web.api.deps.database;
  if (run) await getRun(database, run);
  if (model && (await listRuns(database, { model, limit: 1 })).total === 0) throw notFound(`model '${model}' not found: no run is of that model`);
  // A download holds every matching answer; the screen shows one page of PAGE.
  const download = q.get('table') === 'answers' && q.has('format');
  const r = await listAnswerRows(web.api.deps.database, { run, model, task, unverifiable, ...(judge ? { judge } : {}), limit: download ? 2_147_483_647 : PAGE, offset: download ? 0 : offset });
  // The F1 column is one judge's (the leaderboard's unless ?judge= names another): the caption says which.
  const byJudge = r.judge ? `F1 by judge ${r.judge}` : '';
  const shown = download ? `all ${r.total}` : r.total ? `${offset + 1}–${Math.min(offset + PAGE, r.total)} of ${r.total}` : '';
  const table: Table = {
    id: 'answers',
    caption: `Answers${shown || byJudge ? ` (${[shown, byJudge].filter(Boolean).join('; ')})` : ''}`,
    columns: [
      { key: 'answer', label: 'Answer', href: (x) => `/answers/${x.id}` },
      { key: 'run', label: 'Run' },
      { key: 'model', label: 'Model' },
      { key: 'task', label: 'Task' },
      { key: 'status', label: 'Status' },
      { key: 'grades', label: 'Grades', kind: 'int' },
      { key: 'f1', label: 'F1', kind: 'num' },
      { key: 'neighbour', label: 'Neighbour', kind: 'num' },
      { key: 'direct', label: 'Direct', kind: 'num' },
      { key: 'humanLabels', label: 'Annotators', kind: 'int' },
    ],
    rows: r.rows,
    empty: 'No answers match.',
  };
  const pageLink = (o: number) => {
    const p = new URLSearchParams(q);
    p.set('offset', String(o));
    return `?${p.toString()}`;
  };
  return {
    title: 'Answers',
    tables: [table],
    body: () => (
      <>
        <form method="get" class="filters">
          <label for="run">Run</label>
          <input id="run" name="run" value={run ?? ''} />
          <label for="model">Model</label>
          <input id="model" name="model" value={model ?? ''} />
          <SelectField name="task" label="Task" options={TASK_KINDS} selected={task} any="any" />
          <label for="judge">Judge</label>
          <input id="judge" name="judge" value={judge ?? ''} placeholder={r.judge ?? ''} />
          {param(q, 'unverifiable') ? <input type="hidden" name="unverifiable" value={r.unverifiable} /> : null}
          <button type="submit">Filter</button>
        </form>
        <PolicyNote unverifiable={r.unverifiable} unverifiableNote={r.unverifiableNote} />
        <DataTable table={table} search={q} />
        <nav class="pager" aria-label="Pages">
          {offset > 0 ? <a href={pageLink(Math.max(0, offset - PAGE))}>Previous</a> : null}{' '}
          {offset + PAGE < r.total ? <a href={pageLink(offset + PAGE)}>Next</a> : null}
        </nav>
      </>
    ),
  };
}

async function detailPage(id: number, q: URLSearchParams, web: Web): Promise<PageSpec> {
  const d = await answerDetail(web.api.deps.database, id);
  const a = d.answer;
  const gts = d.grades.map((g, i) => gradeTables(g, i));
  const truth = d.puzzle && d.assembly ? puzzleTruth(d.puzzle) : null;
  const picture = truth && d.puzzle ? assemblyPicture(truth, a.text ?? '', { pictureUrl: pictureFile(d.puzzle.picture) ? `/pictures/${encodeURIComponent(d.puzzle.id)}` : null }) : null;
  const scoreTable: Table | null = d.assembly
    ? {
        id: 'assembly-score',
        caption: 'Assembly score',
        columns: ['status', 'direct', 'neighbour', 'adjacency', 'proximity', 'exactMatch', 'shapeCompatibility'].map((k) => ({ key: k, label: k, kind: k === 'status' ? 'text' : 'num' })),
        rows: [{ ...d.assembly, problems: d.assembly.problems.join('; ') }],
      }
    : null;
  return {
    title: `Answer ${a.externalId}`,
    tables: [...gts.flat(), ...(scoreTable ? [scoreTable] : [])],
    body: () => (
      <>
        <dl class="facts">
          <dt>Run</dt>
          <dd>
            <a href={`/answers?run=${encodeURIComponent(a.run)}`}>{a.run}</a>
          </dd>
          <dt>Model</dt>
          <dd>{a.model}</dd>
          <dt>Task</dt>
          <dd>{a.task}</dd>
          <dt>Status</dt>
          <dd>{a.status}</dd>
          <dt>Rubric</dt>
          <dd>{d.rubric ? `${d.rubric.id} v${d.rubric.version}: ${d.rubric.title}` : '—'}</dd>
          <dt>Puzzle</dt>
          <dd>{d.puzzle ? `${d.puzzle.id} (${d.puzzle.rows} × ${d.puzzle.cols})` : '—'}</dd>
        </dl>
        {picture && scoreTable ? (
          <section aria-labelledby="asm-h">
            <h2 id="asm-h">Assembly</h2>
            <p>
              {picture.inPlace.length} of {picture.rows * picture.cols} pieces in their true cell (outlined);{' '}
              {picture.keptHorizontal.length} of {picture.pairsHorizontal} horizontal and {picture.keptVertical.length} of {picture.pairsVertical} vertical
              neighbour pairs kept together (joined by a bar). Parse: {picture.status}
              {picture.problems.length ? ` — ${picture.problems.slice(0, 5).join('; ')}${picture.problems.length > 5 ? '…' : ''}` : ''}.
            </p>
            <div class="assembly-wrap" dangerouslySetInnerHTML={{ __html: picture.svg }} />
            <DataTable table={scoreTable} search={q} />
          </section>
        ) : null}
        <h2>Answer text</h2>
        <pre class="answer" tabindex={0} aria-label="Answer text">
          {a.text ?? '(no text)'}
        </pre>
        {d.grades.length === 0 && a.task !== 'assemble' && a.status === 'error' ? (
          // The one rule (services/grading/needs-grading.ts): an error answer's kept text is never graded.
          <p class="empty">Not graded: the model's call ended in error (status error), so the text it kept is not its answer and no judge grades it.</p>
        ) : d.grades.length === 0 && a.task !== 'assemble' ? (
          <p class="empty">
            Not graded yet. Grade it with <code>{`bin/assay grade --rubric ${a.rubric ?? "SLUG"} --answer ${a.id}`}</code> (the lexical baseline works offline).
          </p>
        ) : null}
        {d.grades.map((g, i) => (
          <GradeSection grade={g} tables={gts[i]!} search={q} />
        ))}
      </>
    ),
  };
}

export function registerAnswerPages(web: Web): void {
  reportPage(web, '/answers', ANSWERS_QUERY, (_c, q) => listPage(q, web));
  reportPage(web, '/answers/:id', ANSWER_QUERY, (c, q) => detailPage(parseRowId(c.req.param('id') ?? '', 'answer id'), q, web));
}
