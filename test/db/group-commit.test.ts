import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { groupCommit } from '../../src/db/group-commit.ts';
import { unixSocketOf } from '../../src/db/client.ts';

describe('groupCommit', () => {
  it('sends the calls of one turn as one batch and hands each caller its own result', async () => {
    const batches: number[][] = [];
    const double = groupCommit(async (xs: number[]) => (batches.push(xs), xs.map((x) => x * 2)));
    expect(await Promise.all([1, 2, 3, 4].map(double))).toEqual([2, 4, 6, 8]);
    expect(batches).toEqual([[1, 2, 3, 4]]);
  });

  it('queues calls while the statements run and sends them together when one finishes', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const echo = groupCommit(
      async (xs: number[]) => {
        batches.push(xs);
        if (batches.length === 1) await gate;
        return xs;
      },
      { maxInFlight: 1 },
    );
    const first = echo(0);
    await new Promise((r) => setImmediate(r));
    const later = [1, 2, 3].map(echo);
    release();
    expect(await Promise.all([first, ...later])).toEqual([0, 1, 2, 3]);
    expect(batches).toEqual([[0], [1, 2, 3]]);
  });

  it('fails only the item the database refuses: the rest of its batch is written one at a time', async () => {
    const batches: string[][] = [];
    const write = groupCommit(async (xs: string[]) => {
      batches.push(xs);
      if (xs.includes('bad')) throw new Error('violates a constraint');
      return xs.map((x) => x.toUpperCase());
    });
    const results = await Promise.allSettled(['a', 'bad', 'c'].map(write));
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual(['A', 'violates a constraint', 'C']);
    expect(batches).toEqual([['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
  });

  it('waits lingerMs for company when asked to', async () => {
    const batches: number[][] = [];
    const echo = groupCommit(async (xs: number[]) => (batches.push(xs), xs), { lingerMs: 30 });
    const a = echo(1);
    await new Promise((r) => setTimeout(r, 10));
    const b = echo(2);
    await Promise.all([a, b]);
    expect(batches).toEqual([[1, 2]]);
  });

  it('lingers only while lingerWhile holds: otherwise the write goes out on the next turn', async () => {
    const batches: number[][] = [];
    let more = false;
    const echo = groupCommit(async (xs: number[]) => (batches.push(xs), xs), { lingerMs: 30, lingerWhile: () => more });
    // Nothing else on its way: no 30 ms wait, so a write 10 ms later is a batch of its own.
    const a = echo(1);
    await new Promise((r) => setTimeout(r, 10));
    const b = echo(2);
    await Promise.all([a, b]);
    expect(batches).toEqual([[1], [2]]);
    // More expected: the first write waits 30 ms for company, as with lingerMs alone.
    more = true;
    const c = echo(3);
    await new Promise((r) => setTimeout(r, 10));
    const d = echo(4);
    await Promise.all([c, d]);
    expect(batches).toEqual([[1], [2], [3, 4]]);
  });

  it('never exceeds maxBatch or maxInFlight, and every call resolves with its own value (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer(), { minLength: 1, maxLength: 200 }), fc.integer({ min: 1, max: 16 }), fc.integer({ min: 1, max: 4 }), async (xs, maxBatch, maxInFlight) => {
        let running = 0;
        let peak = 0;
        let largest = 0;
        const neg = groupCommit(
          async (batch: number[]) => {
            running++;
            peak = Math.max(peak, running);
            largest = Math.max(largest, batch.length);
            await new Promise((r) => setTimeout(r, 1));
            running--;
            return batch.map((x) => -x);
          },
          { maxBatch, maxInFlight },
        );
        expect(await Promise.all(xs.map(neg))).toEqual(xs.map((x) => -x));
        expect(largest).toBeLessThanOrEqual(maxBatch);
        expect(peak).toBeLessThanOrEqual(maxInFlight);
      }),
      { numRuns: 40, seed: 6 },
    );
  });
});

describe('unixSocketOf', () => {
  it("reads libpq's two socket spellings and leaves TCP URLs alone", () => {
    expect(unixSocketOf('postgres://postgres@/test?host=/var/run/postgresql')).toEqual({ url: 'postgres://postgres@localhost/test', path: '/var/run/postgresql/.s.PGSQL.5432' });
    expect(unixSocketOf('postgresql://u:p@%2Ftmp%2Fpg:5433/db')).toEqual({ url: 'postgresql://u:p@localhost:5433/db', path: '/tmp/pg/.s.PGSQL.5433' });
    expect(unixSocketOf('postgres://postgres@127.0.0.1:5432/test')).toBeNull();
    expect(unixSocketOf('postgres://db.internal/assay?sslmode=require')).toBeNull();
  });
});
