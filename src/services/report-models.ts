import type { Database } from '../db/client.ts';
import { NO_MODEL } from '../domain/answers.ts';
import { cachedReport, reportKey } from './report-cache.ts';

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
 * Answers the model reports leave out because their run names no model (ad hoc text graded without one).
 * Not cached on its own: it is read inside the reports' cached computations.
 */
export async function unattributedAnswers(database: Database): Promise<number> {
  const r = await database.execute(`select count(*)::int as n from answers a join runs r on r.id = a.run_id where r.model = $1`, [NO_MODEL]);
  return Number(r.rows[0]?.n ?? 0);
}
