// A panel judge against one of its members, through the durable queue (pg-boss on PostgreSQL), in one run:
//  1. BENCH_N answers (default 300) graded by one member at 200 ms fake latency, K = 32 calls in flight.
//  2. The same answers (a fresh run) graded by a 3-member panel, each member with its own K = 32 calls
//     in flight (concurrency 3·K: each member is its own provider with its own limits, as in use), so the
//     members' calls overlap; target: wall time within 1.2× of phase 1.
//  3. The panel at concurrency K (one shared pool of calls): what it costs when the members share one
//     pool, about members× the single judge's time — shown beside the target, not instead of it.
//  4. The panel again on phase 2's run after its grades are deleted: every call must be a cache hit
//     (no provider request), target 100%.
// Calls are counted at the fake (in this process, so the numbers are exact): calls per answer must be
// members × samples.
// Run: npm run bench -- panel   (BENCH_PG_URL, BENCH_N override)
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, openDatabase, type Database } from '../src/db/client.ts';
import { gradingQueue } from '../src/services/grading/queue.ts';
import { enqueueRunGrading } from '../src/services/grading/run-queue.ts';
import { startWorker } from '../src/services/grading/worker.ts';
import { startFakeProvider } from '../test/fake-provider/server.ts';
import { JUDGE_FILE, seedRun, VERDICTS } from '../test/jobs/helpers.ts';

const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const N = Number(process.env.BENCH_N ?? 300);
const K = 32;
const LATENCY_MS = 200;
const MEMBERS = ['bench-a', 'bench-b', 'bench-c'];

const admin = await openDatabase({ url: PG_ADMIN_URL, max: 1 });
const dbName = `assay_bench_${randomBytes(5).toString('hex')}`;
await admin.execute(`CREATE DATABASE ${dbName}`);
const url = new URL(PG_ADMIN_URL);
url.pathname = `/${dbName}`;
const database: Database = await openDatabase({ url: url.toString(), max: 16 });
const dir = mkdtempSync(join(tmpdir(), 'assay-bench-panel-'));
const fake = await startFakeProvider({ script: [VERDICTS], latencyMs: LATENCY_MS });
const keys = { anthropicApiKey: 'sk-bench', anthropicBaseUrl: fake.url };

// Three members: the fake Claude judge under three ids (three configs, three cache namespaces).
const base = readFileSync(JUDGE_FILE, 'utf8').replace(/^id: .*$/m, '');
for (const id of MEMBERS) writeFileSync(join(dir, `${id}.yaml`), `id: ${id}\n${base}`);
const panelFile = join(dir, 'bench-panel.yaml');
writeFileSync(panelFile, `id: bench-panel\nprovider: panel\nmembers: [${MEMBERS.join(', ')}]\nsamples: 1\nvote: majority\n`);

async function phase(run: string, judge: string, concurrency: number, seed = true): Promise<{ seconds: number; calls: number; graded: number }> {
  if (seed) await seedRun(database, run, N);
  const queue = gradingQueue(database, { expireInSeconds: 600 });
  await queue.boss();
  const w = await startWorker(database, { concurrency, keys, queue, pollMs: 20 });
  const calls0 = fake.calls.length;
  const t0 = performance.now();
  await enqueueRunGrading(database, queue, { run, judge });
  while (w.stats.graded + w.stats.skipped + w.stats.failed < N) await new Promise((r) => setTimeout(r, 5));
  await w.stop({ graceful: true });
  const seconds = (performance.now() - t0) / 1000;
  const graded = w.stats.graded;
  await queue.stop();
  return { seconds, calls: fake.calls.length - calls0, graded };
}

try {
  await migrate(database);
  const one = await phase('bench-one', join(dir, 'bench-a.yaml'), K);
  const panel = await phase('bench-panel', panelFile, K * MEMBERS.length);
  const shared = await phase('bench-shared', panelFile, K);
  // Phase 4: the panel's (and its members') grades of phase 2's run deleted, the cache kept.
  await database.execute(`delete from grades where answer_id in (select a.id from answers a join runs r on r.id = a.run_id where r.name = 'bench-panel')`);
  const rerun = await phase('bench-panel', panelFile, K * MEMBERS.length, false);
  const ideal = (n: number, k: number) => (Math.ceil(n / k) * LATENCY_MS) / 1000;
  const row = (name: string, r: { seconds: number; calls: number; graded: number }, k: number) =>
    `${name.padEnd(34)} ${r.seconds.toFixed(2).padStart(7)} s  (ideal ${r.calls ? `${ideal(r.calls, k).toFixed(2)} s` : '—'})  graded ${r.graded}  provider calls ${r.calls} (${(r.calls / N).toFixed(2)} per answer)`;
  console.log(`panel bench: ${N} answers, fake judge at ${LATENCY_MS} ms, ${MEMBERS.length} members × 1 sample, PostgreSQL`);
  console.log(row(`one member, concurrency ${K}`, one, K));
  console.log(row(`panel, concurrency ${K * MEMBERS.length} (${K}/member)`, panel, K * MEMBERS.length));
  console.log(row(`panel, concurrency ${K} (shared)`, shared, K));
  console.log(row('panel rerun (cache)', rerun, K * MEMBERS.length));
  const ratio = panel.seconds / one.seconds;
  const hits = 1 - rerun.calls / (N * MEMBERS.length);
  console.log(`wall-time ratio panel / one member: ${ratio.toFixed(2)}× (target ≤ 1.2×) ${ratio <= 1.2 ? 'PASS' : 'FAIL'}`);
  console.log(`calls per answer: ${(panel.calls / N).toFixed(2)} (members × samples = ${MEMBERS.length}) ${panel.calls === N * MEMBERS.length ? 'PASS' : 'FAIL'}`);
  console.log(`cache hits on the rerun: ${(hits * 100).toFixed(1)}% (target 100%) ${rerun.calls === 0 && rerun.graded === N ? 'PASS' : 'FAIL'}`);
  console.log(`shared pool of ${K}: ${(shared.seconds / one.seconds).toFixed(2)}× one member (the members' calls queue for the same slots)`);
} finally {
  await fake.close();
  await database.close();
  await admin.execute(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.close();
  rmSync(dir, { recursive: true, force: true });
}
