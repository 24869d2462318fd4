import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { listAnswers } from '../../src/services/answers.ts';
import { importForeignAnswers } from '../../src/services/import-foreign.ts';
import { CONVERTERS } from '../../src/services/import-formats/index.ts';
import { importRubrics } from '../../src/services/rubrics.ts';
import { describeDb } from '../helpers/db.ts';

/**
 * VLMEvalKit writes a failed call into the prediction column: an API model that exhausted its retries returns
 * its fail_msg ('Failed to obtain answer via API.', vlmeval/api/base.py; some wrappers add a detail or name the
 * API), a local model under SKIP_ERR=1 'Failed to obtain answer: <error>' (vlmeval/inference.py), and its own
 * rerun retries every row whose prediction holds the message. Imported as it stood, the message was an ok
 * answer, sent to the judges and carrying its `hit` of 0 as a grade, exit 0: a failed call counted as a wrong
 * answer. It is an error: no text, no score, the message in meta.
 */

// As dump_tsv writes a table (pandas to_csv, sep '\t', csv.QUOTE_ALL; the image column dropped).
const tsv = [
  ['index', 'question', 'A', 'B', 'prediction', 'answer', 'category', 'hit'],
  ['0', 'What stands on the left?', 'A barn', 'A tractor', 'A barn stands on the left of the hill.', 'A', 'describe', '1'],
  ['1', 'What stands on the left?', 'A barn', 'A tractor', 'Failed to obtain answer via API.', 'A', 'describe', '0'],
  ['2', 'What stands on the left?', 'A barn', 'A tractor', "Failed to obtain answer: <class 'RuntimeError'> CUDA out of memory.", 'A', 'describe', '0'],
  ['3', 'What stands on the left?', 'A barn', 'A tractor', 'Failed to obtain answer via API. Input string longer than context window. ', 'A', 'describe', '0'],
]
  .map((r) => r.map((c) => `"${c}"`).join('\t'))
  .join('\n');
const file = { path: 'GPT4o_MMBench_DEV_EN.tsv', content: `${tsv}\n` };

describe('VLMEvalKit predictions that are a failed call', () => {
  it('are errors without text or score, the message kept in meta', () => {
    const c = CONVERTERS.vlmevalkit(file, { model: 'GPT4o', rubric: 'farmyard-54' });
    expect(c.rows.map((r) => [r.row.id, r.row.text, r.row.status ?? null, r.scores.map((s) => s.value)])).toEqual([
      ['0', 'A barn stands on the left of the hill.', null, [1]],
      ['1', null, 'error', []],
      ['2', null, 'error', []],
      ['3', null, 'error', []],
    ]);
    expect((c.rows[2]!.row.meta as { source: Record<string, unknown> }).source.error).toBe("Failed to obtain answer: <class 'RuntimeError'> CUDA out of memory.");
    expect(c.skipped).toEqual([3, 4, 5].map((line) => ({ where: `GPT4o_MMBench_DEV_EN.tsv:${line}`, reason: "prediction is VLMEvalKit's message for a failed call: imported as an error, without its text and score 'hit'" })));
  });
});

describeDb('VLMEvalKit failed calls stored', (ctx) => {
  beforeAll(async () => {
    await importRubrics(ctx.database, [{ path: 'farmyard.yaml', content: readFileSync('test/fixtures/farmyard.rubric.yaml', 'utf8') }]);
  });
  it('as error answers with no text and no grade', async () => {
    const r = await importForeignAnswers(ctx.database, file, 'vlmevalkit', { task: 'describe', rubric: 'farmyard-54', model: 'GPT4o' });
    expect(r).toMatchObject({ imported: 4, grades: { stored: 1 } });
    const stored = (await listAnswers(ctx.database, { run: 'GPT4o' })).answers.map((a) => [a.externalId, a.status, a.text]).sort();
    expect(stored).toEqual([
      ['0', 'ok', 'A barn stands on the left of the hill.'],
      ['1', 'error', null],
      ['2', 'error', null],
      ['3', 'error', null],
    ]);
  });
});
