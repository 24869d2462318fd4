// Batch grading through the durable queue (pg-boss on PostgreSQL), in one run:
//  1. 2,000 answers, fake judge at 200 ms latency, concurrency 32: wall time against the ideal N·L/K,
//     next to the same calls made with no queue and no database (the floor of this setup).
//  2. The same at 0 ms latency: graded answers per second with full persistence (job fetch/complete,
//     shared rate-limit row, cache, ledger, grade upsert) and peak RSS at 500 and at 2,000 answers
//     (flat means memory does not grow with the run).
//  3. Calls and input tokens of those 2,000 gradings against a per-criterion tool (one call per rubric
//     item, as promptfoo's llm-rubric makes them), counted on the prompts each would send.
// Each phase runs a worker that is already up (as `assay worker` processes are): the clock starts when
// the run is enqueued and stops when the worker has written the last grade and completion.
// The fake provider (test/fake-provider) runs in a child process, as a real provider is remote: its
// CPU (HTTP parsing, JSON, the recorded-calls list) is not charged to the grader, though both still
// share this machine's cores. BENCH_FAKE_IN_PROCESS=1 runs it in this process instead. Token counts are
// the fake's (≈ 4 characters a token).
// Run: npm run bench -- batch   (BENCH_PG_URL, BENCH_N, BENCH_PHASES=1,2,3, BENCH_TRACE=1 override)
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';
import { migrate, openDatabase, type Database } from '../src/db/client.ts';
import { createAdapter } from '../src/judges/adapters/index.ts';
import { loadJudge } from '../src/judges/config.ts';
import { createJudgeEngine, defaultTemplatePath } from '../src/judges/engine.ts';
import { MemoryCache, MemoryLedger } from '../src/judges/store.ts';
import { assemblePrompt, loadTemplate } from '../src/judges/prompt.ts';
import { gradingQueue } from '../src/services/grading/queue.ts';
import { enqueueRunGrading } from '../src/services/grading/run-queue.ts';
import { startWorker } from '../src/services/grading/worker.ts';
import { startFakeProvider } from '../test/fake-provider/server.ts';
import { tokensOf } from '../test/fake-provider/wire.ts';
import { farmyard } from '../test/judges/harness.ts';
import { JUDGE_FILE, seedRun, VERDICTS } from '../test/jobs/helpers.ts';

const FAKE_CHILD = process.env.BENCH_FAKE_CHILD;
if (FAKE_CHILD !== undefined) {
  // Child mode: serve the fake until the parent closes stdin.
  const fake = await startFakeProvider({ script: [VERDICTS], latencyMs: Number(FAKE_CHILD) });
  process.stdout.write(`${fake.url}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void fake.close().then(() => process.exit(0)));
} else {
  await main();
}

interface Fake {
  url: string;
  close(): Promise<void>;
}

async function childFake(latencyMs: number): Promise<Fake> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
    env: { ...process.env, BENCH_FAKE_CHILD: String(latencyMs) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolve(buf.slice(0, nl).trim());
    });
    child.once('exit', (code) => reject(new Error(`fake provider child exited (${code})`)));
  });
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.stdin!.end();
      }),
  };
}

/** The fake provider at this latency: in a child process, or in this one with BENCH_FAKE_IN_PROCESS=1. */
function startFake(latencyMs: number): Promise<Fake> {
  return process.env.BENCH_FAKE_IN_PROCESS ? startFakeProvider({ script: [VERDICTS], latencyMs }) : childFake(latencyMs);
}

async function main(): Promise<void> {
  const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const N = Number(process.env.BENCH_N ?? 2000);
  const K = 32;
  const LATENCY_MS = 200;

  const admin = await openDatabase({ url: PG_ADMIN_URL, max: 1 });
  const dbName = `assay_bench_${randomBytes(5).toString('hex')}`;
  await admin.execute(`CREATE DATABASE ${dbName}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${dbName}`;
  const database: Database = await openDatabase({ url: url.toString(), max: Number(process.env.BENCH_POOL ?? 16) });
  const keys = { anthropicApiKey: 'sk-bench' };

  async function phase(name: string, n: number, latencyMs: number): Promise<{ seconds: number; peakRss: number; meanCalling: number; maxCalling: number; cpuMsPerGrade: number; xactPerGrade: number }> {
    const fake = await startFake(latencyMs);
    await seedRun(database, name, n);
    const queue = gradingQueue(database, { expireInSeconds: 600 });
    await queue.boss();
    // The real SDK adapter, timed: how much of a job's time is the provider call as the grader sees it.
    let callMs = 0;
    let firstCall = 0;
    let lastCallEnd = 0;
    const adapterFor = async (judge: Parameters<typeof createAdapter>[0]) => {
      const inner = await createAdapter(judge, { ...keys, anthropicBaseUrl: fake.url });
      return {
        ...inner,
        call: async (req: Parameters<typeof inner.call>[0]) => {
          const c0 = performance.now();
          firstCall ||= c0;
          try {
            return await inner.call(req);
          } finally {
            lastCallEnd = performance.now();
            callMs += lastCallEnd - c0;
          }
        },
      };
    };
    // A worker that is already up, as `assay worker` processes are when a run is enqueued: its SDK is
    // loaded (startWorker preloads it) and it polls the queue. The clock starts at the enqueue.
    const w = await startWorker(database, { concurrency: K, keys, adapterFor, queue, pollMs: 20 });
    await import('../src/judges/adapters/anthropic.ts');
    let peakRss = process.memoryUsage().rss;
    const calling: number[] = [];
    const jobs: number[] = [];
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
      calling.push(w.stats.calling);
      jobs.push(w.stats.inFlight);
    }, 100);
    // Load-independent figures: this process's CPU per grade, and statements (each its own transaction,
    // so one round trip) per grade from PostgreSQL's counter for the bench database.
    const xacts = async () => Number((await database.execute(`select xact_commit + xact_rollback as n from pg_stat_database where datname = current_database()`)).rows[0]?.n);
    const x0 = await xacts();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await enqueueRunGrading(database, queue, { run: name, judge: JUDGE_FILE });
    const enqueued = performance.now();
    while (w.stats.graded + w.stats.skipped + w.stats.failed < n) await new Promise((r) => setTimeout(r, 5));
    // Stopped (the last completions written to the queue) before the clock stops.
    await w.stop({ graceful: true });
    const end = performance.now();
    const seconds = (end - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    clearInterval(sampler);
    // pg_stat counters are sent by backends at transaction end and flushed at most once a second.
    await new Promise((r) => setTimeout(r, 1100));
    const xactPerGrade = ((await xacts()) - x0) / n;
    const cpuMsPerGrade = (cpu.user + cpu.system) / 1000 / n;
    await queue.stop();
    await fake.close();
    if (w.stats.graded !== n) throw new Error(`${name}: graded ${w.stats.graded} of ${n}`);
    const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
    if (process.env.BENCH_TRACE) {
      console.log(`   [${name}] enqueue ${(enqueued - t0).toFixed(0)} ms, first call after ${(firstCall - t0).toFixed(0)} ms, last call ended ${(end - lastCallEnd).toFixed(0)} ms before the end`);
      console.log(`   [${name}] provider call ${(callMs / n).toFixed(1)} ms on average as the grader sees it; jobs held ${mean(jobs).toFixed(1)} on average`);
      const gc = (globalThis as { gc?: () => void }).gc;
      if (gc) (gc(), console.log(`   [${name}] heap after a full GC: ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(1)} MB (node --expose-gc)`));
    }
    return { seconds, peakRss, meanCalling: mean(calling), maxCalling: Math.max(0, ...calling), cpuMsPerGrade, xactPerGrade };
  }

  /** N gradings through the engine and the real SDK against the fake, K at a time, cache and ledger in memory. */
  async function bareCalls(n: number, latencyMs: number): Promise<number> {
    const fake = await startFake(latencyMs);
    const judge = loadJudge(JUDGE_FILE);
    const adapter = await createAdapter(judge, { ...keys, anthropicBaseUrl: fake.url });
    const engine = createJudgeEngine({ judge, adapter, cache: new MemoryCache(), ledger: new MemoryLedger() });
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: K }, async () => {
        for (let i = next++; i < n; i = next++) await engine.grade({ rubric: farmyard, answer: `bare answer ${i}: a farmyard with a red barn, ${i} hens and a tractor.`, answerId: String(i) });
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    await fake.close();
    return seconds;
  }

  const phases = new Set((process.env.BENCH_PHASES ?? '1,2,3').split(','));
  try {
    await migrate(database);
    console.log(`batch grading bench on PostgreSQL, ${N} answers, concurrency ${K}; load average ${loadavg()[0]!.toFixed(1)} on this machine`);

    if (phases.has('1')) {
      const slow = await phase('bench-latency', N, LATENCY_MS);
      const ideal = (N * LATENCY_MS) / 1000 / K;
      const bare = await bareCalls(N, LATENCY_MS);
      console.log(`\n1. ${LATENCY_MS} ms judge latency: wall ${slow.seconds.toFixed(2)} s, ideal N·L/K = ${ideal.toFixed(2)} s, ratio ${(slow.seconds / ideal).toFixed(3)} (target ≤ 1.10)`);
      console.log(`   the same ${N} calls with no queue and no database (engine and SDK only, ${K} at a time): ${bare.toFixed(2)} s, ratio ${(bare / ideal).toFixed(3)} — this setup's floor (the fake answers each burst of requests one by one)`);
      console.log(`   provider calls in flight (sampled every 100 ms): mean ${slow.meanCalling.toFixed(1)}, max ${slow.maxCalling} of ${K}; grader CPU ${slow.cpuMsPerGrade.toFixed(2)} ms/grade`);
    }
    if (!phases.has('2') && !phases.has('3')) return;

    const small = await phase('bench-fast-small', Math.round(N / 4), 0);
    const fast = await phase('bench-fast', N, 0);
    const mb = (b: number) => (b / 2 ** 20).toFixed(0);
    console.log(`\n2. 0 ms latency: ${(N / fast.seconds).toFixed(0)} graded answers/s with full persistence (target ≥ 300/s on 2 cores)`);
    console.log(`   grader CPU ${fast.cpuMsPerGrade.toFixed(2)} ms per grade (this process); ${fast.xactPerGrade.toFixed(1)} statements per grade (pg_stat_database)`);
    console.log(`   peak RSS ${mb(small.peakRss)} MB at ${Math.round(N / 4)} answers, ${mb(fast.peakRss)} MB at ${N}; ratio ${(fast.peakRss / small.peakRss).toFixed(2)} (flat ≈ 1)`);
    if (!phases.has('3')) return;

    // 3. The prompts each approach sends for the same gradings: one call with every item, or one per item.
    const judge = loadJudge(JUDGE_FILE);
    const template = loadTemplate(defaultTemplatePath(judge));
    const answers = await database.execute(`select a.text from answers a join runs r on r.id = a.run_id where r.name = 'bench-fast' order by a.id`);
    let oursTokens = 0;
    let perItemTokens = 0;
    const size = (p: ReturnType<typeof assemblePrompt>) => tokensOf(p.system.length + p.staticText.length + p.answerText.length);
    for (const { text } of answers.rows) {
      oursTokens += size(assemblePrompt(template, farmyard, text, { boundary: 'B' }));
      for (const item of farmyard.items) perItemTokens += size(assemblePrompt(template, { ...farmyard, items: [item] }, text, { boundary: 'B' }));
    }
    const ledger = await database.execute(
      `select count(*)::int as calls, sum(l.input_tokens + l.cache_read_tokens + l.cache_write_tokens)::float8 as input from usage_ledger l join answers a on a.id = l.answer_id join runs r on r.id = a.run_id where r.name = 'bench-fast'`,
    );
    const items = farmyard.items.length;
    console.log(`\n3. ${N} gradings with the ${items}-item farmyard rubric:`);
    console.log(`   assay (one call, all items):  ${N} calls (ledger: ${ledger.rows[0].calls}), ${oursTokens} input tokens (ledger, measured by the fake: ${ledger.rows[0].input})`);
    console.log(`   per criterion (llm-rubric):   ${N * items} calls, ${perItemTokens} input tokens`);
    console.log(`   ratio per-criterion / assay:  calls ×${items.toFixed(0)}, input tokens ×${(perItemTokens / oursTokens).toFixed(2)}`);
  } finally {
    await database.close();
    await admin.execute(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.close();
  }
}
