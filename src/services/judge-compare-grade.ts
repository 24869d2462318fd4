import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Database } from '../db/client.ts';
import { badInput } from '../domain/errors.ts';
import type { JobTimes } from '../jobs/env-seconds.ts';
import type { ProviderKeys } from '../judges/adapters/index.ts';
import { loadJudgeOrPanel } from '../judges/panel-config.ts';
import { getProgress, type Progress } from './grading/progress.ts';
import { gradingQueue } from './grading/queue.ts';
import { checkJudgeRef, checkRunGrading, enqueueRunGrading } from './grading/run-queue.ts';
import { findRun } from './grading/run-ref.ts';
import { startWorker } from './grading/worker.ts';
import { checkQuery, judgeCompare, type JudgeCompareQuery, type JudgeCompareReport } from './judge-compare.ts';

/**
 * `assay judge compare --grade`: grade what either judge still needs of the run, then compare. The
 * grading is `assay run`'s, reused: per judge, enqueueRunGrading (the needs-grading rule picks the
 * answers: those without a final grade from this configuration against their rubric's latest version)
 * and an in-process worker until that grading run is done. Judges go one after the other, so each has its
 * own progress line. Grades are versioned (docs/grades.md): grading adds grades, it never replaces a
 * judge's earlier ones, so the comparison can be rerun on the grades it read.
 */

export interface CompareGradeOptions {
  keys: ProviderKeys;
  /** Provider calls at once, per judge (`--concurrency`; default 8, as `assay run`). */
  concurrency?: number;
  /** Progress of the judge being graded (`which`: 'a' or 'b'), every `progressMs` and once at its end. */
  onProgress?: (which: 'a' | 'b', p: Progress) => void;
  progressMs?: number;
  /** The queue's and the worker's times (config.jobs; the defaults of jobs/ without). */
  jobs?: JobTimes;
}

/** What grading one judge for the comparison did. */
export interface CompareGrading {
  judge: string;
  /** Answers that needed a grade from the judge (one job each). */
  needed: number;
  /** The run's graded answers with a final grade from the judge once its grading ended. */
  done: number;
  failed: number;
  remaining: number;
  calls: number;
  costUsd: number;
  /** Calls of a model with no price (judges/prices.yaml): costUsd leaves them out. */
  unpricedCalls: number;
  /** Calls sent whose usage is unknown (a timeout, no usage in the reply): costUsd leaves them out, a lower bound. */
  unknownCostCalls: number;
}

export type GradedJudgeCompareReport = JudgeCompareReport & { grading: { a: CompareGrading; b: CompareGrading } };

/** Query `a`/`b` are judge references here (an id in judges/ or a judge file), compared by their ids. */
export async function gradeAndCompareJudges(database: Database, query: JudgeCompareQuery, o: CompareGradeOptions): Promise<GradedJudgeCompareReport> {
  // Bad input before anything is written: both judges load, they differ, the options hold, the run exists.
  const refs = { a: query.a, b: query.b };
  for (const ref of Object.values(refs)) checkJudgeRef(ref);
  const slugs = { a: loadJudgeOrPanel(refs.a).config.id, b: loadJudgeOrPanel(refs.b).config.id };
  if (slugs.a === slugs.b) throw badInput(`give two different judges (both are '${slugs.a}')`);
  const q = checkQuery({ ...query, a: slugs.a, b: slugs.b });
  await findRun(database, q.run);
  // Everything that refuses a judge before a provider call (its key unset too), for both before either is graded: B refused
  // after A's grading would leave A's calls paid for and no comparison.
  for (const ref of Object.values(refs)) await checkRunGrading(database, { run: q.run, judge: absolute(ref) }, o.keys);

  const queue = gradingQueue(database, o.jobs?.queue ?? {});
  const grading = {} as { a: CompareGrading; b: CompareGrading };
  try {
    for (const which of ['a', 'b'] as const) grading[which] = await gradeOne(database, queue, q.run, refs[which], which, o);
  } finally {
    await queue.stop();
  }
  return { ...(await judgeCompare(database, q)), grading };
}

// Workers load the judge by this reference, possibly from another directory: a file path is made absolute.
const absolute = (ref: string): string => (existsSync(ref) ? resolve(ref) : ref);

async function gradeOne(database: Database, queue: ReturnType<typeof gradingQueue>, run: string, ref: string, which: 'a' | 'b', o: CompareGradeOptions): Promise<CompareGrading> {
  const e = await enqueueRunGrading(database, queue, { run, judge: absolute(ref) });
  const worker = await startWorker(database, { concurrency: o.concurrency ?? 8, keys: o.keys, queue, untilDone: [e.gradingRunId], ...(o.jobs ? { liveness: o.jobs.liveness } : {}) });
  const report = () => getProgress(database, e.gradingRunId).then((p) => (o.onProgress?.(which, p), p));
  const timer = o.onProgress ? setInterval(() => void report().catch(() => {}), o.progressMs ?? 500) : undefined;
  try {
    await worker.done;
  } finally {
    if (timer) clearInterval(timer);
    await worker.stop({ graceful: false }).catch(() => {});
  }
  const p = await report();
  return { judge: e.judge.slug, needed: e.jobs, done: p.done, failed: p.failed, remaining: p.remaining, calls: p.calls, costUsd: p.costUsd, unpricedCalls: p.unpricedCalls, unknownCostCalls: p.unknownCostCalls };
}
