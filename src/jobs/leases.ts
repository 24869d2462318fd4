import type PgBoss from 'pg-boss';
import type { Database } from '../db/client.ts';
import type { JobLease } from '../judges/store.ts';
import { GRADE_QUEUE, transactionExecutor } from './boss.ts';

/**
 * Job leases: a job fetched from pg-boss is held under (job id, retry_count) — pg-boss raises
 * retry_count on every fetch after the first, so each fetch of a job has its own token. A job handed
 * back to the queue because its worker was taken for dead (liveness.ts) is fetched again under a new
 * token, and every write the old holder still makes for it is refused: the pending ledger row before a
 * call, the grade (src/db), and the completion or failure here. pg-boss's own complete() and fail()
 * go by job id alone, so a slow worker could otherwise end the new holder's job.
 */

export const leaseOf = (job: PgBoss.JobWithMetadata<unknown>): JobLease => ({ queue: GRADE_QUEUE, jobId: job.id, token: job.retryCount });

const COMPLETE = `
  update pgboss.job j set completed_on = now(), state = 'completed', output = jsonb_build_object('outcome', x.outcome)
  from jsonb_to_recordset($2::jsonb) as x(id uuid, token int, outcome text)
  where j.name = $1 and j.id = x.id and j.state = 'active' and j.retry_count = x.token`;

/** Completes the jobs still held under their leases (one statement); the others are left to their holders. */
export async function completeLeased(database: Database, done: Array<{ lease: JobLease; outcome: string }>): Promise<void> {
  if (done.length === 0) return;
  const rows = done.map(({ lease, outcome }) => ({ id: lease.jobId, token: lease.token, outcome }));
  await database.execute(COMPLETE, [GRADE_QUEUE, JSON.stringify(rows)], { prepare: true });
}

/**
 * Fails a job (pg-boss retries it with backoff, then dead-letters it) only while `lease` holds it: the
 * row is locked first, so neither a takeover nor a new fetch can fall between the check and the fail.
 */
export async function failLeased(database: Database, boss: PgBoss, lease: JobLease, message: string): Promise<boolean> {
  return database.db.transaction(async (tx) => {
    const exec = transactionExecutor(tx);
    const held = await exec.executeSql(
      `select 1 from pgboss.job where name = $1 and id = $2::uuid and state = 'active' and retry_count = $3::int for update`,
      [lease.queue, lease.jobId, lease.token],
    );
    if (held.rows.length === 0) return false;
    await boss.fail(lease.queue, lease.jobId, { message }, { db: exec } as PgBoss.ConnectionOptions);
    return true;
  });
}

/** SQL condition on a `workers` row w: seen within its own dead-after time. */
export const LIVE = `w.last_seen > now() - make_interval(secs => w.dead_after_ms / 1000.0)`;

/**
 * Hands the active jobs no live worker holds back to the queue: active for longer than the longest
 * dead-after time of the live workers (so whichever holds a job has heartbeated it since it was
 * fetched) and listed by no live worker (one seen within its own dead-after time). They are failed through pg-boss (a retry is spent, so a job that keeps
 * killing its workers ends dead-lettered) and made due at once: a dead worker is not a provider
 * failure that wants a backoff. Locked FOR UPDATE SKIP LOCKED, so two sweeping workers hand back
 * each job once, and a job cannot be fetched again between the check and the fail.
 */
export async function takeOverOrphans(database: Database, boss: PgBoss, minAgeS: number): Promise<string[]> {
  return database.db.transaction(async (tx) => {
    const exec = transactionExecutor(tx);
    const r = await exec.executeSql(
      `select j.id::text as id from pgboss.job j
       where j.name = $1 and j.state = 'active'
         and j.started_on < now() - make_interval(secs => greatest($2::float8, (select coalesce(max(w.dead_after_ms), 0) / 1000.0 from workers w where ${LIVE})))
         and not exists (select 1 from workers w where ${LIVE} and w.jobs ? j.id::text)
       order by j.started_on limit 1000
       for update of j skip locked`,
      [GRADE_QUEUE, minAgeS],
    );
    const ids = r.rows.map((x) => String(x.id));
    if (ids.length === 0) return ids;
    // pg-boss fails an id array (manager.js); its types list a single id.
    await boss.fail(GRADE_QUEUE, ids as unknown as string, { message: 'no live worker holds it (its worker stopped heartbeating): handed back to the queue' }, { db: exec } as PgBoss.ConnectionOptions);
    await exec.executeSql(`update pgboss.job set start_after = now() where name = $1 and id = any($2::uuid[]) and state = 'retry'`, [GRADE_QUEUE, ids]);
    return ids;
  });
}
