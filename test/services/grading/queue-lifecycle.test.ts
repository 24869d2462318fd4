import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { gradingQueue } from '../../../src/services/grading/queue.ts';
import { startService } from '../../../src/server.ts';
import { describeDb } from '../../helpers/db.ts';

/** The grading queue belongs to whoever opened it: the server starts it on first use and its stop() stops it. */
describe('the server owns its grading queue', () => {
  const dir = mkdtempSync(join(tmpdir(), 'assay-queue-life-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('starts pg-boss on the first queue request and stops it with stop()', async () => {
    const config = loadConfig({ ASSAY_DATA_DIR: join(dir, 'data'), PORT: '0', DATABASE_URL: '', ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', OPENAI_BASE_URL: '' });
    const svc = await startService(config, { seed: false });
    let stopped = false;
    try {
      // Nothing started by serving alone.
      expect(svc.queue.state).toBe('idle');
      const r = await fetch(`${svc.server.url}/api/jobs/retry`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${svc.adminKey}` },
        body: JSON.stringify({ ids: ['00000000-0000-4000-8000-000000000000'] }),
      });
      // An id that is no job is refused (never a silent "retried 0"), after the queue's tables exist.
      expect(r.status).toBe(404);
      expect(await r.json()).toEqual({ error: { code: 'not_found', message: 'no grading job 00000000-0000-4000-8000-000000000000 (nothing retried)' } });
      expect(svc.queue.state).toBe('started');
      const boss = await svc.queue.boss();
      boss.once('stopped', () => (stopped = true));
    } finally {
      await svc.stop();
    }
    expect(stopped).toBe(true);
    expect(svc.queue.state).toBe('stopped');
  }, 120_000);
});

describeDb('gradingQueue', (ctx) => {
  it('is lazy, shares one start, stops once, and refuses use after stop', async () => {
    const queue = gradingQueue(ctx.database, { supervise: false });
    expect(queue.state).toBe('idle');
    const [a, b] = await Promise.all([queue.boss(), queue.boss()]);
    expect(a).toBe(b);
    expect(queue.state).toBe('started');
    await queue.stop();
    await queue.stop();
    expect(queue.state).toBe('stopped');
    await expect(queue.boss()).rejects.toThrow('the grading queue is stopped');
    // A queue never used stops without starting anything.
    const unused = gradingQueue(ctx.database);
    await unused.stop();
    expect(unused.state).toBe('stopped');
  }, 60_000);
});
