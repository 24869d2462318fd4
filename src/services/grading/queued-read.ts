import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { type GroupOptions, groupCommit } from '../../db/group-commit.ts';
import { hasFinalGrade, type SkipReason, skipReason, sqlText } from './needs-grading.ts';

/**
 * What a queued job reads before its call, in one statement for the jobs in flight (group commit): the
 * answer, its rubric's latest version, and the needs-grading rule's verdict on it for this judge.
 */

export interface QueuedAnswer {
  id: number;
  text: string | null;
  status: string;
  rubric: string | null;
  versionId: number | null;
  /** Why no judge grades this answer (needs-grading.ts), or null. */
  skip: SkipReason | null;
  /** This judge already gave it a final grade. */
  graded: boolean;
}

// Written as text (prepared once per connection), with the rule's SQL rendered into it.
const READ = `
  select "answers"."id", "answers"."text", "answers"."status", r.slug as rubric,
    (select v.id from rubric_versions v where v.rubric_id = "answers"."rubric_id" order by v.version desc limit 1) as version_id,
    ${sqlText(skipReason)} as skip,
    ${sqlText(hasFinalGrade(sql.raw('$2::int')))} as graded
  from answers left join rubrics r on r.id = "answers"."rubric_id"
  where "answers"."id" in (select (jsonb_array_elements_text($1::jsonb))::int)`;

/** Reads queued answers for one judges row; `undefined` for an id with no answer. */
export function queuedAnswerReader(database: Database, judgeId: number, group: GroupOptions = {}): (answerId: number) => Promise<QueuedAnswer | undefined> {
  return groupCommit(async (ids: number[]) => {
    const r = await database.execute(READ, [JSON.stringify([...new Set(ids)]), judgeId], { prepare: true });
    const byId = new Map<number, QueuedAnswer>();
    for (const row of r.rows) {
      byId.set(Number(row.id), {
        id: Number(row.id),
        text: row.text ?? null,
        status: row.status,
        rubric: row.rubric ?? null,
        versionId: row.version_id == null ? null : Number(row.version_id),
        skip: row.skip ?? null,
        graded: row.graded === true || row.graded === 't',
      });
    }
    return ids.map((id) => byId.get(id));
  }, group);
}
