// Where a report recompute spends its time (issue 15 item 5), in one process: the examples plus N generated
// answers (bench/lib/report-db.ts) in a PGlite directory kept between runs, then, ROUNDS times, a regrade and
// each report page through the app in-process (cold: what the regrade touched recomputes), and each stage of
// the report computations on its own: the judge choice, the fact queries, the tasks (decoding included).
//   node --import tsx bench/lib/report-profile.ts [dataDir]     (PROF_ANSWERS, default 10000; PROF_ROUNDS, default 3)
//   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/lib/report-profile.ts   (the main thread: the report
//   thread starts with no execArgv, so its tasks are profiled through the in-thread stage timings)
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createApp } from '../../src/app.ts';
import { migrate, openDatabase, type Database } from '../../src/db/client.ts';
import { createKey } from '../../src/services/keys.ts';
import { calibrationRows } from '../../src/services/report-analysis.ts';
import { chooseJudge } from '../../src/services/report-data.ts';
import { assemblyAnswers, assemblyScores, descriptionAnswers, judgeGrades } from '../../src/services/report-facts.ts';
import * as tasks from '../../src/services/report-tasks.ts';
import { seedExamples } from '../../src/services/seed.ts';
import { stopThreads } from '../../src/threads/pool.ts';
import { fillReportDatabase } from './report-db.ts';

const ANSWERS = Number(process.env.PROF_ANSWERS ?? 10_000);
const ROUNDS = Number(process.env.PROF_ROUNDS ?? 3);
const dataDir = process.argv[2] ?? `/tmp/assay-report-profile-${ANSWERS}`;
const PAGES = ['/', '/calibration', '/describe-then-solve', '/benchmarks', '/api/reports/leaderboard', '/api/reports/calibration'];

const fresh = !existsSync(dataDir);
const database: Database = await openDatabase({ dataDir });
await migrate(database);
if (fresh) {
  await seedExamples(database);
  const g = await fillReportDatabase(database, ANSWERS);
  console.log(`generated ${g.answers} answers into ${dataDir}`);
}
const app = createApp({ database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 1e9, host: '127.0.0.1' }, log: () => {} });
const key = (await createKey(database, { scopes: ['admin'], name: 'report-profile' })).key;

const regrade = () => database.execute(`update grades set f1 = case when f1 > 0.5 then f1 - 0.01 else f1 + 0.01 end where id = (select min(id) from grades where status = 'ok')`);

// CPU ms of this process (every thread) when PROF_CPU=1: steadier than wall time on a shared machine.
const CPU = process.env.PROF_CPU === '1';
const now = () => (CPU ? (process.cpuUsage().user + process.cpuUsage().system) / 1000 : performance.now());
async function time<T>(f: () => Promise<T> | T): Promise<[number, T]> {
  const t0 = now();
  const v = await f();
  return [now() - t0, v];
}

const pageMs = new Map<string, number[]>();
const stageMs = new Map<string, number[]>();
const note = (m: Map<string, number[]>, k: string, ms: number) => m.set(k, [...(m.get(k) ?? []), ms]);

console.log(`load average ${loadavg().map((x) => x.toFixed(2)).join(' ')} (2 cores)`);
for (let round = 0; round <= ROUNDS; round++) {
  await regrade();
  for (const p of PAGES) {
    const [ms, res] = await time(async () => {
      const r = await app.request(p, { headers: { authorization: `Bearer ${key}` } });
      await r.arrayBuffer();
      return r;
    });
    if (res.status !== 200) throw new Error(`${p}: ${res.status}`);
    // Round 0 warms the thread and the modules; it is not counted.
    if (round > 0) note(pageMs, p, ms);
  }
  // Each stage on its own: the facts are cached per table version, so the table each reads is touched first.
  const touch = (t: string) => database.execute(`update ${t} set id = id where id = (select min(id) from ${t})`);
  const fresh = async <T>(table: string, f: () => Promise<T>): Promise<[number, T]> => (await touch(table), time(f));
  const [jm, judge] = await fresh('grades', () => chooseJudge(database));
  const [dam, descAnswers] = await fresh('answers', () => descriptionAnswers(database, {}));
  const [gm, grades] = await fresh('grades', () => judgeGrades(database, {}, judge));
  const [aam, asmAnswers] = await fresh('answers', () => assemblyAnswers(database, {}));
  const [sm, scores] = await fresh('assembly_scores', () => assemblyScores(database, {}));
  const [cm, cal] = await time(() => calibrationRows(database, 'verdict'));
  // A new id each time: the thread's decoded rows are not reused across the stages below.
  let n = 0;
  const desc = () => ({ answers: { ...descAnswers, id: `p${++n}` }, figures: grades });
  const asm = () => ({ answers: { ...asmAnswers, id: `p${++n}` }, figures: scores });
  const opts = { seed: 1 };
  const stages: Array<[string, () => unknown]> = [
    ['descriptionHalfTask', () => tasks.descriptionHalfTask({ desc: desc(), opts })],
    ['assemblyHalfTask', () => tasks.assemblyHalfTask({ asm: asm(), opts })],
    ['orientationTask', () => tasks.orientationTask({ desc: desc() })],
    ['ablationTask', () => tasks.ablationTask({ desc: desc(), asm: asm(), tag: 'tagged', opts })],
    ['effortTask', () => tasks.effortTask({ desc: desc(), asm: asm(), opts })],
    ['dtsTask', () => tasks.dtsTask({ desc: desc(), asm: asm(), labels: [], perception: 'f1', metric: 'neighbour', perceptionThreshold: 0.5, answerThreshold: 0.5 })],
    ['calibrateTask', () => tasks.calibrateTask({ rows: cal, opts: { scale: 'verdict', seed: 1, source: 'stored labels' } })],
    ['pageCalibrationTask', () => tasks.pageCalibrationTask({ rows: cal, scale: 'verdict', seed: 1 })],
  ];
  if (round === 0) continue;
  note(stageMs, 'query chooseJudge', jm);
  note(stageMs, `query description answers (${(descAnswers.text.length / 1e6).toFixed(1)} MB)`, dam);
  note(stageMs, `query judge grades (${(grades.text.length / 1e6).toFixed(1)} MB)`, gm);
  note(stageMs, `query assembly answers (${(asmAnswers.text.length / 1e6).toFixed(1)} MB)`, aam);
  note(stageMs, `query assembly scores (${(scores.text.length / 1e6).toFixed(1)} MB)`, sm);
  note(stageMs, `query calibrationRows (${cal.length} rows)`, cm);
  for (const [name, f] of stages) note(stageMs, `task ${name} (incl. decoding)`, (await time(f))[0]);
}

const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
console.log(`\n${'page, cold (after a regrade)'.padEnd(44)} median ${CPU ? 'CPU ' : ''}ms over ${ROUNDS}   (all)`);
for (const [p, xs] of pageMs) console.log(`${p.padEnd(44)} ${med(xs).toFixed(1).padStart(8)}   ${xs.map((x) => x.toFixed(0)).join(' ')}`);
console.log(`\n${'stage (in this thread)'.padEnd(44)} median ms`);
for (const [p, xs] of stageMs) console.log(`${p.padEnd(44)} ${med(xs).toFixed(1).padStart(8)}   ${xs.map((x) => x.toFixed(0)).join(' ')}`);
console.log(`load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
await stopThreads();
await database.close();
