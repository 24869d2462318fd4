import { expect, it } from 'vitest';
import { migrate, type Database } from '../../src/db/client.ts';
import { migrateDatabase } from '../../src/services/schema.ts';
import { gradingQueue } from '../../src/services/grading/queue.ts';
import { describeDb } from '../helpers/db.ts';

/** migrateDatabase: the migrations and, with them, the grading queue's schema and queues. */

const queues = async (database: Database) => {
  const present = await database.execute(`select to_regclass('pgboss.queue') is not null as present`);
  if (!present.rows[0]?.present) return null;
  return (await database.execute(`select name from pgboss.queue order by name`)).rows.map((r) => r.name);
};

/** What a worker or `assay run` does first: start pg-boss on the database (then stop it). */
async function startQueueOnce(database: Database): Promise<void> {
  const queue = gradingQueue(database);
  await queue.boss();
  await queue.stop();
}

describeDb('migrateDatabase on a current database', (ctx) => {
  it('is one query and no write: a database the bare migrator made keeps having no queue schema until a queue starts', async () => {
    expect(await queues(ctx.database)).toBeNull();
    await migrateDatabase(ctx.database);
    expect(await queues(ctx.database)).toBeNull();
  });
});

it('a new database gets the queue schema and queues; a second call changes nothing; a queue start finds them', async () => {
  const { openDatabase } = await import('../../src/db/client.ts');
  const database = await openDatabase({ memory: true });
  try {
    await migrateDatabase(database);
    expect(await queues(database)).toEqual(['assay-grade', 'assay-grade-dead']);
    const version = (await database.execute(`select version from pgboss.version`)).rows;
    await migrateDatabase(database);
    expect((await database.execute(`select version from pgboss.version`)).rows).toEqual(version);
    await startQueueOnce(database);
    expect(await queues(database)).toEqual(['assay-grade', 'assay-grade-dead']);
  } finally {
    await database.close();
  }
});

it('a database migrated by the bare migrator gets the queue schema from the first queue start, as before', async () => {
  const { openDatabase } = await import('../../src/db/client.ts');
  const database = await openDatabase({ memory: true });
  try {
    await migrate(database);
    expect(await queues(database)).toBeNull();
    await startQueueOnce(database);
    expect(await queues(database)).toEqual(['assay-grade', 'assay-grade-dead']);
  } finally {
    await database.close();
  }
});
