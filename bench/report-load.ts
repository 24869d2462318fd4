// Reports under load (issue 11 finding 10, issue 15 item 5): the real server (src/main.ts, spawned) on
// embedded PGlite, first on the seeded examples, then on the examples plus 10,000 generated answers
// (4 models × 4 size buckets, bench/lib/report-db.ts). For each database it prints
//   - server time per report page: cold (first request after a regrade, so every report recomputes; the
//     first ever also starts the report thread) and warm (cached), as wall ms on loopback and server CPU ms
//     (all the server's threads, from /proc);
//   - /health p50/p99 while 8 leaderboard pages (GET /) are in flight without pause, from a load
//     generator in a second process (bench/lib/report-load-gen.ts): with the cache warm, and with a write
//     every second of each kind (an API key: no report reads it; a human label; a regrade: the
//     leaderboard recomputes), then 8 × the API leaderboard and the floor (8 × /health);
//   - every target with its ratio, for both databases, at the end: each page ≤ 150 ms of server time
//     (cached, and the first request after a regrade), /health p99 ≤ 50 ms under each load.
//   npm run bench -- report-load     (BENCH_SECONDS per load phase, default 10; BENCH_ANSWERS, default 10000)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate, openDatabase, type Database } from '../src/db/client.ts';
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

/**
 * The writes of the load phases, one a second. An API key (a table no report reads: since migration 0008
 * it invalidates nothing), a human label (calibration reads it; the leaderboard page re-renders around its
 * cached leaderboard), a regrade (a grade rewritten: the leaderboard itself is recomputed). The label and
 * grade come from a second process's connection, as a grading worker's or the CLI's would.
 */
type WriteKind = 'key' | 'label' | 'grade';
let writes = 0;
async function write(s: Started, kind: WriteKind, other?: Database): Promise<void> {
  writes++;
  if (kind === 'key') {
    const res = await fetch(new URL('/api/keys', s.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ scopes: ['read'], name: `report-load bench ${writes}` }),
    });
    if (res.status !== 201) throw new Error(`write failed: ${res.status} ${await res.text()}`);
    return;
  }
  if (kind === 'label') {
    await other!.execute(
      `insert into labels (answer_id, item_key, annotator, kind, label)
       select id, 'item-0', 'report-load bench ' || $1::text, 'human', 'correct' from answers where task = 'describe' order by id limit 1`,
      [String(writes)],
    );
    return;
  }
  // The same grade written again with a new F1 (a regrade): the leaderboard's numbers move.
  await other!.execute(`update grades set f1 = case when f1 > 0.5 then f1 - 0.01 else f1 + 0.01 end where id = (select min(id) from grades where status = 'ok')`);
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

async function loadPhase(s: Started, writeKind: WriteKind | null, path = '/', other?: Database): Promise<{ health: number[]; load: Load; writes: number }> {
  const w0 = writes;
  const load = runLoad(s, [path]);
  let writing = writeKind !== null;
  const writer = (async () => {
    while (writing) {
      await sleep(1000);
      if (writing) await write(s, writeKind!, other);
    }
  })();
  const health = await sampleHealth(s, load);
  writing = false;
  await writer;
  return { health, load: await load, writes: writes - w0 };
}

const f = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '—');

type Timed = Awaited<ReturnType<typeof timed>>;
interface Target {
  what: string;
  measured: number;
  target: number;
}

/** One database: pages cold (after a regrade, so every report recomputes) and warm, then the load phases. */
async function scenario(label: string, dataDir: string): Promise<Target[]> {
  const s = await startServer({ ASSAY_DATA_DIR: dataDir, DATABASE_URL: '' });
  // A second process's connection to the server's PGlite directory (through its owner), for the writes.
  const other = await openDatabase({ dataDir });
  try {
    const idle = await sampleHealth(s, sleep(2000));
    const first = new Map<string, Timed>();
    for (const p of PAGES) first.set(p, await timed(s, p));
    await write(s, 'grade', other);
    const cold = new Map<string, Timed>();
    for (const p of PAGES) cold.set(p, await timed(s, p));
    const warm = new Map<string, Timed[]>();
    for (const p of PAGES) {
      const xs: Timed[] = [];
      for (let i = 0; i < 20; i++) xs.push(await timed(s, p));
      warm.set(p, xs);
    }
    const phases = [
      ['GET / in flight, cache warm', await loadPhase(s, null)],
      ['GET / in flight, an API key created every second (a table no report reads)', await loadPhase(s, 'key')],
      ['GET / in flight, a human label every second (calibration recomputes; the page re-renders)', await loadPhase(s, 'label', '/', other)],
      ['GET / in flight, a regrade every second (the leaderboard recomputes)', await loadPhase(s, 'grade', '/', other)],
      ['GET /api/reports/leaderboard in flight, cache warm', await loadPhase(s, null, '/api/reports/leaderboard')],
      // The floor: 8 requests of the cheapest route in flight (what any 8 busy clients cost /health).
      ['GET /health in flight (the floor: no report at all)', await loadPhase(s, null, '/health')],
    ] as const;

    console.log(`\n== ${label}`);
    console.log(`/health alone: p50 ${f(quantile(idle, 0.5))} ms, p99 ${f(quantile(idle, 0.99))} ms (${idle.length} samples)`);
    console.log(`\n${'page'.padEnd(28)} ${'first ms'.padStart(9)} ${'cold ms'.padStart(8)} ${'cold CPU'.padStart(9)} ${'warm ms'.padStart(8)} ${'warm CPU'.padStart(9)}  (cold: the first request after a regrade)`);
    const targets: Target[] = [];
    for (const p of PAGES) {
      const w = warm.get(p)!;
      const wm = quantile(w.map((x) => x.ms), 0.5);
      const wc = w.reduce((t, x) => t + x.cpuMs, 0) / w.length;
      const c = cold.get(p)!;
      const statuses = [...new Set([first.get(p)!.status, c.status, ...w.map((x) => x.status)])].join('/');
      console.log(
        `${p.padEnd(28)} ${f(first.get(p)!.ms).padStart(9)} ${f(c.ms).padStart(8)} ${f(c.cpuMs, 0).padStart(9)} ${f(wm).padStart(8)} ${f(wc).padStart(9)}${statuses === '200' ? '' : `  (statuses ${statuses})`}`,
      );
      if (p.startsWith('/api')) continue;
      targets.push({ what: `${p} server time, cached (median wall ms)`, measured: wm, target: PAGE_TARGET_MS });
      targets.push({ what: `${p} server time, first request after a regrade (wall ms)`, measured: c.ms, target: PAGE_TARGET_MS });
    }
    const floorP99 = quantile(phases.at(-1)![1].health, 0.99);
    for (const [name, r] of phases) {
      const p99 = quantile(r.health, 0.99);
      console.log(
        `\n${IN_FLIGHT} × ${name}${r.writes ? ` (${r.writes} writes)` : ''}: ${r.load.requests} requests in ${SECONDS} s (p50 ${f(r.load.p50)} ms, p99 ${f(r.load.p99)} ms, statuses ${JSON.stringify(r.load.statuses)})\n` +
          `  /health p50 ${f(quantile(r.health, 0.5))} ms, p99 ${f(p99)} ms, max ${f(Math.max(...r.health))} ms over ${r.health.length} samples → ${f(p99 / HEALTH_TARGET_MS, 2)}× of the ${HEALTH_TARGET_MS} ms target; ` +
          `${f(p99 / floorP99, 2)}× the floor's p99`,
      );
      if (!name.startsWith('GET /health')) targets.push({ what: `/health p99, ${IN_FLIGHT} × ${name}`, measured: p99, target: HEALTH_TARGET_MS });
    }
    targets.push({ what: `/health p99, ${IN_FLIGHT} × GET /health in flight (the floor on this machine now)`, measured: floorP99, target: HEALTH_TARGET_MS });
    return targets;
  } finally {
    await other.close();
    await stopServer(s);
  }
}

function printTargets(label: string, targets: Target[]): void {
  console.log(`\n== targets (issue 15 item 5), ${label}: ratio = measured / target, ≤ 1.00 is met`);
  for (const t of targets) console.log(`${t.what.padEnd(118)} ${f(t.measured).padStart(8)} ms / ${t.target} ms = ${f(t.measured / t.target, 2).padStart(5)}× ${t.measured <= t.target ? 'met' : 'NOT met'}`);
}

const loadBefore = loadavg();
console.log(`report-load: ${IN_FLIGHT} requests in flight, ${SECONDS} s per load phase, /health sampled every ${HEALTH_EVERY_MS} ms; load average ${loadBefore.map((x) => x.toFixed(2)).join(' ')} (2 cores)`);

const seededDir = mkdtempSync(join(tmpdir(), 'assay-report-load-'));
let seeded: Target[];
try {
  seeded = await scenario('seeded examples (what npm start loads)', seededDir);
} finally {
  rmSync(seededDir, { recursive: true, force: true });
}

const bigDir = mkdtempSync(join(tmpdir(), 'assay-report-load-'));
let big: Target[];
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
  big = await scenario(`seeded examples + ${ANSWERS} generated answers (4 models × 4 size buckets)`, bigDir);
} finally {
  rmSync(bigDir, { recursive: true, force: true });
}
printTargets('seeded examples', seeded);
printTargets(`${ANSWERS} generated answers`, big);
console.log(`\nmachine load average: ${loadBefore.map((x) => x.toFixed(2)).join(' ')} before, ${loadavg().map((x) => x.toFixed(2)).join(' ')} after (2 cores, shared with other work: a 1-minute figure above ~2 inflates every time above; compare with the floor's line)`);
