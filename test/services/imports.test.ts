import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { getAnswer, importAnswersJsonl, listAnswers } from '../../src/services/answers.ts';
import { getAssemblyScore, scoreAndStoreAssembly } from '../../src/services/assemblies.ts';
import { importLabels } from '../../src/services/import-labels.ts';
import { listLabels, saveLabel } from '../../src/services/labels.ts';
import { getPuzzle, importPuzzles, sizeBucketFor } from '../../src/services/puzzles.ts';
import { importRubrics } from '../../src/services/rubrics.ts';
import { getRun } from '../../src/services/runs.ts';
import { FIXTURES } from '../helpers/cli.ts';
import { describeDb, rowCounts } from '../helpers/db.ts';

const fixture = (f: string) => readFileSync(`${FIXTURES}${f}`, 'utf8');
const jsonl = (...rows: unknown[]) => rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n';

describeDb('importers', (ctx) => {
  beforeAll(async () => {
    await importRubrics(ctx.database, [{ path: 'farmyard.yaml', content: fixture('farmyard.rubric.yaml') }]);
    const truth = JSON.parse(fixture('grid-truth-6x9.json'));
    await importPuzzles(ctx.database, [{ path: 'puzzles/farm.json', content: JSON.stringify({ id: 'farm', rubric: 'farmyard-54', ...truth }) }]);
  });

  it('puzzles: id from the file name, size bucket from the piece count, rubric linked', async () => {
    const r = await importPuzzles(ctx.database, [{ path: 'dir/grid-truth-4x4.json', content: fixture('grid-truth-4x4.json') }]);
    expect(r).toEqual({ created: 1, updated: 0, unchanged: 0 });
    const p = await getPuzzle(ctx.database, 'grid-truth-4x4');
    expect([p.rows, p.cols, p.pieces, p.sizeBucket, p.rubric, p.layout[0]]).toEqual([4, 4, 16, '~16', null, ['14', '11', '0', '12']]);
    expect((await getPuzzle(ctx.database, 'farm')).rubric).toBe('farmyard-54');
    expect([sizeBucketFor(54), sizeBucketFor(96), sizeBucketFor(204), sizeBucketFor(500)]).toEqual(['~50', '~100', '~200', '~500']);
  });

  it('puzzles: a changed layout under an existing id is refused; bad truth names file and field', async () => {
    const before = await rowCounts(ctx.database);
    const t = JSON.parse(fixture('grid-truth-4x4.json'));
    t.layout[0] = ['11', '14', '0', '12'];
    await expect(importPuzzles(ctx.database, [{ path: 'grid-truth-4x4.json', content: JSON.stringify(t) }])).rejects.toThrow(
      /^grid-truth-4x4\.json:1: layout: puzzle 'grid-truth-4x4' already exists with a different layout/,
    );
    const dup = { id: 'dup', rows: 1, cols: 2, layout: [['a', 'a']] };
    await expect(importPuzzles(ctx.database, [{ path: 'p.jsonl', content: jsonl({ id: 'ok', rows: 1, cols: 1, layout: [['x']] }, dup) }])).rejects.toThrow(
      "p.jsonl:2: layout[0][1]: duplicate piece id 'a' (also at layout[0][0])",
    );
    await expect(importPuzzles(ctx.database, [{ path: 'q.json', content: JSON.stringify({ rows: 1, cols: 1, layout: [['x']], rubric: 'nope' }) }])).rejects.toThrow(
      "q.json:1: rubric: unknown rubric 'nope' (import it first)",
    );
    expect(await rowCounts(ctx.database)).toEqual(before);
  });

  it('puzzles: the same edges again are unchanged whatever their key order; a changed edge is still refused', async () => {
    // jsonb stores object keys shortest first: edges given as {"bb", "a"} came back {"a", "bb"} and the same puzzle
    // imported again was refused as "a different layout or edges".
    const p = { id: 'edged', rows: 1, cols: 2, layout: [['bb', 'a']], edges: { bb: ['flat', 'tab', 'flat', 'flat'], a: ['flat', 'flat', 'flat', 'blank'] } };
    expect(await importPuzzles(ctx.database, [{ path: 'e.jsonl', content: jsonl(p) }])).toEqual({ created: 1, updated: 0, unchanged: 0 });
    expect(await importPuzzles(ctx.database, [{ path: 'e.jsonl', content: jsonl(p) }])).toEqual({ created: 0, updated: 0, unchanged: 1 });
    const changed = { ...p, edges: { ...p.edges, a: ['flat', 'flat', 'flat', 'tab'] } };
    await expect(importPuzzles(ctx.database, [{ path: 'e.jsonl', content: jsonl(changed) }])).rejects.toThrow(/already exists with a different layout or edges/);
  });

  it('answers: rows name run, model, task and puzzle or rubric; usage and statuses are read', async () => {
    const text = jsonl(
      { id: 'd1', run: 'r1', model: 'claude-x', effort: 'high', tags: ['tagged'], task: 'describe', rubric: 'farmyard-54', text: 'A barn.', usage: { input_tokens: 1200, output_tokens: 80 } },
      { id: 'a1', run: 'r1', model: 'claude-x', task: 'assemble', puzzle: 'farm', text: fixture('grid-answer-shifted.txt'), usage: { prompt_tokens: 900, completion_tokens: 300 } },
      { id: 'a2', run: 'r1', model: 'claude-x', task: 'assemble', puzzle: 'farm', text: 'partial grid …', stop_reason: 'max_tokens' },
      { id: 'a3', run: 'r1', model: 'claude-x', task: 'assemble', puzzle: 'farm', text: null },
    );
    const r = await importAnswersJsonl(ctx.database, { path: 'r1.jsonl', content: text });
    expect(r).toMatchObject({ imported: 4, unchanged: 0, runs: [{ name: 'r1', model: 'claude-x', created: true, imported: 4 }] });
    const run = await getRun(ctx.database, 'r1');
    expect([run.model, run.effort, run.tags, run.answers]).toEqual(['claude-x', 'high', ['tagged'], 4]);
    const { answers } = await listAnswers(ctx.database, { run: 'r1' });
    expect(answers.map((a) => [a.externalId, a.task, a.puzzle, a.rubric, a.status, a.inputTokens, a.outputTokens])).toEqual([
      ['d1', 'describe', null, 'farmyard-54', 'ok', 1200, 80],
      ['a1', 'assemble', 'farm', 'farmyard-54', 'ok', 900, 300],
      ['a2', 'assemble', 'farm', 'farmyard-54', 'truncated', null, null],
      ['a3', 'assemble', 'farm', 'farmyard-54', 'no_answer', null, null],
    ]);
    // The same file again: nothing new, nothing changed.
    expect(await importAnswersJsonl(ctx.database, { path: 'r1.jsonl', content: text })).toMatchObject({ imported: 0, unchanged: 4 });
    // Defaults from the command line fill what rows leave out; the model names the run when no run is given.
    const d = await importAnswersJsonl(ctx.database, { path: 'x.jsonl', content: jsonl({ id: 'q1', rubric: 'farmyard-54', text: 'hi' }) }, { model: 'gpt-y', task: 'describe' });
    expect(d.runs).toEqual([{ name: 'gpt-y', model: 'gpt-y', created: true, imported: 1, unchanged: 0 }]);
    expect((await listAnswers(ctx.database, { model: 'gpt-y' })).total).toBe(1);
    expect((await listAnswers(ctx.database, { rubric: 'farmyard-54', task: 'assemble' })).total).toBe(3);
  });

  it.each([
    ['a malformed line', jsonl({ id: 'n1', task: 'describe', rubric: 'farmyard-54', text: 't' }, '{"id": "n2", "task": '), /^bad\.jsonl:2: not valid JSON/],
    ['an unknown puzzle', jsonl({ id: 'n1', task: 'describe', rubric: 'farmyard-54', text: 't' }, { id: 'n2', task: 'assemble', puzzle: 'nope', text: 't' }), "bad.jsonl:2: puzzle: unknown puzzle 'nope' (import it first)"],
    ['an unknown rubric', jsonl({ id: 'n1', task: 'describe', rubric: 'zzz', text: 't' }), "bad.jsonl:1: rubric: unknown rubric 'zzz' (import it first)"],
    ['a wrong type', jsonl({ id: 'n1', task: 'describe', rubric: 'farmyard-54', text: 't' }, { id: 'n2', task: 'describe', rubric: 'farmyard-54', text: 't', usage: { input_tokens: 'many' } }), /^bad\.jsonl:2: usage\.input_tokens: .*number/],
    ['an unknown task', jsonl({ id: 'n1', task: 'paint', rubric: 'farmyard-54', text: 't' }), /^bad\.jsonl:1: task: /],
    ['a misspelt field', jsonl({ id: 'n1', task: 'describe', rubric: 'farmyard-54', txet: 't' }), 'bad.jsonl:1: txet: unknown field'],
    ['a duplicate id', jsonl({ id: 'n1', task: 'describe', rubric: 'farmyard-54', text: 't' }, { id: 'n1', task: 'describe', rubric: 'farmyard-54', text: 'u' }), "bad.jsonl:2: id: duplicate answer id 'n1' in run 'm' (first on line 1); give each row a distinct \"id\""],
    ['a model that contradicts the run', jsonl({ id: 'n1', run: 'r1', model: 'other', task: 'describe', rubric: 'farmyard-54', text: 't' }), "bad.jsonl:1: model: run 'r1' is model 'claude-x', this row says 'other'"],
    ['changed content under an existing id', jsonl({ id: 'd1', run: 'r1', model: 'claude-x', task: 'describe', rubric: 'farmyard-54', text: 'Another barn.' }), "bad.jsonl:1: id: answer 'd1' of run 'r1' already exists with different content"],
  ])('answers: %s → one located error and the database unchanged', async (_, content, message) => {
    const before = await rowCounts(ctx.database);
    const run = importAnswersJsonl(ctx.database, { path: 'bad.jsonl', content }, { model: 'm' });
    await expect(run).rejects.toMatchObject({ code: 'bad_input' });
    await expect(run).rejects.toThrow(message);
    expect(await rowCounts(ctx.database)).toEqual(before);
  });

  it('assembly: the stored score is scoreGrid of the answer against its puzzle', async () => {
    const { answers } = await listAnswers(ctx.database, { run: 'r1', task: 'assemble' });
    const a1 = answers.find((a) => a.externalId === 'a1')!;
    // Imported assemble answers were scored on import; re-scoring gives the same document.
    const onImport = await getAssemblyScore(ctx.database, a1.id);
    const s = (await scoreAndStoreAssembly(ctx.database, a1.id))!;
    expect(s).toEqual(onImport);
    const a3 = answers.find((a) => a.externalId === 'a3')!;
    expect(await getAssemblyScore(ctx.database, a3.id)).toMatchObject({ status: 'invalid', direct: 0, neighbour: 0 });
    // Every row rotated left by one: no piece in place; of the 93 truth pairs, each row keeps 7 of its 8
    // horizontal pairs (the wrapped pair is 8 columns apart) and all 45 vertical pairs survive: 87/93.
    expect(s.direct).toBe(0);
    expect(s.neighbour).toBeCloseTo(87 / 93, 12);
    expect(s.adjacency).toBeCloseTo(87 / 93, 12);
    expect(await getAssemblyScore(ctx.database, a1.id)).toEqual(s);
    const again = await scoreAndStoreAssembly(ctx.database, a1.id);
    expect(again).toEqual(s);
    expect((await rowCounts(ctx.database)).assembly_scores).toBe(3);
    const d1 = answers.length && (await listAnswers(ctx.database, { run: 'r1', task: 'describe' })).answers[0]!;
    await expect(scoreAndStoreAssembly(ctx.database, d1 ? d1.id : -1)).rejects.toThrow(/task 'describe' is not an assembly/);
  });

  it('labels: JSONL and CSV, answer-level and item-level, re-import replaces with replace; errors name the line', async () => {
    const l = await importLabels(
      ctx.database,
      { path: 'l.jsonl', content: jsonl({ answer: 'd1', run: 'r1', item: 'barn', rater: 'ann', label: 'correct' }, { answer: 'd1', run: 'r1', rater: 'ann', label: 4 }) },
    );
    expect(l).toEqual({ inserted: 2, replaced: 0, unchanged: 0, runs: ['r1'] });
    const csv = 'answer,run,item,rater,kind,label\nd1,r1,barn,ann,human,partial\nd1,r1,"fence",bob,,"missing"\n';
    expect(await importLabels(ctx.database, { path: 'l.csv', content: csv }, { replace: true })).toEqual({ inserted: 1, replaced: 1, unchanged: 0, runs: ['r1'] });
    const { labels } = await listLabels(ctx.database, { run: 'r1' });
    expect(labels.map((x) => [x.answer, x.item, x.annotator, x.kind, x.label])).toEqual([
      ['d1', null, 'ann', 'human', '4'],
      ['d1', 'barn', 'ann', 'human', 'partial'],
      ['d1', 'fence', 'bob', 'human', 'missing'],
    ]);
    const before = await rowCounts(ctx.database);
    await expect(importLabels(ctx.database, { path: 'b.csv', content: 'answer,run,item,rater,label\nd1,r1,barn,zed,correct\nd1,r1,nope,zed,correct\n' })).rejects.toThrow(
      "b.csv:3: item: unknown item 'nope' for this answer's rubric",
    );
    await expect(importLabels(ctx.database, { path: 'b.jsonl', content: jsonl({ answer: 'zz', run: 'r1', rater: 'x', label: 'y' }) })).rejects.toThrow(
      "b.jsonl:1: answer: unknown answer 'zz' in run 'r1'",
    );
    await expect(importLabels(ctx.database, { path: 'b.jsonl', content: jsonl({ answer: 'd1', run: 'r1', label: 'y' }) })).rejects.toThrow(
      'b.jsonl:1: rater: required ("rater" or "annotator")',
    );
    await expect(importLabels(ctx.database, { path: 'b.csv', content: 'answer,rater,label\nd1,x\n' })).rejects.toThrow('b.csv:2: has 2 fields, the header has 3');
    expect(await rowCounts(ctx.database)).toEqual(before);
  });

  it('labels: saveLabel inserts then replaces one label', async () => {
    const d1 = (await listAnswers(ctx.database, { run: 'r1', task: 'describe' })).answers[0]!;
    expect(await saveLabel(ctx.database, { answerId: d1.id, item: 'pond', annotator: 'cy', label: 'correct' })).toEqual({ created: true, unchanged: false });
    expect(await saveLabel(ctx.database, { answerId: d1.id, item: 'pond', annotator: 'cy', label: 'partial' })).toEqual({ created: false, unchanged: false });
    const { labels } = await listLabels(ctx.database, { answerIds: [d1.id], annotator: 'cy' });
    expect(labels.map((x) => [x.item, x.label])).toEqual([['pond', 'partial']]);
    // The same label again replaces nothing: it says so, and the label keeps the time it was given.
    expect(await saveLabel(ctx.database, { answerId: d1.id, item: 'pond', annotator: 'cy', label: 'partial' })).toEqual({ created: false, unchanged: true });
    expect((await listLabels(ctx.database, { answerIds: [d1.id], annotator: 'cy' })).labels[0]!.createdAt).toEqual(labels[0]!.createdAt);
    await expect(saveLabel(ctx.database, { answerId: d1.id, item: 'unicorn', annotator: 'cy', label: 'x' })).rejects.toThrow(/unknown item 'unicorn'/);
    await expect(saveLabel(ctx.database, { answerId: 999999, annotator: 'cy', label: 'x' })).rejects.toMatchObject({ code: 'not_found' });
    expect((await getAnswer(ctx.database, d1.id)).externalId).toBe('d1');
  });
});
