// Reports under load (issue 11 finding 10, issue 15 item 5): the real server (src/main.ts, spawned) on
// embedded PGlite, first on the seeded examples, then on the examples plus 10,000 generated answers
// (4 models × 4 size buckets, bench/lib/report-db.ts). For each database it prints
//   - server time per report page: cold (first request after a write, so the cache is empty; the first
//     ever also starts the report thread) and warm (cached), as wall ms on loopback and server CPU ms
//     (all the server's threads, from /proc);
//   - /health p50/p99 while 8 leaderboard pages (GET /) are in flight without pause, from a load
//     generator in a second process (bench/lib/report-load-gen.ts): once with the cache warm, once with
//     a write every second (each write empties the cache, so the leaderboard is recomputed under load);
//   - the ratios to the targets: /health p99 ≤ 50 ms, each page ≤ 150 ms of server time.
//   npm run bench -- report-load     (BENCH_SECONDS per load phase, default 10; BENCH_ANSWERS, default 10000)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate, openDatabase } from '../src/db/client.ts';
import { seedExamples } from '../src/services/seed.ts';
import { fillReportDatabase } from './lib/report-db.ts';

import { startServer, stopServer, type StartedServer as Started } from './lib/server-process.ts';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ANSWERS = Number(process.env.BENCH_ANSWERS ?? 10_000);
const IN_FLIGHT = 8;
const HEALTH_EVERY_MS = 20;
const HEALTH_TARGET_MS = 50;
const PAGE_TARGET_MS = 150;
const PAGES = ['/', '/calibration', '/describe-then-solve', '/benchmarks', '/api/reports/leaderboard', '/api/reports/calibration'];


/** CPU seconds (user + system, every thread) a process has used so far, from /proc (Linux). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function timed(s: Started, path: string): Promise<{ ms: number; cpuMs: number; status: number }> {
  const cpu0 = cpuSeconds(s.child.pid!);
  const t0 = performance.now();
  const res = await fetch(new URL(path, s.url), { headers: { authorization: `Bearer ${s.key}` } });
  await res.arrayBuffer();
  return { ms: performance.now() - t0, cpuMs: (cpuSeconds(s.child.pid!) - cpu0) * 1000, status: res.status };
}

/** Any committed write moves the data version, so every cached report is recomputed on its next request. */
let writes = 0;
async function write(s: Started): Promise<void> {
  const res = await fetch(new URL('/api/keys', s.url), {
    method: 'POST',
    headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ scopes: ['read'], name: `report-load bench ${++writes}` }),
  });
  if (res.status !== 201) throw new Error(`write failed: ${res.status} ${await res.text()}`);
}

const quantile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))]! : NaN;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** /health latencies, one request at a time every HEALTH_EVERY_MS, until `done` resolves. */
async function sampleHealth(s: Started, done: Promise<unknown>): Promise<number[]> {
  let finished = false;
  void done.then(() => (finished = true));
  const out: number[] = [];
  while (!finished) {
    const t0 = performance.now();
    const res = await fetch(new URL('/health', s.url));
    await res.arrayBuffer();
    out.push(performance.now() - t0);
    await sleep(Math.max(0, HEALTH_EVERY_MS - (performance.now() - t0)));
  }
  return out;
}

interface Load {
  requests: number;
  statuses: Record<string, number>;
  p50: number;
  p99: number;
}

function runLoad(s: Started, paths: string[]): Promise<Load> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/report-load-gen.ts', s.url, paths.join(','), String(IN_FLIGHT), String(SECONDS), s.key], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as Load) : reject(new Error(`load generator exited ${code}`))));
  });
}

async function loadPhase(s: Started, withWrites: boolean, path = '/'): Promise<{ health: number[]; load: Load; writes: number }> {
  const w0 = writes;
  const load = runLoad(s, [path]);
  let writing = withWrites;
  const writer = (async () => {
    while (writing) {
      await sleep(1000);
      if (writing) await write(s);
    }
  })();
  const health = await sampleHealth(s, load);
  writing = false;
  await writer;
  return { health, load: await load, writes: writes - w0 };
}

const f = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '—');

async function scenario(label: string, dataDir: string): Promise<void> {
  const s = await startServer({ ASSAY_DATA_DIR: dataDir, DATABASE_URL: '' });
  try {
    const idle = await sampleHealth(s, sleep(2000));
    const first = new Map<string, Awaited<ReturnType<typeof timed>>>();
    for (const p of PAGES) first.set(p, await timed(s, p));
    await write(s);
    const cold = new Map<string, Awaited<ReturnType<typeof timed>>>();
    for (const p of PAGES) cold.set(p, await timed(s, p));
    const warm = new Map<string, Array<Awaited<ReturnType<typeof timed>>>>();
    for (const p of PAGES) {
      const xs: Array<Awaited<ReturnType<typeof timed>>> = [];
      for (let i = 0; i < 20; i++) xs.push(await timed(s, p));
      warm.set(p, xs);
    }
    const steady = await loadPhase(s, false);
    const churn = await loadPhase(s, true);
    const api = await loadPhase(s, false, '/api/reports/leaderboard');
    // The floor: 8 requests of the cheapest route in flight (what any 8 busy clients cost /health).
    const floor = await loadPhase(s, false, '/health');

    console.log(`\n== ${label}`);
    console.log(`/health alone: p50 ${f(quantile(idle, 0.5))} ms, p99 ${f(quantile(idle, 0.99))} ms (${idle.length} samples)`);
    console.log(`\n${'page'.padEnd(28)} ${'first ms'.padStart(9)} ${'cold ms'.padStart(8)} ${'cold CPU'.padStart(9)} ${'warm ms'.padStart(8)} ${'warm CPU'.padStart(9)}  target ${PAGE_TARGET_MS} ms (warm)`);
    for (const p of PAGES) {
      const w = warm.get(p)!;
      const wm = quantile(w.map((x) => x.ms), 0.5);
      const wc = w.reduce((t, x) => t + x.cpuMs, 0) / w.length;
      const statuses = [...new Set([first.get(p)!.status, cold.get(p)!.status, ...w.map((x) => x.status)])].join('/');
      console.log(
        `${p.padEnd(28)} ${f(first.get(p)!.ms).padStart(9)} ${f(cold.get(p)!.ms).padStart(8)} ${f(cold.get(p)!.cpuMs, 0).padStart(9)} ${f(wm).padStart(8)} ${f(wc).padStart(9)}  ${f(wm / PAGE_TARGET_MS, 2)}× of target${statuses === '200' ? '' : `  (statuses ${statuses})`}`,
      );
    }
    for (const [name, r] of [
      ['GET / in flight, cache warm', steady],
      [`GET / in flight, a write every second (${churn.writes} writes, each recomputes the leaderboard)`, churn],
      ['GET /api/reports/leaderboard in flight, cache warm', api],
      ['GET /health in flight (the floor: no report at all)', floor],
    ] as const) {
      const p99 = quantile(r.health, 0.99);
      console.log(
        `\n${IN_FLIGHT} ${name}: ${r.load.requests} requests in ${SECONDS} s (p50 ${f(r.load.p50)} ms, p99 ${f(r.load.p99)} ms, statuses ${JSON.stringify(r.load.statuses)})\n` +
          `  /health p50 ${f(quantile(r.health, 0.5))} ms, p99 ${f(p99)} ms, max ${f(Math.max(...r.health))} ms over ${r.health.length} samples → ${f(p99 / HEALTH_TARGET_MS, 2)}× of the ${HEALTH_TARGET_MS} ms target (${p99 <= HEALTH_TARGET_MS ? 'met' : 'NOT met'}); ` +
          `${f(p99 / quantile(idle, 0.99), 2)}× the p99 of /health alone`,
      );
    }
  } finally {
    await stopServer(s);
  }
}

const loadBefore = loadavg()[0]!;
console.log(`report-load: ${IN_FLIGHT} leaderboard pages in flight, ${SECONDS} s per load phase, /health sampled every ${HEALTH_EVERY_MS} ms; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')} (2 cores)`);

const seededDir = mkdtempSync(join(tmpdir(), 'assay-report-load-'));
try {
  await scenario('seeded examples (what npm start loads)', seededDir);
} finally {
  rmSync(seededDir, { recursive: true, force: true });
}

const bigDir = mkdtempSync(join(tmpdir(), 'assay-report-load-'));
try {
  const t0 = performance.now();
  const database = await openDatabase({ dataDir: bigDir });
  try {
    await migrate(database);
    await seedExamples(database);
    const g = await fillReportDatabase(database, ANSWERS);
    console.log(`\ngenerated ${g.answers} answers (${g.descriptions} graded descriptions, ${g.assemblies} scored assemblies, ${g.labels} labels) in ${f((performance.now() - t0) / 1000)} s`);
  } finally {
    await database.close();
  }
  await scenario(`seeded examples + ${ANSWERS} generated answers (4 models × 4 size buckets)`, bigDir);
} finally {
  rmSync(bigDir, { recursive: true, force: true });
}
console.log(`\nmachine load average (1 min): ${loadBefore.toFixed(2)} before, ${loadavg()[0]!.toFixed(2)} after (2 cores, shared with other work: figures above ~2 are inflated)`);
