import type PgBoss from 'pg-boss';
import { migrate, type Database } from '../db/client.ts';
import type { QueueTimes } from '../jobs/env-seconds.ts';

/**
 * The whole schema assay uses: its migrations and, applied with them, the grading queue's. pg-boss
 * creates its schema and the two queues on its first start — about 0.1 s on PostgreSQL and a few tenths
 * on PGlite, which the first `assay run` on a new database paid before its first provider call. So a
 * database made by `npm start`, `assay import` or `assay migrate` gets them here, where the rest of its
 * tables are made. A database already at the journal is left alone after one query (one migrated before
 * this existed gets the queue's schema from pg-boss's first start, as before). `queue`: the configured
 * times (config.jobs.queue) the queue is made with (the defaults of jobs/boss.ts where there is no configuration).
 */
export async function migrateDatabase(database: Database, queue: Partial<QueueTimes> = {}): Promise<void> {
  if (!(await migrate(database))) return;
  const { startBoss } = await import('../jobs/boss.ts');
  // No maintenance: only the schema and the queues are wanted; the queue's settings are refreshed by
  // whoever starts it next with others.
  const boss = await startBoss(database, { ...queue, supervise: false });
  await boss.stop({ graceful: false, close: false, wait: true } as PgBoss.StopOptions);
}
