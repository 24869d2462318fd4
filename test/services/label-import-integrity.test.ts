import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { importAnswersJsonl } from '../../src/services/answers.ts';
import { importLabels } from '../../src/services/import-labels.ts';
import { listLabels } from '../../src/services/labels.ts';
import { importRubrics } from '../../src/services/rubrics.ts';
import { FIXTURES } from '../helpers/cli.ts';
import { describeDb, rowCounts } from '../helpers/db.ts';

/**
 * Issue 11 finding 2: a label import without a run matched another run's answers and replaced 500
 * labels with exit 0. An ambiguous reference is refused; changing a stored label needs `replace`.
 */

const jsonl = (...rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
const labelsOf = async (ctx: { database: Parameters<typeof listLabels>[0] }, run: string) =>
  (await listLabels(ctx.database, { run })).labels.map((l) => [l.answer, l.item, l.annotator, l.label]);

describeDb('label import: no silent replacement, no ambiguous answers', (ctx) => {
  beforeAll(async () => {
    await importRubrics(ctx.database, [{ path: 'farmyard.yaml', content: readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8') }]);
    // Two runs with the same answer ids 0 and 1 (what a numbered export of each run looks like).
    for (const run of ['run-a', 'run-b']) {
      await importAnswersJsonl(ctx.database, {
        path: `${run}.jsonl`,
        content: jsonl(...[0, 1].map((id) => ({ id, run, model: `m-${run}`, task: 'describe', rubric: 'farmyard-54', text: `answer ${id}` }))),
      });
    }
  });

  it('an answer id found in several runs is bad input naming the runs; nothing is written', async () => {
    const before = await rowCounts(ctx.database);
    const file = { path: 'l.jsonl', content: jsonl({ answer: 0, item: 'barn', rater: 'ann', label: 'correct' }) };
    const err = await importLabels(ctx.database, file).then(
      () => null,
      (e: unknown) => e as { code: string; message: string },
    );
    expect(err?.code).toBe('bad_input');
    expect(err?.message).toBe(`l.jsonl:1: answer: answer '0' is in 2 runs (run-a, run-b); name the run (a "run" field, or --run / ?run=)`);
    expect(err?.message).not.toContain('\n');
    expect(await rowCounts(ctx.database)).toEqual(before);
    // With the run named it lands in that run only, and the summary says which run.
    expect(await importLabels(ctx.database, file, { run: 'run-a' })).toEqual({ inserted: 1, replaced: 0, unchanged: 0, runs: ['run-a'] });
    expect(await labelsOf(ctx, 'run-b')).toEqual([]);
  });

  it('changing stored labels is refused without replace (how many, with examples), done with it', async () => {
    const first = jsonl(
      { answer: 1, run: 'run-a', item: 'barn', rater: 'ann', label: 'correct' },
      { answer: 1, run: 'run-a', item: 'fence', rater: 'ann', label: 'missing' },
      { answer: 1, run: 'run-a', item: 'pond', rater: 'ann', label: 'partial' },
    );
    expect(await importLabels(ctx.database, { path: 'first.jsonl', content: first })).toEqual({ inserted: 3, replaced: 0, unchanged: 0, runs: ['run-a'] });
    // The same file again changes nothing: no flag needed, nothing counted as replaced.
    expect(await importLabels(ctx.database, { path: 'first.jsonl', content: first })).toEqual({ inserted: 0, replaced: 0, unchanged: 3, runs: ['run-a'] });

    const second = jsonl(
      { answer: 1, run: 'run-a', item: 'barn', rater: 'ann', label: 'incorrect' },
      { answer: 1, run: 'run-a', item: 'fence', rater: 'ann', label: 'missing' },
      { answer: 1, run: 'run-a', item: 'pond', rater: 'ann', kind: 'judge', label: 'partial' },
      { answer: 1, run: 'run-a', item: 'barn', rater: 'bob', label: 'correct' },
    );
    const before = await rowCounts(ctx.database);
    const stored = await labelsOf(ctx, 'run-a');
    const err = await importLabels(ctx.database, { path: 'second.jsonl', content: second }).then(
      () => null,
      (e: unknown) => e as { code: string; message: string },
    );
    expect(err?.code).toBe('conflict');
    expect(err?.message).toBe(
      'second.jsonl: would replace 2 stored labels (second.jsonl:1 answer "1" of run "run-a", item "barn", rater "ann": "correct" → "incorrect"; ' +
        'second.jsonl:3 answer "1" of run "run-a", item "pond", rater "ann": kind human → judge); nothing written — to replace them, import again with --replace (API: ?replace=true)',
    );
    expect(await rowCounts(ctx.database)).toEqual(before);
    expect(await labelsOf(ctx, 'run-a')).toEqual(stored);

    expect(await importLabels(ctx.database, { path: 'second.jsonl', content: second }, { replace: true })).toEqual({ inserted: 1, replaced: 2, unchanged: 1, runs: ['run-a'] });
    const after = await listLabels(ctx.database, { run: 'run-a', annotator: 'ann' });
    expect(after.labels.filter((l) => l.answer === '1').map((l) => [l.item, l.kind, l.label])).toEqual([
      ['barn', 'human', 'incorrect'],
      ['fence', 'human', 'missing'],
      ['pond', 'judge', 'partial'],
    ]);
  });

  it('a refusal lists at most three examples and counts the rest', async () => {
    const rows = ['barn', 'fence', 'pond', 'sky', 'style'].map((item) => ({ answer: 0, run: 'run-b', item, rater: 'cy', label: 'correct' }));
    expect((await importLabels(ctx.database, { path: 'a.jsonl', content: jsonl(...rows) })).inserted).toBe(5);
    const err = await importLabels(ctx.database, { path: 'b.jsonl', content: jsonl(...rows.map((r) => ({ ...r, label: 'missing' }))) }).then(
      () => '',
      (e: Error) => e.message,
    );
    expect(err).toMatch(/^b\.jsonl: would replace 5 stored labels \(b\.jsonl:1 .*; b\.jsonl:2 .*; b\.jsonl:3 [^;]*; and 2 more\); nothing written/);
  });
});
