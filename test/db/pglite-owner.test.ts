import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { withExclusive } from '../../src/db/exclusive.ts';
import { openPgliteDirectory } from '../../src/db/pglite-directory.ts';
import { OWNER_DIR } from '../../src/db/pglite-owner.ts';
import { isAssayError } from '../../src/domain/errors.ts';
import { ROOT } from '../helpers/cli.ts';

/**
 * One owner per PGlite directory (issue 11, finding 1): a second open goes through the owner's socket,
 * transactions on either side never swallow the other's statements, dead owners' locks are taken over
 * by exactly one process, and an owner that does not answer is named instead of bypassed.
 */

const root = mkdtempSync(join(tmpdir(), 'assay-own-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshDir = () => join(root, `d${++n}`);

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** Starts test/helpers/pglite-child.ts and resolves with it once it prints its first line. */
function child(args: string[]): Promise<{ proc: ChildProcess; line: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/pglite-child.ts', ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    children.push(proc);
    let out = '';
    let err = '';
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve({ proc, line: out.slice(0, nl) });
    });
    proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    proc.once('exit', (code) => reject(new Error(`child ${args.join(' ')} exited ${code}: ${err}`)));
  });
}

const killed = (proc: ChildProcess) => new Promise<void>((resolve) => (proc.exitCode !== null || proc.signalCode !== null ? resolve() : proc.once('exit', () => resolve())));
const sqlOf = (d: Database) => (d.db as unknown as { $client: any }).$client;
const tick = () => new Promise((r) => setTimeout(r, 50));

/** One directory for the suite (creating one costs an initdb); each test works in its own table. */
const shared = join(root, 'shared');
let owner: Database;
let tables = 0;
async function freshTable(): Promise<string> {
  const t = `t${++tables}`;
  await owner.execute(`create table ${t} (id int primary key)`);
  return t;
}
const idsOf = async (d: Database, t: string) => (await d.execute(`select id from ${t} order by id`)).rows.map((r) => Number(r.id));

describe('a second open of an owned PGlite directory', () => {
  // A client holding a transaction quiet for 3 s is cut off (the last test shows it).
  beforeAll(async () => {
    owner = await openPgliteDirectory(shared, { idleMs: 3000 });
  });
  afterAll(async () => {
    await owner.close();
  });

  it('goes through the owner: each side sees the other’s writes at once', async () => {
    const t = await freshTable();
    const client = await openDatabase({ dataDir: shared });
    try {
      expect(owner.kind).toBe('pglite');
      expect(owner.owner).toBeUndefined();
      expect(client.kind).toBe('postgres');
      expect(client.owner?.info.pid).toBe(process.pid);
      expect(client.owner?.info.socket).toBe(join(shared, OWNER_DIR, '.s.PGSQL.5432'));
      await client.execute(`insert into ${t} values ($1)`, [1]);
      expect(await idsOf(owner, t)).toEqual([1]);
      await owner.execute(`insert into ${t} values (2)`);
      expect(await idsOf(client, t)).toEqual([1, 2]);
    } finally {
      await client.close();
    }
  });

  it('a client transaction keeps the owner’s statements out: neither side’s rollback takes the other’s rows', async () => {
    const t = await freshTable();
    const client = await openDatabase({ dataDir: shared });
    const conn = await sqlOf(client).reserve();
    try {
      await conn.unsafe('begin');
      await conn.unsafe(`insert into ${t} values (1)`);
      // While the client's transaction is open, the owner rolls a transaction back and writes a row.
      const ownerTx = owner.db.transaction(async (tx) => {
        await tx.execute(sql.raw(`insert into ${t} values (2)`));
        throw new Error('owner rolls back');
      });
      const ownerTxDone = ownerTx.then(() => 'committed', (e: Error) => e.message);
      const ownerWrite = owner.execute(`insert into ${t} values (3)`);
      await tick();
      // Inside its transaction the client sees only its own row: nothing of the owner ran in it.
      expect((await conn.unsafe(`select id from ${t} order by id`)).map((r: { id: number }) => r.id)).toEqual([1]);
      await conn.unsafe('rollback');
      expect(await ownerTxDone).toBe('owner rolls back');
      await ownerWrite;
      expect(await idsOf(owner, t)).toEqual([3]);
    } finally {
      conn.release();
      await client.close();
    }
  });

  it('an owner transaction keeps a client’s statements out: the client’s row survives the owner’s rollback', async () => {
    const t = await freshTable();
    const client = await openDatabase({ dataDir: shared });
    try {
      let clientWrite: Promise<unknown> | undefined;
      const outcome = await owner.db
        .transaction(async (tx) => {
          await tx.execute(sql.raw(`insert into ${t} values (10)`));
          clientWrite = client.execute(`insert into ${t} values (11)`);
          await tick();
          const seen = (await tx.execute(sql.raw(`select id from ${t} order by id`))) as unknown as { rows: Array<{ id: number }> };
          expect(seen.rows.map((r) => r.id)).toEqual([10]);
          throw new Error('owner rolls back');
        })
        .catch((e: Error) => e.message);
      expect(outcome).toBe('owner rolls back');
      await clientWrite;
      expect(await idsOf(owner, t)).toEqual([11]);
    } finally {
      await client.close();
    }
  });

  it('two clients at once: each parameterised query gets its own result, and one’s transaction holds the other off', async () => {
    const t = await freshTable();
    const a = await openDatabase({ dataDir: shared });
    const b = await openDatabase({ dataDir: shared });
    try {
      const ask = (d: Database, base: number) =>
        Promise.all(Array.from({ length: 100 }, (_, i) => d.execute('select $1::int + 0 as v', [base + i]).then((r) => Number(r.rows[0].v))));
      const [ra, rb] = await Promise.all([ask(a, 0), ask(b, 1000)]);
      expect(ra).toEqual(Array.from({ length: 100 }, (_, i) => i));
      expect(rb).toEqual(Array.from({ length: 100 }, (_, i) => 1000 + i));

      const conn = await sqlOf(a).reserve();
      await conn.unsafe('begin');
      await conn.unsafe(`insert into ${t} values (20)`);
      const bWrite = b.execute(`insert into ${t} values (21)`);
      await tick();
      await conn.unsafe('rollback');
      conn.release();
      await bWrite;
      expect(await idsOf(owner, t)).toEqual([21]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a client killed inside a transaction leaves nothing behind, and the owner goes on', async () => {
    const t = await freshTable();
    const { proc, line } = await child(['tx', shared, t, '30']);
    expect(line).toBe('in-tx client');
    proc.kill('SIGKILL');
    await killed(proc);
    await owner.execute(`insert into ${t} values (31)`);
    expect(await idsOf(owner, t)).toEqual([31]);
  });

  it('withExclusive on a PGlite directory excludes across processes that reach it', async () => {
    const client = await openDatabase({ dataDir: shared });
    try {
      const inner = await withExclusive(owner, 'job:1', 'busy', () =>
        withExclusive(client, 'job:1', 'busy', async () => 'both held').catch((e) => (isAssayError(e) ? e.code : String(e))),
      );
      expect(inner).toBe('conflict');
      expect(await withExclusive(client, 'job:1', 'busy', async () => 'free again')).toBe('free again');
    } finally {
      await client.close();
    }
  });

  it('a client that holds a transaction and goes quiet is disconnected and rolled back', async () => {
    const t = await freshTable();
    const client = await openDatabase({ dataDir: shared });
    try {
      const conn = await sqlOf(client).reserve();
      await conn.unsafe('begin');
      await conn.unsafe(`insert into ${t} values (40)`);
      // The owner's statement waits for the quiet client, which is then cut off.
      await owner.execute(`insert into ${t} values (41)`);
      expect(await idsOf(owner, t)).toEqual([41]);
      await expect(conn.unsafe('commit')).rejects.toThrow();
    } finally {
      await client.close().catch(() => {});
    }
  });
});

describe('the owner lock', () => {
  it('is removed when the owner closes; the next open owns the directory, with the rows', async () => {
    expect(readdirSync(join(shared, OWNER_DIR)).filter((f) => f.endsWith('.json'))).toEqual([]);
    const next = await openDatabase({ dataDir: shared });
    try {
      expect(next.owner).toBeUndefined();
      expect(await idsOf(next, 't1')).toEqual([1, 2]);
    } finally {
      await next.close();
    }
  }, 60_000);

  it('left by a SIGKILLed owner is taken over, with the data intact', async () => {
    const { proc, line } = await child(['own', shared]);
    expect(line).toMatch(/^owner \d+$/);
    proc.kill('SIGKILL');
    await killed(proc);
    expect(readdirSync(join(shared, OWNER_DIR)).filter((f) => f.endsWith('.json'))).toHaveLength(1);
    const next = await openDatabase({ dataDir: shared });
    try {
      expect(next.kind).toBe('pglite');
      expect(next.owner).toBeUndefined();
      expect(await idsOf(next, 't1')).toEqual([1, 2]);
    } finally {
      await next.close();
    }
  }, 90_000);

  it('held by a short command: a server waits for it and then owns the directory', async () => {
    const { proc, line } = await child(['claim', shared]);
    expect(line).toBe('owned');
    const waitedFor: number[] = [];
    const opened = openPgliteDirectory(shared, {
      waitForShortLivedOwner: (o) => {
        waitedFor.push(o.pid);
        proc.kill('SIGKILL');
      },
    });
    const next = await opened;
    try {
      expect(waitedFor).toEqual([proc.pid]);
      expect(next.owner).toBeUndefined();
      expect(await idsOf(next, 't1')).toEqual([1, 2]);
    } finally {
      await next.close();
    }
  }, 90_000);

  it('of a dead owner, claimed by six processes at once, has exactly one new owner', async () => {
    const dir = freshDir();
    mkdirSync(join(dir, OWNER_DIR), { recursive: true });
    const { proc: dead } = await child(['claim', dir]);
    dead.kill('SIGKILL');
    await killed(dead);
    const lines = (await Promise.all(Array.from({ length: 6 }, () => child(['claim', dir])))).map((c) => c.line);
    expect(lines.filter((l) => l === 'owned')).toHaveLength(1);
    const winner = children.find((c, i) => i > 0 && lines[i - 1] === 'owned')!;
    expect(lines.filter((l) => l === `taken ${winner.pid}`)).toHaveLength(5);
  }, 60_000);

  it('naming a live process whose socket is gone: the open fails naming it, and nothing is opened', async () => {
    const dir = freshDir();
    mkdirSync(join(dir, OWNER_DIR), { recursive: true });
    const { proc: sleeper } = await child(['claim', freshDir()]);
    const lock = {
      generation: 7,
      pid: sleeper.pid,
      startTicks: null,
      host: hostname(),
      startedAt: '2026-01-01T00:00:00.000Z',
      command: 'assay serve',
      socket: join(dir, OWNER_DIR, 'gone.sock'),
      token: 'feedfacefeedfacefeedface',
    };
    writeFileSync(join(dir, OWNER_DIR, '7.json'), JSON.stringify(lock));
    const err = await openDatabase({ dataDir: dir }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isAssayError(err) && err.code).toBe('unavailable');
    expect((err as Error).message).toContain(`in use by assay pid ${sleeper.pid} (assay serve`);
    expect((err as Error).message).toContain(`socket ${lock.socket}`);
    expect(existsSync(join(dir, OWNER_DIR, '7.json'))).toBe(true);
    expect(existsSync(join(dir, 'PG_VERSION'))).toBe(false);
  });
});
