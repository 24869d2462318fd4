import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, ftruncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase, type Database } from '../../src/db/client.ts';
import { seedExamples } from '../../src/services/seed.ts';
import { FIXTURES, runCliAsync, type CliRunAsync } from '../helpers/cli.ts';
import { ENGINES, openTestDatabase } from '../helpers/db.ts';

/**
 * The CLI bad-input corpus (test/fixtures/bad-input/cli.json) through the real binary, on a seeded
 * database: every case exits 2 with one stderr line saying what it should, prints nothing on stdout,
 * ends by itself (a process still alive after CASE_TIMEOUT_MS is killed and fails), and no row of any
 * table changes. Cases that open the database run one at a time (one PGlite directory has one
 * owner); the others run a few at once to keep the suite short.
 */

interface Case {
  name: string;
  args: string[];
  stderr: string;
  db?: boolean;
  owner?: string;
}

const corpus = JSON.parse(readFileSync(join(FIXTURES, 'bad-input', 'cli.json'), 'utf8')) as { cases: Case[] };
const BAD = join(FIXTURES, 'bad-input', 'files');
const CASE_TIMEOUT_MS = 60_000;
const PARALLEL = 3;

/** Rows of every table assay writes: the public schema and pg-boss's jobs. */
async function allRowCounts(database: Database): Promise<Record<string, number>> {
  const tables = await database.execute(
    `select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`,
  );
  const out: Record<string, number> = {};
  for (const { table_name } of tables.rows) out[table_name] = Number((await database.execute(`select count(*)::int as n from "${table_name}"`)).rows[0].n);
  // pg-boss creates its schema on first use: absent and empty both count as no jobs.
  const boss = await database.execute(`select to_regclass('pgboss.job') is not null as ok`);
  out['pgboss.job'] = boss.rows[0]?.ok ? Number((await database.execute('select count(*)::int as n from pgboss.job')).rows[0].n) : 0;
  return out;
}

function expand(arg: string, tmp: string): string {
  return arg
    .replaceAll('{bad}', BAD)
    .replaceAll('{fx}', FIXTURES.replace(/\/$/, ''))
    .replaceAll('{tmp}', tmp)
    .replace(/\{long:(\d+)\}/g, (_, n: string) => 'x'.repeat(Number(n)));
}

/** Files too big (or too odd) to commit: made for each run. */
function makeTmpFiles(tmp: string): void {
  mkdirSync(join(tmp, 'adir'));
  // Sparse: past the 128 MiB input cap on paper, a few bytes on disk.
  const fd = openSync(join(tmp, 'huge.json'), 'w');
  ftruncateSync(fd, 129 * 1024 * 1024);
  closeSync(fd);
  // Valid YAML, over the 4 MiB YAML cap.
  writeFileSync(join(tmp, 'big.yaml'), `id: big\nnotes:\n${'  - "padding padding padding padding padding padding padding padding"\n'.repeat(70_000)}`);
}

async function pool<T, R>(items: T[], limit: number, fn: (x: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

it('the corpus covers at least 40 inputs over every command that reads files', () => {
  expect(corpus.cases.length).toBeGreaterThanOrEqual(40);
  const commands = new Set(corpus.cases.map((c) => c.args.slice(0, 2).join(' ')));
  for (const cmd of ['score grid', 'score description', 'score choice', 'score tangram', 'calibrate --labels', 'analyze ratings', 'analyze describe-then-solve', 'import rubrics', 'import puzzles', 'import answers', 'import labels', 'stats kappa', 'stats alpha', 'stats icc', 'grade --rubric', 'run --run', 'jobs retry', 'jobs cancel', 'keys create', 'keys revoke']) {
    expect(commands, cmd).toContain(cmd);
  }
  expect(new Set(corpus.cases.map((c) => c.name)).size).toBe(corpus.cases.length);
});

for (const engine of ENGINES) {
  describe(`CLI bad-input corpus [${engine}]`, () => {
    const tmp = mkdtempSync(join(tmpdir(), 'assay-bad-input-'));
    let env: NodeJS.ProcessEnv = {};
    let open: () => Promise<Database>;
    let drop: (() => Promise<void>) | undefined;
    let before: Record<string, number> = {};
    const results = new Map<string, CliRunAsync>();

    beforeAll(async () => {
      makeTmpFiles(tmp);
      if (engine === 'postgres') {
        const t = await openTestDatabase('postgres');
        await t.database.close();
        env = { DATABASE_URL: t.url, ASSAY_DATA_DIR: join(tmp, 'unused-data') };
        open = () => openDatabase({ url: t.url!, max: 1 });
        drop = t.drop;
      } else {
        const dataDir = join(tmp, 'data');
        env = { DATABASE_URL: '', ASSAY_DATA_DIR: dataDir };
        open = () => openDatabase({ dataDir });
      }
      // Keys the judges could use are removed: every case must fail on its input, never reach a provider.
      for (const k of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'ANTHROPIC_BASE_URL', 'OPENAI_BASE_URL']) env[k] = '';
      const database = await open();
      try {
        await migrate(database);
        await seedExamples(database);
        before = await allRowCounts(database);
      } finally {
        await database.close();
      }
      const run = async (c: Case) => {
        results.set(c.name, await runCliAsync(c.args.map((a) => expand(a, tmp)), { env, timeoutMs: CASE_TIMEOUT_MS }));
      };
      await pool(corpus.cases.filter((c) => !c.db), PARALLEL, run);
      // One owner per PGlite directory: database cases one at a time (PostgreSQL could take more).
      await pool(corpus.cases.filter((c) => c.db), engine === 'postgres' ? PARALLEL : 1, run);
    }, 600_000);

    afterAll(async () => {
      await drop?.().catch(() => {});
      rmSync(tmp, { recursive: true, force: true });
    });

    it.each(corpus.cases.map((c) => [c.name, c] as const))('%s: exit 2, one line, ends by itself', (_, c) => {
      const r = results.get(c.name)!;
      const lines = r.stderr.split('\n').filter((l) => l !== '');
      expect({ timedOut: r.timedOut, code: r.code, stdout: r.stdout, lines: lines.length }, r.stderr).toEqual({ timedOut: false, code: 2, stdout: '', lines: 1 });
      expect(lines[0]).toMatch(new RegExp(c.stderr));
    });

    it('changed no row of any table', async () => {
      const database = await open();
      try {
        expect(before.answers).toBeGreaterThan(0);
        expect(await allRowCounts(database)).toEqual(before);
      } finally {
        await database.close();
      }
    });
  });
}
