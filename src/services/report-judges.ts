import type { Database } from '../db/client.ts';
import { cachedPart, reportKey } from './report-cache.ts';

/**
 * The judges a report page can be read under: every judge with at least one answer graded ok, with that
 * count, busiest first (ties: the newer judge first), as chooseJudge (report-data.ts) counts and orders
 * them, so the first that is not an imported scorer is the default a page without ?judge= reads.
 */
export interface GradedJudge {
  slug: string;
  provider: string;
  /** Answers with an ok grade by the judge (answers, not grade rows: grades are versioned). */
  answers: number;
}

export function gradedJudges(database: Database): Promise<GradedJudge[]> {
  return cachedPart(database, reportKey('graded-judges', null), async () => {
    const r = await database.execute(
      `select j.slug, j.provider, count(distinct g.answer_id)::int as n from judges j join grades g on g.judge_id = j.id and g.status = 'ok'
        group by j.id, j.slug, j.provider order by n desc, j.id desc`,
    );
    return r.rows.map((x) => ({ slug: String(x.slug), provider: String(x.provider), answers: Number(x.n) }));
  }, ['judges', 'grades']);
}
