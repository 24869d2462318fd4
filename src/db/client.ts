import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { OwnerInfo } from './pglite-owner.ts';
import * as schema from './schema.ts';
import { projectPath } from '../paths.ts';

/**
 * One client, two engines: embedded PGlite (a data directory, or in memory for tests) and PostgreSQL
 * through postgres.js. Both drizzle instances share PgDatabase, so every query in services/ is written
 * once and runs on either; the same SQL migrations build both.
 */

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
/** The handle inside `db.transaction(async (tx) => …)`; services pass it to helpers. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Anything queries can run on: the database or an open transaction. */
export type Queryable = Db | Tx;

export interface Database {
  db: Db;
  /**
   * The driver: the embedded engine in this process, or postgres.js — to PostgreSQL, or to a PGlite
   * directory owned by another process (then `owner` is set).
   */
  kind: 'pglite' | 'postgres';
  /** The PGlite data directory behind this handle, owned here or reached through its owner (cross-process locks live in it). */
  pgliteDir?: string;
  /** Set when this process reaches a PGlite directory through the process that owns it. */
  owner?: ReachedOwner;
  close(): Promise<void>;
  /**
   * Raw parameterised SQL ($1, $2 …); used by adapters that bring their own SQL (pg-boss) and by hot
   * statements. `prepare`: on PostgreSQL, parse once per connection (for fixed SQL run many times).
   */
  execute(sql: string, params?: unknown[], opts?: { prepare?: boolean }): Promise<{ rows: any[] }>;
}

export interface ReachedOwner {
  info: OwnerInfo;
  /** Resolves when the owner's process is gone: this handle then has no database any more. */
  lost: Promise<void>;
}

export interface OpenOptions {
  /** A postgres:// URL: use PostgreSQL. Wins over dataDir/memory. */
  url?: string;
  /** PGlite data directory (created if missing). */
  dataDir?: string;
  /** PGlite in memory (tests). */
  memory?: boolean;
  /** In memory only: a data directory dumped by PGlite's dumpDataDir('none') that the database starts as, instead of initdb. */
  image?: Blob;
  /** postgres.js pool size (default 10). */
  max?: number;
  /** How long to wait for another process that owns `dataDir` and is still starting (default 30 s). */
  ownerWaitMs?: number;
  /** A server's choice: wait for a short-lived command owning `dataDir` rather than reach through it (see pglite-directory.ts). */
  waitForShortLivedOwner?: (owner: OwnerInfo) => void;
  /** A closed PGlite directory a new `dataDir` starts as a copy of (default: the initdb'd template). */
  template?: string;
  /** A command that ends soon, not a server or worker: PGlite's WebAssembly is never optimised (see WASM_TIERING). */
  shortLived?: boolean;
}

/** migrations/ at the package root, wherever the process was started from. */
export const MIGRATIONS_DIR = projectPath('migrations');

export async function openDatabase(opts: OpenOptions): Promise<Database> {
  if (opts.url) return openPostgres(opts.url, opts.max ?? 10);
  if (opts.memory) return openPglite(undefined, opts.image ? { image: opts.image } : {});
  const { openPgliteDirectory } = await import('./pglite-directory.ts');
  return openPgliteDirectory(opts.dataDir ?? './data', {
    ...(opts.ownerWaitMs !== undefined ? { waitMs: opts.ownerWaitMs } : {}),
    ...(opts.waitForShortLivedOwner ? { waitForShortLivedOwner: opts.waitForShortLivedOwner } : {}),
    ...(opts.template ? { template: opts.template } : {}),
    ...(opts.shortLived ? { shortLived: true } : {}),
  });
}

/**
 * PGlite's start-up, tuned (docs/operations.md, "The embedded database"). shared_buffers: PostgreSQL's
 * 128MB default is memory PGlite's WebAssembly heap touches at start (about 140 MB more resident than
 * 16MB); assay's databases are small and the OS caches the files behind it. The rest are PGlite's own
 * defaults (single-user mode, no parallel workers); startParams replaces them, so they are kept.
 */
export const PGLITE_SETTINGS = ['shared_buffers=16MB'];

/**
 * V8 compiles a hot WebAssembly function a second time, optimised, once it has run this much (its
 * default is 1.8M, "roughly bytes executed"). PostgreSQL's start-up runs a great deal of code once, so at
 * the default V8 spends ~200 ms of CPU and ~50 MB optimising code that never runs again; 100 times the
 * budget leaves start-up on the baseline compiler while a long-running server's hot paths still get
 * optimised. A short-lived command goes further: baseline only (`--liftoff-only`). Even at 100 times the
 * budget, the queries of `assay run` set off optimising compiles on both of a 2-core machine's cores,
 * which starved the command's own file reads (a ~150 ms stall) and peaked ~60 MB higher; its statements
 * are small, and a loop of 3,000 of them ran as fast on baseline code (bench/ notes in
 * docs/operations.md). Servers and workers keep optimising, for the report pages' heavy queries.
 * Set once per process, before PGlite compiles its module (the flags are read per compilation): the
 * first opening decides.
 */
const TIERING_BUDGET = '--wasm-tiering-budget=180000000';
const WASM_TIERING = { service: [TIERING_BUDGET], shortLived: [TIERING_BUDGET, '--liftoff-only'] };
let wasmTuned = false;

/** The embedded engine, in memory or on a directory this process owns (pglite-directory.ts claims it first). */
export async function openPglite(dataDir: string | undefined, o: { template?: string; shortLived?: boolean; image?: Blob } = {}): Promise<Database> {
  if (!wasmTuned) {
    for (const flag of WASM_TIERING[o.shortLived ? 'shortLived' : 'service']) setFlagsFromString(flag);
    wasmTuned = true;
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const { drizzle } = await import('drizzle-orm/pglite');
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    // An empty directory starts as a copy of the template given, else of an initdb'd one
    // (pglite-template.ts), not a fresh initdb.
    const { copyTemplateInto } = await import('./pglite-template.ts');
    if (!(o.template && copyTemplateInto(dataDir, o.template))) copyTemplateInto(dataDir);
  }
  const options = {
    startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS.flatMap((s) => ['-c', s])],
    ...(o.image && !dataDir ? { loadDataDir: o.image } : {}),
  };
  const client = dataDir ? new PGlite(dataDir, options) : new PGlite(options);
  await client.waitReady;
  const db = drizzle({ client, schema }) as unknown as Db;
  return {
    db,
    kind: 'pglite',
    close: () => client.close(),
    async execute(text, params) {
      const r = await client.query(text, params as any[] | undefined);
      return { rows: r.rows as any[] };
    },
  };
}

/**
 * postgres.js on a URL. `prepare: false` for a PGlite owner's socket: named statements would outlive
 * this process in the owner's one shared session.
 */
export async function openPostgres(url: string, max: number, o: { path?: string; prepare?: boolean } = {}): Promise<Database> {
  const { default: postgres } = await import('postgres');
  const { drizzle } = await import('drizzle-orm/postgres-js');
  // Notices ("relation already exists, skipping" from the migrator) are noise on a terminal.
  const socket = o.path ? { url, path: o.path } : unixSocketOf(url);
  const client = postgres(socket ? socket.url : url, {
    max,
    onnotice: () => {},
    connect_timeout: 10,
    ...(socket ? { path: socket.path } : {}),
    ...(o.prepare === false ? { prepare: false } : {}),
  });
  const db = drizzle({ client, schema }) as unknown as Db;
  return {
    db,
    kind: 'postgres',
    close: () => client.end({ timeout: 5 }),
    async execute(text, params, opts) {
      const rows = await client.unsafe(text, (params ?? []) as any[], opts?.prepare ? { prepare: true } : undefined);
      return { rows: [...rows] };
    },
  };
}

/**
 * libpq's two spellings of a Unix-socket connection, which postgres.js reads neither of:
 * `postgres://user@/db?host=/var/run/postgresql` and `postgres://user@%2Fvar%2Frun%2Fpostgresql/db`.
 * The socket skips the TCP stack on every round trip, which a grading worker makes several of per answer.
 */
export function unixSocketOf(url: string): { url: string; path: string } | null {
  let u: URL;
  try {
    // WHATWG URLs refuse credentials without a host, which libpq's socket form has.
    u = new URL(url.replace(/^(postgres(?:ql)?:\/\/[^/?#]*@)(?=[/?#]|$)/, '$1localhost'));
  } catch {
    return null;
  }
  const queryHost = u.searchParams.get('host');
  const encodedHost = decodeURIComponent(u.hostname);
  const dir = queryHost?.startsWith('/') ? queryHost : encodedHost.startsWith('/') ? encodedHost : null;
  if (!dir) return null;
  u.searchParams.delete('host');
  u.hostname = 'localhost';
  return { url: u.toString(), path: `${dir.replace(/\/$/, '')}/.s.PGSQL.${u.port || 5432}` };
}

/**
 * Applies every pending migration in migrations/ (idempotent: the migrator records what it ran). A
 * database already at the journal's last migration is left alone after one query (schemaIsCurrent),
 * without the migrator reading and hashing every SQL file and re-checking its table at each start.
 * True when it applied migrations (the caller may then make what goes with a new schema).
 */
export async function migrate(database: Database): Promise<boolean> {
  if (await schemaIsCurrent(database)) return false;
  const config = { migrationsFolder: MIGRATIONS_DIR };
  if (database.kind === 'pglite') {
    const m = await import('drizzle-orm/pglite/migrator');
    await m.migrate(database.db as any, config);
  } else {
    const m = await import('drizzle-orm/postgres-js/migrator');
    await m.migrate(database.db as any, config);
  }
  return true;
}

/**
 * Whether the database has recorded exactly the migrations of the journal: as many rows as entries, the
 * newest stamped with the journal's last `when` (drizzle stores each migration's `when` as created_at and
 * applies those newer than the newest it has; this is that same comparison, made without the files).
 */
export async function schemaIsCurrent(database: Database): Promise<boolean> {
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_DIR, 'meta', '_journal.json'), 'utf8')) as { entries: { when: number }[] };
  const last = journal.entries.at(-1)?.when;
  const exists = await database.execute(`select to_regclass('drizzle.__drizzle_migrations') is not null as present`);
  if (last === undefined || !exists.rows[0]?.present) return false;
  const r = await database.execute('select count(*)::int as n, max(created_at)::text as newest from drizzle.__drizzle_migrations');
  return Number(r.rows[0]?.n) === journal.entries.length && Number(r.rows[0]?.newest) === last;
}

/** How many migrations the database has recorded (0 before the first `migrate`). */
export async function appliedMigrations(database: Database): Promise<number> {
  const exists = await database.execute(`select to_regclass('drizzle.__drizzle_migrations') is not null as present`);
  if (!exists.rows[0]?.present) return 0;
  const r = await database.execute('select count(*)::int as n from drizzle.__drizzle_migrations');
  return Number(r.rows[0]?.n ?? 0);
}
