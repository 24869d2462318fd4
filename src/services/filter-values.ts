import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from '../db/client.ts';
import { isAssayError, notFound } from '../domain/errors.ts';
import { JUDGES_DIR } from '../judges/config.ts';
import { findRun } from './grading/run-ref.ts';
import { runTags } from './runs.ts';

/**
 * A list filter whose value names nothing is 404, not 200 with an empty list: a typo (`?judge=lexicl`)
 * would read as "no data" (the pages answer the same values 404 since web/page-query.ts); the API's list and report routes call it. A value that
 * names something but matches no rows stays an empty list. Each kind is looked up as the filter it guards
 * compares it (a run by name, or by name or id where the list takes both), so a value that passes here is
 * one the filter can match. The message starts with the parameter and quotes the value.
 */

export type FilterKind = 'run' | 'runRef' | 'model' | 'rubric' | 'puzzle' | 'sizeBucket' | 'judge' | 'annotator' | 'tag' | 'answer';

const one = async (database: Database, sql: string, value: unknown): Promise<boolean> => (await database.execute(sql, [value])).rows.length > 0;

const JUDGE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/** Why nothing of the kind has that name (after "<kind> '<value>' not found"), or null when something does. */
async function missing(database: Database, kind: FilterKind, value: string): Promise<string | null> {
  switch (kind) {
    case 'run':
      return (await one(database, 'select 1 from runs where name = $1', value)) ? null : '';
    case 'runRef':
      return findRun(database, value).then(
        () => null,
        (e: unknown) => {
          if (isAssayError(e) && e.code === 'not_found') return '';
          throw e;
        },
      );
    case 'model':
      return (await one(database, 'select 1 from runs where model = $1 limit 1', value)) ? null : ': no run is of that model';
    case 'rubric':
      return (await one(database, 'select 1 from rubrics where slug = $1', value)) ? null : '';
    case 'puzzle':
      return (await one(database, 'select 1 from puzzles where slug = $1', value)) ? null : '';
    case 'sizeBucket': {
      // Free text of the puzzles file (`~50`): a bucket no puzzle is in is a typo, not "no puzzles".
      const r = await database.execute('select distinct size_bucket as b from puzzles where size_bucket is not null order by 1');
      const buckets = r.rows.map((x) => String(x.b));
      return buckets.includes(value) ? null : `: no puzzle is in that size bucket (buckets: ${buckets.join(', ') || 'none'})`;
    }
    case 'judge':
      // A judge of judges/ that has not graded yet is a judge with no grades; imported judges live only in the table.
      if (await one(database, 'select 1 from judges where slug = $1 limit 1', value)) return null;
      return JUDGE_ID.test(value) && existsSync(join(JUDGES_DIR, `${value}.yaml`)) ? null : ': no stored grade and no file in judges/ has that judge id';
    case 'annotator': {
      // Labels, keys (an annotate key labels as its name) and campaigns name annotators; one may have labelled nothing yet.
      const known = await one(
        database,
        `select 1 where exists (select 1 from labels where annotator = $1) or exists (select 1 from api_keys where name = $1)
           or exists (select 1 from campaigns where annotators ? $1 or adjudicators ? $1)`,
        value,
      );
      return known ? null : ': no label, API key or campaign names that annotator';
    }
    case 'tag': {
      const tags = await runTags(database);
      return tags.includes(value) ? null : `: no run has that condition tag (tags: ${tags.join(', ') || 'none'})`;
    }
    case 'answer':
      return /^\d+$/.test(value) && (await one(database, 'select 1 from answers where id = $1', Number(value))) ? null : '';
  }
}

const NOUN: Record<FilterKind, string> = { run: 'run', runRef: 'run', model: 'model', rubric: 'rubric', puzzle: 'puzzle', sizeBucket: 'size bucket', judge: 'judge', annotator: 'annotator', tag: 'tag', answer: 'answer' };

/**
 * Refuses the first filter of `query` (parameter → what it names) whose value names nothing, in the
 * order given. Absent and empty values are no filter. Call it after validation, before the list is read.
 */
export async function requireNamed(database: Database, query: Record<string, unknown>, filters: Record<string, FilterKind>): Promise<void> {
  for (const [param, kind] of Object.entries(filters)) {
    const v = query[param];
    if (v === undefined || v === null || v === '') continue;
    const value = String(v);
    const why = await missing(database, kind, value);
    if (why === null) continue;
    const noun = NOUN[kind];
    const shown = kind === 'answer' ? value : `'${value}'`;
    throw notFound(`${param === noun ? '' : `${param}: `}${noun} ${shown} not found${why}`);
  }
}
