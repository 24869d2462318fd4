import type PgBoss from 'pg-boss';
import type { Queryable } from '../db/client.ts';
import { GRADE_QUEUE, transactionExecutor, UNARCHIVE_FAILED } from './boss.ts';

/**
 * Failed jobs pg-boss has archived. Its maintenance moved a failed job from pgboss.job to pgboss.archive
 * 12 h after it failed (and drops archived rows after 7 days): a failure that only pgboss.job showed would
 * vanish from `assay jobs` while its answer still has no grade. Failed jobs are now kept in pgboss.job
 * (boss.ts FAILED_KEPT_SECONDS), and the update of a queue made before moves archived ones back; these
 * are the ones archived since by a worker of before, if any. An archived failed job counts while no job
 * of the same id is in pgboss.job again (`assay run` re-enqueues an answer under the same id, and that
 * job — queued, or failed anew — is the answer's now).
 */

/**
 * The grade queue's jobs as a table expression (alias it): pgboss.job, and the archived failed jobs no
 * live job shadows. Columns: id, name, state, data, retry_count, created_on, output.
 */
export const GRADE_JOBS = `(
  select id, name, state, data, retry_count, created_on, output from pgboss.job where name = '${GRADE_QUEUE}'
  union all
  select a.id, a.name, a.state, a.data, a.retry_count, a.created_on, a.output from pgboss.archive a
   where a.name = '${GRADE_QUEUE}' and a.state = 'failed'
     and not exists (select 1 from pgboss.job c where c.name = a.name and c.id = a.id)
)`;

/**
 * Renews the keep-until of grade jobs put back to waiting ($2: their ids) to now + the queue's retention:
 * pg-boss archives a created or retry job past its keep-until (set once, at insert) before any worker
 * fetches it, so a job resumed or retried after the retention window would vanish unrun. And clears
 * their completed_on: pg-boss's retry leaves the failure's, and its maintenance archives any job not
 * failed whose completed_on is over 12 h old — a failure retried a day later vanished from the queue
 * at the next maintenance, waiting or while a worker ran it (its grade then refused under a lost lease).
 */
export const RENEW_KEEP_UNTIL = `update pgboss.job set keep_until = greatest(keep_until, now() + make_interval(mins => coalesce((select retention_minutes from pgboss.queue where name = $1), 60 * 24 * 14))),
    completed_on = null
  where name = $1 and id = any($2::uuid[]) and state < 'active'`;

/**
 * Retries failed grade jobs by id on `tx`, archived ones included: those are moved back to pgboss.job
 * first (pg-boss's retry only sees that table). Their keep-until is renewed, since pg-boss archives a
 * waiting job past it before any worker fetches it. Returns how many jobs went back to the queue.
 */
export async function retryFailed(tx: Queryable, boss: PgBoss, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const exec = transactionExecutor(tx);
  await exec.executeSql(UNARCHIVE_FAILED, [GRADE_QUEUE, ids]);
  // Counted on the same transaction as the retry (pg-boss's retry() resolves with nothing typed).
  const failed = await exec.executeSql(`select count(*)::int as n from pgboss.job where name = $1 and id = any($2::uuid[]) and state = 'failed'`, [GRADE_QUEUE, ids]);
  await boss.retry(GRADE_QUEUE, ids, { db: exec } as PgBoss.ConnectionOptions);
  await exec.executeSql(RENEW_KEEP_UNTIL, [GRADE_QUEUE, ids]);
  return Number(failed.rows[0]?.n ?? 0);
}
