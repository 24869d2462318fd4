import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe } from 'vitest';
import { migrate, openDatabase, type Database } from '../../src/db/client.ts';
import { migratedImage } from './pglite-image.ts';

/**
 * Runs a suite on a fresh, migrated database: always in-memory PGlite, and also PostgreSQL when
 * TEST_DATABASE_URL is set. On PostgreSQL each suite gets its own database (assay_t_<random>) created
 * and dropped here, so test files running in parallel never share tables.
 */

export interface DbContext {
  readonly database: Database;
  /** The PostgreSQL URL of the suite's database (undefined on PGlite): for a second connection pool. */
  readonly url: string | undefined;
}

export const ENGINES: Array<'pglite' | 'postgres'> = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

export function describeDb(name: string, fn: (ctx: DbContext) => void): void {
  for (const engine of ENGINES) {
    describe(`${name} [${engine}]`, () => {
      let database: Database | undefined;
      let drop: (() => Promise<void>) | undefined;
      let url: string | undefined;
      beforeAll(async () => {
        const opened = await openTestDatabase(engine);
        database = opened.database;
        drop = opened.drop;
        url = opened.url;
      });
      afterAll(async () => {
        await drop?.();
      });
      fn({
        get database(): Database {
          if (!database) throw new Error('database not open yet (use it inside tests or hooks)');
          return database;
        },
        get url(): string | undefined {
          return url;
        },
      });
    });
  }
}

/** A fresh migrated database on one engine and a function that closes (and on PostgreSQL drops) it. */
export async function openTestDatabase(
  engine: 'pglite' | 'postgres',
): Promise<{ database: Database; url?: string; drop: () => Promise<void> }> {
  if (engine === 'pglite') {
    const database = await openDatabase({ memory: true, image: await migratedImage() });
    return { database, drop: () => database.close() };
  }
  const adminUrl = process.env.TEST_DATABASE_URL!;
  const dbName = `assay_t_${randomBytes(6).toString('hex')}`;
  const admin = await openDatabase({ url: adminUrl, max: 1 });
  await admin.execute(`CREATE DATABASE ${dbName}`);
  const url = withDatabase(adminUrl, dbName);
  const database = await openDatabase({ url, max: 4 });
  await migrate(database);
  return {
    database,
    url,
    drop: async () => {
      await database.close();
      await admin.execute(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await admin.close();
    },
  };
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Row counts of every table, for "nothing was written" assertions. */
export async function rowCounts(database: Database): Promise<Record<string, number>> {
  const tables = [
    'rubrics',
    'rubric_versions',
    'rubric_items',
    'puzzles',
    'runs',
    'answers',
    'judges',
    'grades',
    'assembly_scores',
    'labels',
    'api_keys',
  ];
  const out: Record<string, number> = {};
  for (const t of tables) {
    const r = await database.execute(`select count(*)::int as n from ${t}`);
    out[t] = Number(r.rows[0].n);
  }
  return out;
}

/**
 * The environment that points the real binary at a fresh database of `engine`: a new PostgreSQL database
 * (dropped by `drop`), or a PGlite directory under `tmp`.
 */
export async function cliDatabaseEnv(engine: 'pglite' | 'postgres', tmp: string): Promise<{ env: NodeJS.ProcessEnv; drop?: () => Promise<void> }> {
  if (engine === 'pglite') return { env: { DATABASE_URL: '', ASSAY_DATA_DIR: `${tmp}/data` } };
  const t = await openTestDatabase('postgres');
  await t.database.close();
  return { env: { DATABASE_URL: t.url }, drop: t.drop };
}
