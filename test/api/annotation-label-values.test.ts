import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { importAnswersJsonl } from '../../src/services/answers.ts';
import { listLabels } from '../../src/services/labels.ts';
import { importPuzzles } from '../../src/services/puzzles.ts';
import { importRubrics } from '../../src/services/rubrics.ts';
import { FIXTURES } from '../helpers/cli.ts';
import { describeDb } from '../helpers/db.ts';
import { useApi } from './app-fixture.ts';

/**
 * POST /api/annotations checks a label against its unit's scale, as the workspace and the campaign
 * saves do: before, any text was stored with 200 {"created":true} — 'banana' as an item verdict, 'correct'
 * as a claim mark, 'maybe' as pass/fail — and calibration then set it aside, so the annotator's label
 * counted nowhere although the API said it was saved. An item only an earlier rubric version has is
 * refused too (no queue asks it; the workspace refuses it), and so is any label of an answer without a
 * description (an assembly: its puzzle's rubric gave it items, but the workspace never opens it). Valid labels are stored in the form the
 * workspace stores them (verdicts lower case, pass/fail as true/false).
 */

type ErrorBody = { error: { code: string; message: string } };

describeDb('POST /api/annotations label values', (ctx) => {
  const api = useApi(ctx);
  let answerId = 0;
  const stored = async () => (await listLabels(ctx.database, { answerIds: [answerId] })).labels.map((l) => `${l.item ?? ''}=${l.label}`).sort();
  const post = (body: Record<string, unknown>) => api.call(api.keys.annotate, 'POST', '/api/annotations', { body: { answerId, ...body } });

  beforeAll(async () => {
    const v1 = readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8');
    await importRubrics(ctx.database, [{ path: 'farmyard.yaml', content: v1 }]);
    // Version 2 drops the item 'style'.
    await importRubrics(ctx.database, [{ path: 'farmyard.yaml', content: v1.replace(/^ {2}- \{ id: style,.*$/m, '') }]);
    const text = 'A red barn stands on the left. A fence runs across. Two ducks swim in a pond.';
    answerId = (await importAnswersJsonl(ctx.database, { path: 'a.jsonl', content: JSON.stringify({ id: 'd1', run: 'r1', model: 'm', task: 'describe', rubric: 'farmyard-54', text }) })).answerIds[0]!;
  });

  it.each([
    ['an item verdict outside the vocabulary', { item: 'barn', label: 'banana' }, /item 'barn': label must be one of correct\|partial\|incorrect\|missing, got 'banana'/],
    ['a claim mark given an item verdict', { item: 'claim:0', label: 'correct' }, /claim 0: label must be one of true\|false\|unverifiable, got 'correct'/],
    ['pass/fail that is neither', { item: 'answer:binary', label: 'maybe' }, /answer:binary: "maybe" is not true\|false/],
    ['a rating that is no number', { item: 'answer:numeric', label: 'abc' }, /answer:numeric: "abc" is not a finite number/],
    ['a whole-answer label no scale reads', { label: 'banana' }, /whole-answer label: "banana" is neither pass\/fail/],
    ['an item only an earlier rubric version has', { item: 'style', label: 'correct' }, /item 'style': not an item of version 2 \(the current one\)/],
  ])('%s is a 400 and stores nothing', async (_what, body, message) => {
    const before = await stored();
    const res = await post(body);
    expect(res.status).toBe(400);
    const e = ((await res.json()) as ErrorBody).error;
    expect(e.code).toBe('bad_input');
    expect(e.message).toMatch(message);
    expect(await stored()).toEqual(before);
  });

  it('an answer with no description (an assembly) takes no annotation: 400 from the API and the workspace, nothing stored', async () => {
    const truth = JSON.parse(readFileSync(`${FIXTURES}grid-truth-4x4.json`, 'utf8')) as object;
    await importPuzzles(ctx.database, [{ path: 'p.json', content: JSON.stringify({ id: 'p4', rubric: 'farmyard-54', ...truth }) }]);
    const asm = (await importAnswersJsonl(ctx.database, { path: 'b.jsonl', content: JSON.stringify({ id: 'g1', run: 'r2', model: 'm', task: 'assemble', puzzle: 'p4', text: '[[1]]' }) })).answerIds[0]!;
    const before = (await listLabels(ctx.database, { answerIds: [asm] })).total;
    const viaApi = await api.call(api.keys.annotate, 'POST', '/api/annotations', { body: { answerId: asm, item: 'barn', label: 'correct' } });
    const viaPage = await api.call(api.keys.annotate, 'PUT', `/annotate/${asm}/labels`, { body: { item: 'barn', label: 'correct' } });
    for (const res of [viaApi, viaPage]) {
      expect(res.status).toBe(400);
      expect(((await res.json()) as ErrorBody).error.message).toBe(`answer ${asm}: task 'assemble' has no description to annotate`);
    }
    expect(before).toBe(0);
    expect((await listLabels(ctx.database, { answerIds: [asm] })).total).toBe(0);
  });

  it('valid labels are stored in the workspace form', async () => {
    for (const body of [{ item: 'barn', label: 'Correct ' }, { item: 'claim:1', label: 'FALSE' }, { item: 'answer:binary', label: 'pass' }, { item: 'answer:numeric', label: 4 }, { label: true }]) {
      const res = await post(body);
      expect(res.status).toBe(200);
    }
    expect(await stored()).toEqual(['=true', 'answer:binary=true', 'answer:numeric=4', 'barn=correct', 'claim:1=false']);
  });
});
