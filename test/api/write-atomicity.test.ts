import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { FIXTURES } from '../helpers/cli.ts';
import { describeDb, rowCounts } from '../helpers/db.ts';
import { useApi } from './app-fixture.ts';

/**
 * Issue 11 finding 4: every write endpoint is all or nothing. Each case sends one bad element among
 * good ones and checks the envelope and that no table changed; the replace rule (finding 2) holds for
 * puzzles as for labels, and a run is not silently restated with another effort or tags.
 */

type ErrorBody = { error: { code: string; message: string } };
const JSONL = { 'content-type': 'application/x-ndjson' };
const lines = (...rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n');
const rubric = parseYaml(readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8')) as Record<string, unknown>;
const truth4 = JSON.parse(readFileSync(`${FIXTURES}grid-truth-4x4.json`, 'utf8')) as { rows: number; cols: number; layout: string[][] };

describeDb('write endpoints: one bad element, nothing written', (ctx) => {
  const api = useApi(ctx);

  beforeAll(async () => {
    expect((await api.call(api.keys.write, 'POST', '/api/rubrics', { body: rubric })).status).toBe(200);
    expect((await api.call(api.keys.write, 'POST', '/api/puzzles', { body: lines({ id: 'p4', ...truth4, rubric: 'farmyard-54' }), headers: JSONL })).status).toBe(200);
    const answers = lines({ id: 'd1', run: 'r1', model: 'm', effort: 'high', tags: ['tagged'], task: 'describe', rubric: 'farmyard-54', text: 'A barn.' });
    expect((await api.call(api.keys.write, 'POST', '/api/answers', { body: answers, headers: JSONL })).status).toBe(200);
  });

  it('each write endpoint refuses the whole request for one bad element', async () => {
    const good = { id: 'd2', run: 'r1', model: 'm', task: 'describe', rubric: 'farmyard-54', text: 'A fence.' };
    const cases: Array<{ what: string; method: string; path: string; body: unknown; headers?: Record<string, string>; status: number; code: string; message: RegExp | string }> = [
      { what: 'answers: unknown rubric on line 2', method: 'POST', path: '/api/answers', body: lines(good, { ...good, id: 'd3', rubric: 'ghost' }), headers: JSONL, status: 400, code: 'bad_input', message: "body:2: rubric: unknown rubric 'ghost' (import it first)" },
      { what: 'answers: line 2 restates the run with another effort', method: 'POST', path: '/api/answers', body: lines(good, { ...good, id: 'd3', effort: 'low' }), headers: JSONL, status: 400, code: 'bad_input', message: "body:2: effort: run 'r1' has effort 'high', this row says 'low' (use another run name)" },
      { what: 'answers: other tags for the run', method: 'POST', path: '/api/answers?tags=plain', body: lines(good), headers: JSONL, status: 400, code: 'bad_input', message: "body:1: tags: run 'r1' has tags [tagged], this row says [plain] (use another run name)" },
      {
        what: 'labels: unknown item on line 2',
        method: 'POST',
        path: '/api/labels',
        body: lines({ answer: 'd1', run: 'r1', item: 'barn', rater: 'h', label: 'correct' }, { answer: 'd1', run: 'r1', item: 'ghost', rater: 'h', label: 'correct' }),
        headers: JSONL,
        status: 400,
        code: 'bad_input',
        message: "body:2: item: unknown item 'ghost' for this answer's rubric",
      },
      { what: 'puzzles: bad layout on line 2', method: 'POST', path: '/api/puzzles', body: lines({ id: 'p5', ...truth4 }, { id: 'p6', rows: 1, cols: 2, layout: [['a', 'a']] }), headers: JSONL, status: 400, code: 'bad_input', message: "body.jsonl:2: layout[0][1]: duplicate piece id 'a' (also at layout[0][0])" },
      { what: 'rubrics: second rubric has a bad weight', method: 'POST', path: '/api/rubrics', body: [{ ...rubric, id: 'r-ok' }, { ...rubric, id: 'r-bad', items: [{ id: 'a', text: 't', weight: -1 }] }], status: 400, code: 'bad_input', message: /^body\[1\]\.items\[0\]\.weight: / },
      { what: 'rubrics: one id twice in one request', method: 'POST', path: '/api/rubrics', body: [{ ...rubric, id: 'r-two' }, { ...rubric, id: 'r-two', title: 'Other' }], status: 400, code: 'bad_input', message: "body[1]: id: rubric 'r-two' also given at body[0]" },
      { what: 'assemblies: unknown puzzle', method: 'POST', path: '/api/assemblies', body: { run: 'r1', model: 'm', puzzle: 'ghost', answer: truth4.layout }, status: 400, code: 'bad_input', message: "body:1: puzzle: unknown puzzle 'ghost' (import it first)" },
      { what: 'assemblies: the run restated with other tags', method: 'POST', path: '/api/assemblies', body: { run: 'r1', model: 'm', puzzle: 'p4', tags: ['plain'], answer: truth4.layout }, status: 400, code: 'bad_input', message: "body:1: tags: run 'r1' has tags [tagged], this row says [plain] (use another run name)" },
      { what: 'keys: one unknown scope among good ones', method: 'POST', path: '/api/keys', body: { scopes: ['read', 'root'], name: 'k' }, status: 400, code: 'bad_input', message: /scope/ },
      { what: 'annotations: unknown item', method: 'POST', path: '/api/annotations', body: { answerId: 1, item: 'ghost', label: 'correct' }, status: 400, code: 'bad_input', message: /^answer 1: item: unknown item 'ghost'/ },
    ];
    const before = await rowCounts(ctx.database);
    for (const c of cases) {
      const key = c.path === '/api/keys' ? api.keys.admin : c.path === '/api/annotations' ? api.keys.annotate : api.keys.write;
      const res = await api.call(key, c.method, c.path, { body: c.body, ...(c.headers ? { headers: c.headers } : {}) });
      expect(res.status, c.what).toBe(c.status);
      const err = ((await res.json()) as ErrorBody).error;
      expect(err.code, c.what).toBe(c.code);
      if (typeof c.message === 'string') expect(err.message, c.what).toBe(c.message);
      else expect(err.message, c.what).toMatch(c.message);
      expect(await rowCounts(ctx.database), c.what).toEqual(before);
    }
  });

  it('grades: a refused grade registers no judge, versions no rubric and stores no answer', async () => {
    const before = await rowCounts(ctx.database);
    const cases: Array<[unknown, number, string]> = [
      [{ answerId: 999999, judge: 'lexical' }, 404, 'answer 999999 not found'],
      [{ answer: 'A barn and a pond.', rubric: 'ghost', judge: 'lexical' }, 404, "rubric 'ghost' not found"],
      [{ answer: 'A barn and a pond.', judge: 'lexical' }, 400, 'rubric: none given and the answer names no rubric'],
      [{ answer: 'A barn.', rubric: 'farmyard-54', rubricVersion: 9, judge: 'lexical' }, 404, "rubric 'farmyard-54' has no version 9 (latest is 1)"],
    ];
    for (const [body, status, message] of cases) {
      const res = await api.call(api.keys.write, 'POST', '/api/grades', { body });
      expect(res.status, message).toBe(status);
      expect(((await res.json()) as ErrorBody).error.message).toBe(message);
      expect(await rowCounts(ctx.database), message).toEqual(before);
    }
    // A rubric document with answer text that clashes with a stored answer: neither is written.
    const { gradeAnswer } = await import('../../src/services/grading/grade-answer.ts');
    const { importAnswersJsonl } = await import('../../src/services/answers.ts');
    await importAnswersJsonl(ctx.database, { path: 'x.jsonl', content: lines({ id: 'x', run: 'adhoc-r', model: 'm', task: 'describe', rubric: 'farmyard-54', text: 'first text' }) });
    const stored = await rowCounts(ctx.database);
    const doc = { id: 'brand-new', title: 'New', reference: 'A barn.', items: [{ id: 'barn', text: 'A barn.', weight: 1 }] };
    await expect(gradeAnswer(ctx.database, { judge: 'lexical', rubric: doc, answer: { text: 'other text', run: 'adhoc-r', externalId: 'x' } })).rejects.toThrow(
      "answer: run 'adhoc-r' already has answer 'x' with different text",
    );
    expect(await rowCounts(ctx.database)).toEqual(stored);
  });

  it('puzzles: changing a stored puzzle is a 409 unless ?replace=true', async () => {
    const before = await rowCounts(ctx.database);
    // Re-importing without the rubric field would unlink the puzzle from its rubric.
    const res = await api.call(api.keys.write, 'POST', '/api/puzzles', { body: lines({ id: 'p7', ...truth4 }, { id: 'p4', ...truth4 }), headers: JSONL });
    expect(res.status).toBe(409);
    expect(((await res.json()) as ErrorBody).error).toEqual({
      code: 'conflict',
      message: "would change 1 stored puzzle (body.jsonl:2 puzzle 'p4': rubric 'farmyard-54' → none); nothing written — to change them, import again with --replace (API: ?replace=true)",
    });
    expect(await rowCounts(ctx.database)).toEqual(before);
    expect(((await (await api.call(api.keys.read, 'GET', '/api/puzzles/p4')).json()) as { rubric: string }).rubric).toBe('farmyard-54');
    const same = await api.call(api.keys.write, 'POST', '/api/puzzles', { body: lines({ id: 'p4', ...truth4, rubric: 'farmyard-54' }), headers: JSONL });
    expect(await same.json()).toEqual({ created: 0, updated: 0, unchanged: 1 });
    const replaced = await api.call(api.keys.write, 'POST', '/api/puzzles?replace=true', { body: lines({ id: 'p4', ...truth4, sizeBucket: 'small' }), headers: JSONL });
    expect(await replaced.json()).toEqual({ created: 0, updated: 1, unchanged: 0 });
    expect(await (await api.call(api.keys.read, 'GET', '/api/puzzles/p4')).json()).toMatchObject({ rubric: null, sizeBucket: 'small' });
  });
});
