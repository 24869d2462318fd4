import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { importAnswersJsonl } from '../../src/services/answers.ts';
import { createKey } from '../../src/services/keys.ts';
import { listLabels } from '../../src/services/labels.ts';
import { importRubrics } from '../../src/services/rubrics.ts';
import { FIXTURES } from '../helpers/cli.ts';
import { describeDb, rowCounts } from '../helpers/db.ts';
import { useApi } from './app-fixture.ts';

/**
 * Issue 11 findings 2–4 over HTTP: label imports never replace unasked (409), an annotate key labels
 * only as itself (403), and an annotation form with one bad mark saves none (400).
 */

type ErrorBody = { error: { code: string; message: string } };
const errorOf = async (res: Response): Promise<ErrorBody['error']> => ((await res.json()) as ErrorBody).error;
const JSONL = { 'content-type': 'application/x-ndjson' };
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describeDb('label writes over HTTP', (ctx) => {
  const api = useApi(ctx);
  let answerId = 0;
  let annotator1 = '';
  const labelsOf = async () => (await listLabels(ctx.database, { answerIds: [answerId] })).labels.map((l) => [l.item, l.annotator, l.label]);

  beforeAll(async () => {
    await importRubrics(ctx.database, [{ path: 'farmyard.yaml', content: readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8') }]);
    const text = 'A red barn stands on the left. A fence runs across. Two ducks swim in a pond.';
    const r = await importAnswersJsonl(ctx.database, { path: 'a.jsonl', content: JSON.stringify({ id: 'd1', run: 'r1', model: 'm', task: 'describe', rubric: 'farmyard-54', text }) });
    answerId = r.answerIds[0]!;
    annotator1 = (await createKey(ctx.database, { scopes: ['annotate'], name: 'annotator-1' })).key;
    const first = await api.call(annotator1, 'POST', '/api/annotations', { body: { answerId, item: 'barn', label: 'correct' } });
    expect(await first.json()).toEqual({ created: true, unchanged: false });
  });

  it('POST /api/annotations: a body annotator other than the key is refused (403), nothing written', async () => {
    const before = await rowCounts(ctx.database);
    const stored = await labelsOf();
    const res = await api.call(api.keys.annotate, 'POST', '/api/annotations', { body: { answerId, item: 'barn', label: 'incorrect', annotator: 'annotator-1' } });
    expect(res.status).toBe(403);
    expect(await errorOf(res)).toEqual({
      code: 'forbidden',
      message: "annotator: this key annotates as 'test annotate' and cannot act as 'annotator-1' (leave annotator out)",
    });
    expect(await rowCounts(ctx.database)).toEqual(before);
    expect(await labelsOf()).toEqual(stored);
    expect(stored).toEqual([['barn', 'annotator-1', 'correct']]);
    // Its own name, given or not, is accepted and stored under the key's name.
    const own = await api.call(api.keys.annotate, 'POST', '/api/annotations', { body: { answerId, item: 'barn', label: 'incorrect', annotator: 'test annotate' } });
    expect(own.status).toBe(200);
    expect(await labelsOf()).toEqual([
      ['barn', 'annotator-1', 'correct'],
      ['barn', 'test annotate', 'incorrect'],
    ]);
    const queue = await api.call(api.keys.annotate, 'GET', '/api/annotations/queue?annotator=annotator-1');
    expect(queue.status).toBe(403);
  });

  it('POST /annotate/:id: one bad mark among good ones saves nothing (400 envelope)', async () => {
    const before = await rowCounts(ctx.database);
    const stored = await labelsOf();
    const res = await api.call(annotator1, 'POST', `/annotate/${answerId}`, { body: 'item:barn=missing&item:fence=partial&item:zzz=correct&claim:1=true', headers: FORM });
    expect(res.status).toBe(400);
    // The old handler saved barn and fence before it reached zzz.
    expect(await rowCounts(ctx.database)).toEqual(before);
    expect(await labelsOf()).toEqual(stored);
    expect(await errorOf(res)).toEqual({ code: 'bad_input', message: `answer ${answerId}: item 'zzz': unknown item for this answer's rubric; nothing saved` });
    // Every problem is named at once; a bad claim or verdict is as fatal as an unknown item.
    const many = await api.call(annotator1, 'POST', `/annotate/${answerId}`, { body: 'item:fence=partial&item:pond=great&claim:7=true', headers: FORM });
    expect(await errorOf(many)).toEqual({
      code: 'bad_input',
      message: `answer ${answerId}: item 'pond': label must be one of correct|partial|incorrect|missing, got 'great'; claim 7: the answer has claims 0..2; nothing saved`,
    });
    expect(await rowCounts(ctx.database)).toEqual(before);
    // The same form without the bad mark saves all of it.
    const ok = await api.call(annotator1, 'POST', `/annotate/${answerId}`, { body: 'item:barn=missing&item:fence=partial&claim:1=true', headers: FORM });
    expect(ok.status).toBe(303);
    expect((await labelsOf()).filter((l) => l[1] === 'annotator-1')).toEqual([
      ['barn', 'annotator-1', 'missing'],
      ['claim:1', 'annotator-1', 'true'],
      ['fence', 'annotator-1', 'partial'],
    ]);
  });

  it('POST /annotate/:id: unknown fields (an annotator, a misspelt item) and conflicting duplicates are refused', async () => {
    const before = await rowCounts(ctx.database);
    const stored = await labelsOf();
    const cases: Array<[string, string]> = [
      ['item:pond=correct&annotator=annotator-2', 'form: annotator: unknown field (expected item:<id>, claim:<n>, binary or rating); nothing saved'],
      ['item:pond=correct&itm:sky=correct', 'form: itm:sky: unknown field (expected item:<id>, claim:<n>, binary or rating); nothing saved'],
      ['item:pond=correct&claim:=true', 'form: claim:: a claim is claim:<number>; nothing saved'],
      ['item:pond=correct&item:pond=missing', `answer ${answerId}: item 'pond': given twice ('correct' and 'missing'); nothing saved`],
    ];
    for (const [body, message] of cases) {
      const res = await api.call(annotator1, 'POST', `/annotate/${answerId}`, { body, headers: FORM });
      expect(res.status, body).toBe(400);
      expect(await errorOf(res), body).toEqual({ code: 'bad_input', message });
    }
    expect(await rowCounts(ctx.database)).toEqual(before);
    expect(await labelsOf()).toEqual(stored);
  });

  it('PUT /annotate/:id/labels: an annotator in the body is refused, nothing written', async () => {
    const before = await rowCounts(ctx.database);
    const res = await api.call(api.keys.annotate, 'PUT', `/annotate/${answerId}/labels`, { body: { item: 'sky', label: 'correct', annotator: 'annotator-1' } });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).code).toBe('bad_input');
    const bad = await api.call(api.keys.annotate, 'PUT', `/annotate/${answerId}/labels`, { body: { item: 'zzz', label: 'correct' } });
    expect(await errorOf(bad)).toEqual({ code: 'bad_input', message: `answer ${answerId}: item 'zzz': unknown item for this answer's rubric; nothing saved` });
    expect(await rowCounts(ctx.database)).toEqual(before);
  });

  it('POST /api/labels: changing stored labels is a 409 unless ?replace=true; a bad line writes nothing', async () => {
    const line = (label: string) => JSON.stringify({ answer: 'd1', run: 'r1', item: 'barn', rater: 'annotator-1', label });
    const before = await rowCounts(ctx.database);
    const stored = await labelsOf();
    const refused = await api.call(api.keys.write, 'POST', '/api/labels', { body: [line('correct'), JSON.stringify({ answer: 'd1', run: 'r1', item: 'sky', rater: 'zed', label: 'partial' })].join('\n'), headers: JSONL });
    expect(refused.status).toBe(409);
    expect(await errorOf(refused)).toEqual({
      code: 'conflict',
      message:
        'body: would replace 1 stored label (body:1 answer "d1" of run "r1", item "barn", rater "annotator-1": "missing" → "correct"); nothing written — to replace them, import again with --replace (API: ?replace=true)',
    });
    const badLine = await api.call(api.keys.write, 'POST', '/api/labels?replace=true', { body: [line('correct'), JSON.stringify({ answer: 'd1', run: 'r1', item: 'zzz', rater: 'zed', label: 'x' })].join('\n'), headers: JSONL });
    expect(badLine.status).toBe(400);
    expect((await errorOf(badLine)).message).toBe("body:2: item: unknown item 'zzz' for this answer's rubric");
    expect(await rowCounts(ctx.database)).toEqual(before);
    expect(await labelsOf()).toEqual(stored);
    const replaced = await api.call(api.keys.write, 'POST', '/api/labels?replace=true', { body: line('correct'), headers: JSONL });
    expect(replaced.status).toBe(200);
    expect(await replaced.json()).toEqual({ inserted: 0, replaced: 1, unchanged: 0, runs: ['r1'] });
    const flag = await api.call(api.keys.write, 'POST', '/api/labels?replace=yes', { body: line('correct'), headers: JSONL });
    expect(flag.status).toBe(400);
  });
});
