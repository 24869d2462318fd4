import { badInput, isAssayError } from '../../domain/errors.ts';
import type { Command } from '../command.ts';
import { openDatabaseEarly, withDatabase } from '../database.ts';
import { numberFlag, requireFlag } from '../io.ts';

/**
 * `assay run`: grade every answer of a run with a judge through the durable queue. Enqueues one job
 * per ungraded answer (idempotent: running it again only adds what is missing), then works the queue
 * in this process with a live progress bar on stderr. Ctrl-C stops taking jobs and lets the ones in
 * flight finish; a second Ctrl-C leaves at once (those jobs expire and are retried). `assay run` again
 * resumes. Exit 0 when every answer has a final grade, 1 when some failed or remain, 130 when interrupted.
 */

/** Answers the judge was not asked about, and why (the needs-grading rule); nothing when there are none. */
function skippedLine(s: { task: number; answerError: number; noText: number; noRubric: number }): string[] {
  const n = s.task + s.answerError + s.noText + s.noRubric;
  if (n === 0) return [];
  // Reasons with no answer are left out: "0 without text" is noise on a run of assemblies.
  const reasons = [
    [s.task, 'of a task scored without a judge (assemble, choice)'],
    [s.answerError, 'whose call ended in error'],
    [s.noText, 'without text'],
    [s.noRubric, 'without a rubric'],
  ] as const;
  const why = reasons.filter(([k]) => k > 0).map(([k, what]) => `${k} ${what}`);
  return [`skipped ${n} answer${n === 1 ? '' : 's'} that no judge grades: ${why.join(', ')}`];
}

/**
 * What the usage ledger holds for the run × judge (services/grading/progress.ts runUsage): the one summary
 * line of both paths, the queue's and --batch's, from the same numbers.
 */
type UsageFigures = { calls: number; tokens: { input: number; output: number; cacheRead: number; cacheWrite: number }; costUsd: number; unpricedCalls: number; unknownCostCalls: number };
// Calls of unknown cost are in `calls` but not in the tokens or the cost: both then read "at least".
function usageLine(p: UsageFigures, costText: (p: UsageFigures) => string): string {
  return `${p.calls} provider call${p.calls === 1 ? '' : 's'}, ${p.unknownCostCalls ? 'at least ' : ''}${p.tokens.input} input + ${p.tokens.cacheRead} cache-read + ${p.tokens.cacheWrite} cache-write + ${p.tokens.output} output tokens, ${costText(p)}`;
}

/**
 * A rate-limit flag: a number sets the limit, `none` clears the stored one, and leaving the flag out keeps
 * what is stored for the judge's provider:model (set by an earlier `assay run` or the API).
 */
function limitFlag(values: Record<string, unknown>, name: 'rpm' | 'tpm'): number | null | undefined {
  const v = values[name];
  if (v === 'none') return null;
  try {
    // The API's bounds (api/routes/jobs.ts): a call takes a whole request, so rpm starts at 1.
    return numberFlag(values, name, { min: 1, max: 1e12 });
  } catch (e) {
    // Not a number at all: the message names the other form the flag takes.
    if (isAssayError(e) && e.message.startsWith(`--${name} must be a number,`)) {
      throw badInput(`--${name} must be a number (${name === 'rpm' ? 'requests' : 'tokens'} per minute) or none (no limit), got '${String(v).slice(0, 60)}'`);
    }
    throw e;
  }
}

const run: Command = {
  path: ['run'],
  summary: 'Grade a whole run with a judge through the durable job queue (resumable; workers may help)',
  // --rpm/--tpm: stored for the judge's provider:model and kept until changed; `none` clears one.
  usage: '--run NAME --judge ID|FILE [--concurrency K] [--rpm N|none] [--tpm N|none] [--enqueue-only] [--batch [--poll-ms MS]]',
  options: {
    run: { type: 'string' },
    judge: { type: 'string' },
    concurrency: { type: 'string' },
    rpm: { type: 'string' },
    tpm: { type: 'string' },
    'enqueue-only': { type: 'boolean' },
    // --batch: the provider's batch API instead of the queue (half price, results within 24 h).
    batch: { type: 'boolean' },
    'poll-ms': { type: 'string' },
  },
  async run({ values }) {
    const runRef = requireFlag(values, 'run');
    // Workers load the judge by this reference, possibly from another directory: a file path is made absolute.
    const given = requireFlag(values, 'judge');
    const { existsSync } = await import('node:fs');
    const { resolve } = await import('node:path');
    const judgeRef = existsSync(given) ? resolve(given) : given;
    const concurrency = numberFlag(values, 'concurrency', { integer: true, min: 1, max: 512 }) ?? 8;
    const rpm = limitFlag(values, 'rpm');
    const tpm = limitFlag(values, 'tpm');
    // Only the limits given change: one left out keeps the stored value.
    const limits = { ...(rpm !== undefined ? { rpm } : {}), ...(tpm !== undefined ? { tpm } : {}) };
    const pollFlag = numberFlag(values, 'poll-ms', { integer: true, min: 1, max: 86_400_000 });
    // Flags that would be silently ignored are refused: the user meant something else.
    if (values.batch) {
      for (const f of ['concurrency', 'rpm', 'tpm', 'enqueue-only']) if (values[f] !== undefined) throw badInput(`--${f} does not apply with --batch (the provider's batch API)`);
    } else if (pollFlag !== undefined) throw badInput('--poll-ms goes with --batch');
    if (values['enqueue-only'] && values.concurrency !== undefined) throw badInput('--concurrency does not apply with --enqueue-only (nothing is graded here)');
    const pollMs = pollFlag ?? 30_000;
    const { loadConfig, providerKeys } = await import('../../config.ts');
    const config = loadConfig(process.env);
    // Checked before the database is opened: bad input changes nothing.
    const { checkJudgeRef } = await import('../../services/grading/run-queue.ts');
    // This process makes the calls unless it only enqueues: a judge without its key is refused now.
    checkJudgeRef(judgeRef, values['enqueue-only'] ? undefined : providerKeys(config), limits);
    if (values.batch) (await import('../../services/grading/batch.ts')).checkBatchJudge(judgeRef);
    // Every check of the input has passed: the database opens while the rest of the command loads.
    const { opening } = await openDatabaseEarly();
    const { preloadJudgeSdks, startWorker } = await import('../../services/grading/worker.ts');
    // The provider SDK loads while the database opens and the run is enqueued, not after.
    if (!values.batch && !values['enqueue-only']) preloadJudgeSdks(providerKeys(config));

    const { gradingQueue } = await import('../../services/grading/queue.ts');
    const { enqueueRunGrading } = await import('../../services/grading/run-queue.ts');
    const { findRun } = await import('../../services/grading/run-ref.ts');
    const { getProgress } = await import('../../services/grading/progress.ts');
    const { costText, progressBar } = await import('../progress-bar.ts');
    return withDatabase(async (database) => {
      // An unknown run is bad input found before the queue is started (nothing to stop, nothing written).
      await findRun(database, runRef);
      if (values.batch) {
        const { runBatchGrading } = await import('../../services/grading/batch.ts');
        const keys = providerKeys(config);
        const b = await runBatchGrading(database, { run: runRef, judge: judgeRef, keys, pollIntervalMs: pollMs });
        const text = [
          `run ${b.run.name}, judge ${b.judge.slug} (batch API): ${b.graded} graded, ${b.failed} failed; ${b.created} batches created, ${b.adopted} found again after a restart, ${b.resubmitted} items resubmitted`,
          ...skippedLine(b.skipped),
          usageLine(b, costText),
        ].join('\n');
        return { json: { batch: true, ...b }, text, exitCode: b.failed ? 1 : 0 };
      }
      const queue = gradingQueue(database, config.jobs.queue);
      // The run is known: pg-boss starts (on a new database it creates its schema, ~0.1 s on the server)
      // while the judge is resolved and its row written; enqueueing awaits the same start (or retries it).
      queue.boss().catch(() => {});
      // Every path out — an error while enqueueing or working included — stops what was started here,
      // so the process ends instead of waiting on the queue's timers.
      let worker: Awaited<ReturnType<typeof startWorker>> | undefined;
      let timer: ReturnType<typeof setInterval> | undefined;
      let onSigint: (() => void) | undefined;
      try {
        const e = await enqueueRunGrading(database, queue, { run: runRef, judge: judgeRef, limits });
        let interrupted = false;
        // The progress read when the worker ended is the summary's: nothing is written after it.
        let last: Awaited<ReturnType<typeof getProgress>> | undefined;
        if (!values['enqueue-only']) {
          const keys = providerKeys(config);
          const { tracedRun } = await import('../../services/grading/run-span.ts');
          // The run's span (tracing on) holds the worker: every call it makes is a child of it.
          last = await tracedRun({ run: runRef, judge: judgeRef, gradingRunId: e.gradingRunId }, async () => {
            const w = await startWorker(database, { concurrency, keys, queue, untilDone: [e.gradingRunId], liveness: config.jobs.liveness });
            worker = w;
            const bar = progressBar(process.stderr);
            onSigint = () => {
              if (interrupted) process.exit(130);
              interrupted = true;
              process.stderr.write('\nstopping: finishing the jobs in flight (Ctrl-C again to leave now); `assay run` again resumes\n');
              void w.stop({ graceful: true });
            };
            process.on('SIGINT', onSigint);
            // Off a terminal the bar prints a line every 5 s: reading progress more often only takes the
            // database from the grading (PGlite has one connection).
            const everyMs = process.stderr.isTTY ? 500 : 5000;
            timer = setInterval(() => void getProgress(database, e.gradingRunId).then((p) => bar.update(p), () => {}), everyMs);
            await w.done;
            clearInterval(timer);
            const end = await getProgress(database, e.gradingRunId);
            bar.update(end);
            bar.end();
            return end;
          }, (p) => ({ 'assay.run.done': p.done, 'assay.run.failed': p.failed, 'assay.run.calls': p.calls }));
        }
        const p = last ?? (await getProgress(database, e.gradingRunId));
        const json = { ...p, enqueued: { gradingRunId: e.gradingRunId, jobs: e.jobs, alreadyGraded: e.alreadyGraded, resumed: e.resumed, retried: e.retried }, interrupted };
        const text = [
          `run ${p.run.name}, judge ${p.judge.slug}: ${p.done} of ${p.total} graded, ${p.failed} failed, ${p.remaining} remaining`,
          ...skippedLine(p.skipped),
          usageLine(p, costText),
          ...(p.failed ? ['failed jobs: `assay jobs --state failed`; re-run them with `assay jobs retry`'] : []),
          ...(values['enqueue-only']
            ? p.remaining ? [`${p.remaining} queued for workers: \`assay worker\` (here or on any machine with the database) grades them`] : []
            : interrupted || p.remaining ? ['resume with the same `assay run` command (graded answers are skipped)'] : []),
        ].join('\n');
        // Enqueueing was the whole job of --enqueue-only: answers left to the workers are not a failure.
        const unfinished = !values['enqueue-only'] && (p.failed || p.remaining);
        return { json, text, exitCode: interrupted ? 130 : unfinished ? 1 : 0 };
      } finally {
        if (timer) clearInterval(timer);
        if (onSigint) process.off('SIGINT', onSigint);
        if (worker) await worker.stop({ graceful: false }).catch(() => {});
        await queue.stop();
      }
    }, { opening });
  },
};

export default run;
