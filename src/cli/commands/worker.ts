import type { Command } from '../command.ts';
import { withDatabase } from '../database.ts';
import { numberFlag } from '../io.ts';

/**
 * `assay worker`: a grading worker in its own process, until SIGINT/SIGTERM (graceful: the jobs in
 * flight finish). Start any number, on any machines, against the same DATABASE_URL: they share the
 * queue (each job is taken by one worker) and the provider rate limits.
 */
const worker: Command = {
  path: ['worker'],
  summary: 'Work the grading queue in this process (many workers may share one PostgreSQL)',
  usage: '[--concurrency K] [--poll-ms MS]',
  options: { concurrency: { type: 'string' }, 'poll-ms': { type: 'string' } },
  async run({ values }) {
    const concurrency = numberFlag(values, 'concurrency', { integer: true, min: 1, max: 512 }) ?? 8;
    const pollMs = numberFlag(values, 'poll-ms', { integer: true, min: 10, max: 60_000 }) ?? 250;
    const { loadConfig, providerKeys } = await import('../../config.ts');
    const config = loadConfig(process.env);
    const keys = providerKeys(config);
    const { startWorker } = await import('../../services/grading/worker.ts');
    // withDatabase closes the database on every path, an error while starting the worker included.
    await withDatabase(async (database) => {
      const w = await startWorker(database, { concurrency, keys, pollMs, boss: config.jobs.queue, liveness: config.jobs.liveness });
      // Handlers before the banner: a supervisor may signal as soon as it reads it.
      const stop = () => void w.stop({ graceful: true });
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      // Reached through another process's PGlite directory: when that owner goes, so does our database.
      // Stop at once rather than let every poll fail against a closed socket.
      let ownerLost = false;
      void database.owner?.lost.then(() => {
        ownerLost = true;
        void w.stop({ graceful: false });
      });
      try {
        process.stderr.write(`worker ${process.pid}: ${concurrency} provider calls at once (as many jobs again read ahead), polling every ${pollMs} ms\n`);
        await w.done;
      } finally {
        await w.stop({ graceful: true });
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
      }
      if (ownerLost) {
        process.stderr.write(`assay worker: the process owning the data directory (pid ${database.owner!.info.pid}) stopped; start the worker again\n`);
        process.exitCode = 1;
        return;
      }
      const s = w.stats;
      process.stderr.write(`worker ${process.pid}: stopped after ${s.graded} graded, ${s.skipped} skipped (already graded, or not an answer a judge grades), ${s.failed} failed attempts\n`);
    }, { service: true });
  },
};

export default worker;
