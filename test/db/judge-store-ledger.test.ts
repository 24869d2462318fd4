import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { dbUsageLedger } from '../../src/db/judge-store.ts';
import { importAnswersJsonl } from '../../src/services/import-answers.ts';
import { importRubrics } from '../../src/services/rubrics.ts';
import { describeDb } from '../helpers/db.ts';

const RUBRIC = { path: 'farmyard.rubric.yaml', content: readFileSync(new URL('../fixtures/farmyard.rubric.yaml', import.meta.url), 'utf8') };
const usage = { input: 10, output: 2, cacheRead: 0, cacheWrite: 0 };
const entry = (callKey: string, answerId?: string) => ({
  callKey, provider: 'anthropic', model: 'm', judgeId: 'lexical', judgeConfigHash: 'h', answerHash: 'a', usage, costUsd: null, latencyMs: 3, status: 'ok',
  ...(answerId !== undefined ? { answerId } : {}),
});

describeDb('usage ledger: which calls link to a stored answer', (ctx) => {
  it('links an answer id that is a row id; any other id (ad-hoc text, 0, beyond int4) leaves answer_id empty and the batch intact', async () => {
    await importRubrics(ctx.database, [RUBRIC]);
    await importAnswersJsonl(ctx.database, { path: 'a.jsonl', content: JSON.stringify({ id: 'one', run: 'r', model: 'm', task: 'describe', rubric: 'farmyard-54', text: 'A red barn.' }) });
    const id = Number((await ctx.database.execute(`select id from answers where external_id = 'one'`)).rows[0].id);
    const ledger = dbUsageLedger(ctx.database, { judgeId: null });
    // One group commit: before the shared row-id rule, "0" broke the foreign key and "3000000000" the int
    // column, failing every call of the statement with it.
    await Promise.all([
      ledger.record(entry('l-real', String(id))),
      ledger.record(entry('l-text', 'farmyard-describe')),
      ledger.record(entry('l-zero', '0')),
      ledger.record(entry('l-big', '3000000000')),
      ledger.record(entry('l-none')),
    ]);
    const rows = await ctx.database.execute(`select call_key, answer_id from usage_ledger where call_key like 'l-%' order by call_key`);
    expect(rows.rows.map((r) => [r.call_key, r.answer_id])).toEqual([
      ['l-big', null],
      ['l-none', null],
      ['l-real', id],
      ['l-text', null],
      ['l-zero', null],
    ]);
  });
});
