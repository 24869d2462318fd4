// Scored assembly answers per second through the HTTP API on loopback: the real server (src/main.ts,
// spawned) on PGlite and on PostgreSQL, driven by a load generator in a second process (bench/lib/api-load.ts)
// with bounded concurrency. Every request POSTs one assembly answer to /api/assemblies, which validates it,
// stores it and its deterministic score in one transaction and returns the score. Prints throughput, p50/p99
// latency per engine and the PostgreSQL/PGlite ratio, all measured in this one run.
//   npm run bench -- api      (BENCH_SECONDS, BENCH_CONCURRENCY, BENCH_PG_URL override the defaults;
//   BENCH_CPU_PROF=DIR writes the servers' V8 CPU profiles there)
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { mulberry32, shuffleInPlace } from '../src/stats/random.ts';

import { startServer, stopServer, type StartedServer as Started } from './lib/server-process.ts';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP = 2;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

// A 10×10 puzzle (100 pieces, the common benchmark size) and a few answers: the truth, a transpose and
// random permutations, so scoring does real work.
const N = 10;
const layout = Array.from({ length: N }, (_, r) => Array.from({ length: N }, (_, c) => `p${r * N + c}`));
const rng = mulberry32(42);
const answers = [layout, layout.map((_, r) => layout.map((row) => row[r]!))];
for (let k = 0; k < 6; k++) {
  const ids = shuffleInPlace(layout.flat(), rng);
  answers.push(Array.from({ length: N }, (_, r) => ids.slice(r * N, r * N + N)));
}


interface LoadResult {
  /** Requests completed including the warm-up (the server's CPU is measured over all of them). */
  total: number;
  ok: number;
  failed: number;
  statuses: Record<string, number>;
  seconds: number;
  perSecond: number;
  p50: number | null;
  p99: number | null;
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
function cpuSeconds(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

function runLoad(s: Started, runName: string): Promise<LoadResult & { serverCpuMs: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'bench/lib/api-load.ts', s.url, s.key, String(SECONDS), String(CONCURRENCY), String(WARMUP), runName, 'bench-10x10', JSON.stringify(answers)],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    const cpu0 = cpuSeconds(s.child.pid!);
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`load generator exited ${code}`));
      const r = JSON.parse(out) as LoadResult;
      const cpu1 = cpuSeconds(s.child.pid!);
      resolve({ ...r, serverCpuMs: cpu0 === null || cpu1 === null ? null : ((cpu1 - cpu0) * 1000) / r.total });
    });
  });
}

async function bench(engine: 'pglite' | 'postgres', env: Record<string, string>): Promise<LoadResult & { serverCpuMs: number | null }> {
  const s = await startServer(env, process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []);
  try {
    const puzzle = JSON.stringify({ id: 'bench-10x10', rows: N, cols: N, layout });
    const res = await fetch(`${s.url}/api/puzzles`, { method: 'POST', headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/x-ndjson' }, body: puzzle });
    if (!res.ok) throw new Error(`puzzle import failed: ${res.status} ${await res.text()}`);
    return await runLoad(s, `bench-${engine}`);
  } finally {
    await stopServer(s);
  }
}

const results: Array<[string, LoadResult & { serverCpuMs: number | null }]> = [];
const loadBefore = loadavg()[0]!;

const dataDir = mkdtempSync(join(tmpdir(), 'assay-bench-'));
try {
  results.push(['PGlite (embedded)', await bench('pglite', { ASSAY_DATA_DIR: dataDir, DATABASE_URL: '' })]);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

const dbName = `assay_bench_${randomBytes(5).toString('hex')}`;
const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
await admin.unsafe(`create database ${dbName}`);
try {
  const u = new URL(PG_ADMIN_URL);
  u.pathname = `/${dbName}`;
  results.push(['PostgreSQL (127.0.0.1:5432)', await bench('postgres', { DATABASE_URL: u.toString() })]);
} finally {
  await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.end();
}

const f = (x: number | null, d = 1) => (x === null ? '—' : x.toFixed(d));
console.log(`\nPOST /api/assemblies (10×10 puzzle), ${CONCURRENCY} in flight, ${SECONDS} s after ${WARMUP} s warm-up, one load-generator process\n`);
console.log(['engine'.padEnd(28), 'scored/s'.padStart(9), 'p50 ms'.padStart(8), 'p99 ms'.padStart(8), 'server CPU ms/answer'.padStart(21), 'ok'.padStart(7), 'failed'.padStart(7)].join('  '));
for (const [name, r] of results) {
  console.log(
    [name.padEnd(28), f(r.perSecond, 0).padStart(9), f(r.p50).padStart(8), f(r.p99).padStart(8), f(r.serverCpuMs, 2).padStart(21), String(r.ok).padStart(7), String(r.failed).padStart(7)].join('  '),
  );
  if (r.failed) console.log(`  non-201 statuses: ${JSON.stringify(r.statuses)}`);
}
const [pgl, pg] = [results[0]![1], results[1]![1]];
console.log(`\nmachine load average (1 min): ${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after (2 cores: figures above ~2 are shared with other work)`);
console.log(`PostgreSQL / PGlite throughput: ${(pg.perSecond / pgl.perSecond).toFixed(2)}×   target on PostgreSQL: ≥ 1000 scored/s → ${pg.perSecond >= 1000 ? 'met' : 'NOT met'}`);
