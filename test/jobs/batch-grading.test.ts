import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.ts';
import { loadJudge } from '../../src/judges/config.ts';
import { loadPrices } from '../../src/judges/prices.ts';
import { runBatchGrading } from '../../src/services/grading/batch.ts';
import { createGradingSession } from '../../src/services/grading/session.ts';
import { type FakeProvider, type Step, startFakeProvider } from '../fake-provider/server.ts';
import { lastUserText, type RecordedCall } from '../fake-provider/wire.ts';
import { describeDb } from '../helpers/db.ts';
import { farmyard, fullVerdicts } from '../judges/harness.ts';
import { JUDGE_FILE, quietEngine, seedRun } from './helpers.ts';

/**
 * `assay run --batch` against the fake provider's batch endpoints, through the real SDKs, for both
 * providers: results in shuffled order, one resubmission of failed items, crash-and-restart
 * reconciliation, the batch discount in the ledger, and grades equal to the live path's.
 */

const GPT_FILE = fileURLToPath(new URL('./fixtures/fake-gpt.yaml', import.meta.url));
const PROVIDERS = [
  { name: 'anthropic', judgeFile: JUDGE_FILE, model: 'claude-sonnet-5', creates: 'POST /v1/messages/batches' },
  { name: 'openai', judgeFile: GPT_FILE, model: 'gpt-4.1', creates: 'POST /v1/batches' },
] as const;

/** Answer i of a seeded run ("… answer <i>: …"), also on a re-ask, whose last turn is the correction note. */
const indexOf = (call: RecordedCall): number => Number(/answer (\d+):/.exec(JSON.stringify(call.body?.messages ?? []))?.[1] ?? -1);

/** Verdicts that differ per answer (item i mod n is missing), so a result matched to the wrong answer shows. */
function verdictsFor(i: number): Step {
  const v = fullVerdicts() as { items: Array<{ id: string; verdict: string; evidence: string }>; claims: unknown[] };
  v.items[i % v.items.length]!.verdict = 'missing';
  return { kind: 'verdicts', output: v };
}

const creates = (fake: FakeProvider, key: string) => fake.calls.filter((c) => `${c.method} ${c.path.split('?')[0]}` === key).length;

for (const p of PROVIDERS) {
  describeDb(`batch grading (${p.name})`, (ctx) => {
    let fake: FakeProvider;
    const keys = () => ({ anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url, openaiApiKey: 'sk-oai', openaiBaseUrl: fake.openaiBaseUrl });
    const run = (name: string, extra: Partial<Parameters<typeof runBatchGrading>[1]> = {}) =>
      runBatchGrading(ctx.database, { run: name, judge: p.judgeFile, keys: keys(), pollIntervalMs: 5, engine: quietEngine, ...extra });
    const gradesOf = async (runName: string) =>
      (
        await ctx.database.execute(
          `select a.external_id as ext, g.status, g.completeness, g.correctness, g.f1, g.items, g.cost_usd, g.reason
             from grades g join answers a on a.id = g.answer_id join runs r on r.id = a.run_id where r.name = $1 order by a.id`,
          [runName],
        )
      ).rows;

    beforeAll(async () => {
      fake = await startFakeProvider({ script: (call) => verdictsFor(indexOf(call)) });
    });
    afterAll(async () => {
      await fake?.close();
    });

    it('shuffled results land on the right answers, equal to the live path, at half price in the ledger', async () => {
      fake.setScript((call) => verdictsFor(indexOf(call)));
      const n = 9;
      const { answerIds } = await seedRun(ctx.database, `${p.name}-b`, n, (i) => `batch answer ${i}: a farmyard with a red barn and ${i} hens.`);
      await seedRun(ctx.database, `${p.name}-l`, n, (i) => `live answer ${i}: a farmyard with a red barn and ${i} hens.`);
      const before = creates(fake, p.creates);
      const res = await run(`${p.name}-b`);
      expect(res).toMatchObject({ created: 1, adopted: 0, graded: n, failed: 0, resubmitted: 0 });
      expect(creates(fake, p.creates) - before).toBe(1);

      const live = await createGradingSession(ctx.database, { judge: p.judgeFile, keys: keys(), engine: quietEngine });
      const liveIds = (await ctx.database.execute(`select a.id from answers a join runs r on r.id = a.run_id where r.name = $1 order by a.id`, [`${p.name}-l`])).rows;
      for (const r of liveIds) await live.grade({ answer: { id: Number(r.id) } });

      const batch = await gradesOf(`${p.name}-b`);
      const liveGrades = await gradesOf(`${p.name}-l`);
      expect(batch.map((g) => g.status)).toEqual(Array(n).fill('ok'));
      // Answer i has item i mod n missing: a result matched by position in the shuffled file would not.
      const ids = farmyard.items.map((it) => it.id);
      batch.forEach((g, i) => {
        const missing = (g.items as Array<{ id: string; verdict: string }>).find((it) => it.id === ids[i % ids.length]);
        expect(missing?.verdict).toBe('missing');
      });
      const scores = (gs: typeof batch) => gs.map((g) => [g.ext, g.completeness, g.correctness, g.f1, JSON.stringify(g.items)]);
      expect(scores(batch)).toEqual(scores(liveGrades));
      expect(new Set(batch.map((g) => g.completeness)).size).toBeGreaterThan(1);

      // Ledger: batch rows cost half the price table, live rows the full table.
      const price = loadPrices().models[p.model]!;
      const full = (r: Record<string, unknown>) =>
        (Number(r.input_tokens) * price.input + Number(r.output_tokens) * price.output + Number(r.cache_read_tokens) * price.cache_read + Number(r.cache_write_tokens) * price.cache_write) / 1e6;
      const ledger = (await ctx.database.execute(`select * from usage_ledger where answer_id = any($1::int[]) order by answer_id`, [answerIds])).rows;
      expect(ledger).toHaveLength(n);
      for (const r of ledger) {
        expect(full(r)).toBeGreaterThan(0);
        expect(Number(r.cost_usd)).toBeCloseTo(full(r) / 2, 8);
      }
      const liveLedger = (await ctx.database.execute(`select l.* from usage_ledger l join answers a on a.id = l.answer_id join runs r on r.id = a.run_id where r.name = $1`, [`${p.name}-l`])).rows;
      for (const r of liveLedger) expect(Number(r.cost_usd)).toBeCloseTo(full(r), 8);

      // Running it again finds nothing to do: no batch, no call.
      const calls = fake.calls.length;
      expect(await run(`${p.name}-b`)).toMatchObject({ created: 0, graded: 0 });
      expect(fake.calls.length).toBe(calls);
    });

    it('errored and expired items are resubmitted exactly once, then graded or failed', async () => {
      const seen = new Map<number, number>();
      fake.setScript((call) => {
        const i = indexOf(call);
        const k = (seen.get(i) ?? 0) + 1;
        seen.set(i, k);
        if (i === 0 && k === 1) return { kind: 'status', status: 500 };
        if (i === 1 && k === 1) return { kind: 'hang' };
        if (i === 2) return { kind: 'status', status: 529, type: 'overloaded_error' };
        return verdictsFor(i);
      });
      await seedRun(ctx.database, `${p.name}-r`, 5, (i) => `retry answer ${i}: a farmyard with ${i} geese.`);
      const before = creates(fake, p.creates);
      const res = await run(`${p.name}-r`);
      expect(res).toMatchObject({ created: 2, resubmitted: 3, graded: 4, failed: 1 });
      expect(creates(fake, p.creates) - before).toBe(2);
      expect([...seen.entries()].sort()).toEqual([[0, 2], [1, 2], [2, 2], [3, 1], [4, 1]]);
      const g = await gradesOf(`${p.name}-r`);
      expect(g.map((x) => x.status)).toEqual(['ok', 'ok', 'provider_error', 'ok', 'ok']);
      expect(String(g[2]!.reason)).toMatch(/after resubmission/);
      const rows = (await ctx.database.execute(`select attempt, state, jsonb_object_keys(custom_ids) as cid from provider_batches b join runs r on r.id = b.run_id where r.name = $1 order by attempt`, [`${p.name}-r`])).rows;
      expect(rows.filter((r) => r.attempt === 2).map((r) => String(r.cid).replace(/^j\w+-a\d+-(t\d)-r[0-9a-f]{16}$/, '$1'))).toEqual(['t2', 't2', 't2']);
      expect(rows.every((r) => r.state === 'reconciled')).toBe(true);
    });

    it('truncated, refused and invalid replies get the live statuses; the one re-ask goes through the regular API', async () => {
      const live = p.name === 'anthropic' ? 'POST /v1/messages' : 'POST /v1/chat/completions';
      fake.setScript((call) => {
        const i = indexOf(call);
        const reask = lastUserText(call).includes('rejected');
        if (i === 0) return { kind: 'truncated', text: '{"items": [' };
        if (i === 1) return { kind: 'refusal', text: 'I will not grade this.' };
        if (i === 2) return reask ? verdictsFor(2) : { kind: 'text', text: 'no JSON here at all' };
        if (i === 3) return { kind: 'text', text: 'still no JSON' };
        return verdictsFor(i);
      });
      await seedRun(ctx.database, `${p.name}-s`, 5, (i) => `status answer ${i}: a farmyard with ${i} cows.`);
      const liveBefore = creates(fake, live);
      const res = await run(`${p.name}-s`);
      expect(res).toMatchObject({ created: 1, graded: 5, failed: 0, resubmitted: 0 });
      // Answers 2 and 3 each needed one re-ask, sent live.
      expect(creates(fake, live) - liveBefore).toBe(2);
      const g = await gradesOf(`${p.name}-s`);
      expect(g.map((x) => x.status)).toEqual(['truncated', 'refused', 'ok', 'parse_failure', 'ok']);
      expect(g[0]!.completeness).toBeNull();
    });

    it('a crash while polling: the restart polls the recorded batch and creates none', async () => {
      fake.setScript((call) => verdictsFor(indexOf(call)));
      const name = `${p.name}-poll`;
      await seedRun(ctx.database, name, 4, (i) => `poll answer ${i}: a farmyard with ${i} pigs.`);
      const before = creates(fake, p.creates);
      const crash = async () => {
        throw new Error('simulated crash while waiting');
      };
      await expect(run(name, { sleep: crash })).rejects.toThrow('simulated crash while waiting');
      const rows = (await ctx.database.execute(`select state, provider_batch_id from provider_batches b join runs r on r.id = b.run_id where r.name = $1`, [name])).rows;
      expect(rows).toHaveLength(1);
      expect(rows[0]!.state).toBe('submitted');
      expect(String(rows[0]!.provider_batch_id)).toMatch(/batch/);
      expect(await run(name)).toMatchObject({ created: 0, adopted: 0, graded: 4, failed: 0 });
      expect(creates(fake, p.creates) - before).toBe(1);
      expect((await gradesOf(name)).map((g) => g.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
    });

    it('a second --batch on the same run × judge, in this process or another, is refused while the first runs', async () => {
      fake.setScript((call) => verdictsFor(indexOf(call)));
      const name = `${p.name}-excl`;
      await seedRun(ctx.database, name, 3, (i) => `exclusive answer ${i}: a farmyard with ${i} geese.`);
      let polling!: () => void;
      const started = new Promise<void>((r) => (polling = r));
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const first = run(name, { sleep: async () => (polling(), gate) });
      await started;
      await expect(run(name)).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining('already being graded') });
      if (ctx.url) {
        // Another process: its own connection pool, so only the advisory lock on the server can tell.
        const other = await openDatabase({ url: ctx.url, max: 2 });
        try {
          await expect(runBatchGrading(other, { run: name, judge: p.judgeFile, keys: keys(), pollIntervalMs: 5, engine: quietEngine })).rejects.toMatchObject({ code: 'conflict' });
        } finally {
          await other.close();
        }
      }
      release();
      expect(await first).toMatchObject({ created: 1, graded: 3, failed: 0 });
      // The lock went with the first run: the next one finds nothing to do.
      expect(await run(name)).toMatchObject({ created: 0, graded: 0, failed: 0 });
    });

    for (const crash of ['afterIntent', 'afterCreate'] as const) {
      it(`a crash ${crash === 'afterIntent' ? 'after the intent, before create' : 'after create, before the id is stored'}: the restart creates no second batch and loses nothing`, async () => {
        fake.setScript((call) => verdictsFor(indexOf(call)));
        const name = `${p.name}-${crash}`;
        const n = crash === 'afterIntent' ? 6 : 7;
        const { answerIds } = await seedRun(ctx.database, name, n, (i) => `${crash} answer ${i}: a farmyard with ${i} ducks.`);
        const before = creates(fake, p.creates);
        const die = () => {
          throw new Error('simulated crash');
        };
        await expect(run(name, { hooks: { [crash]: die } })).rejects.toThrow('simulated crash');
        const state = (await ctx.database.execute(`select state, provider_batch_id from provider_batches b join runs r on r.id = b.run_id where r.name = $1`, [name])).rows;
        expect(state).toEqual([{ state: 'intent', provider_batch_id: null }]);
        expect(creates(fake, p.creates) - before).toBe(crash === 'afterIntent' ? 0 : 1);

        const res = await run(name);
        expect(res).toMatchObject({ created: crash === 'afterIntent' ? 1 : 0, adopted: crash === 'afterIntent' ? 0 : 1, graded: n, failed: 0 });
        expect(creates(fake, p.creates) - before).toBe(1);
        const g = await gradesOf(name);
        expect(g.map((x) => x.status)).toEqual(Array(n).fill('ok'));
        expect((await ctx.database.execute(`select count(*)::int as n from usage_ledger where answer_id = any($1::int[])`, [answerIds])).rows[0]!.n).toBe(n);
      });
    }
  });
}

describe('custom ids', () => {
  it('are deterministic per judge config, answer and attempt', async () => {
    const { customIdFor } = await import('../../src/services/grading/batch.ts');
    const h = loadJudge(JUDGE_FILE).configHash;
    const fp = 'ab12'.repeat(4);
    expect(customIdFor(h, 42, 1, fp)).toBe(`j${h.slice(0, 12)}-a42-t1-r${fp}`);
    expect(customIdFor(h, 42, 2, fp)).not.toBe(customIdFor(h, 42, 1, fp));
    expect(customIdFor(h, 42, 1, 'cd34'.repeat(4))).not.toBe(customIdFor(h, 42, 1, fp));
    expect(customIdFor(h, 2 ** 31 - 1, 2, fp)).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  });
});
