import type { Database } from '../db/client.ts';
import { NO_MODEL } from '../domain/answers.ts';
import { cachedReport, reportKey } from './report-cache.ts';
import type { ReportFilters } from './report-data.ts';

/**
 * Every model of the stored runs, sorted: the set the pages' model → colour map is drawn over
 * (web/model-colours.ts), so a model has one colour on every chart, whichever subset a chart shows.
 */
export function reportModels(database: Database): Promise<string[]> {
  return cachedReport(database, reportKey('models', null), async () => {
    const r = await database.execute(`select distinct model from runs where model <> $1 order by model`, [NO_MODEL]);
    return r.rows.map((x) => String(x.model));
  }, ['runs']);
}

/**
 * Answers the model reports leave out because their run names no model (ad hoc text graded without one),
 * of the report's scope: the tasks a leaderboard reads, under its run, model and rubric filters (a
 * description's own rubric, an assembly's its puzzle's, as report-facts.ts scopes the rows) — a report of
 * one run never counts another run's ad hoc answers as left off it. Not cached on its own: it is read
 * inside the reports' cached computations.
 */
export async function unattributedAnswers(database: Database, f: ReportFilters = {}): Promise<number> {
  const r = await database.execute(
    `select count(*)::int as n from answers a join runs r on r.id = a.run_id left join puzzles p on p.id = a.puzzle_id
      where r.model = $1 and a.task in ('describe', 'describe-then-solve', 'assemble')
        and ($2::text is null or r.name = $2) and ($3::text is null or r.model = $3)
        and ($4::text is null or exists (select 1 from rubrics rb where rb.slug = $4
              and ((a.task <> 'assemble' and rb.id = a.rubric_id) or (a.task <> 'describe' and rb.id = p.rubric_id))))`,
    [NO_MODEL, f.run ?? null, f.model ?? null, f.rubric ?? null],
  );
  return Number(r.rows[0]?.n ?? 0);
}
