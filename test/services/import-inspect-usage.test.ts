import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { listAnswers } from '../../src/services/answers.ts';
import { importForeignAnswers } from '../../src/services/import-foreign.ts';
import { CONVERTERS } from '../../src/services/import-formats/index.ts';
import { importRubrics } from '../../src/services/rubrics.ts';
import { describeDb } from '../helpers/db.ts';

/**
 * An Inspect sample that called its model twice (a tool round, a retry of the solver, multi-turn) keeps the
 * last call's ModelOutput in `output`, and `output.usage` is that call's usage only. The sample's own tokens
 * are `model_usage` (dict of model name → ModelUsage, summed by Inspect over every call of the sample) and,
 * call by call, the `model` events' `output.usage`. Reading `output.usage` stored the last call's 1500/60 as
 * the answer's tokens where the sample used 1200+1500 = 2700 in and 40+60 = 100 out, exit 0. model_usage also
 * holds the scorer's grader model (model_graded_qa runs inside the sample): only the eval model's entry counts.
 */

const EVAL_MODEL = 'openai/gpt-4o';
const GRADER = 'anthropic/claude-grader';
const usage = (input: number, out: number) => ({ input_tokens: input, output_tokens: out, total_tokens: input + out });
const call = (model: string, input: number, out: number, text: string) => ({
  event: 'model',
  model,
  input: [],
  tools: [],
  tool_choice: 'auto',
  config: {},
  output: { model, choices: [{ message: { role: 'assistant', content: text }, stop_reason: 'stop' }], usage: usage(input, out) },
});
const last = { choices: [{ message: { role: 'assistant', content: 'A red barn.' }, stop_reason: 'stop' }], usage: usage(1500, 60) };

const samples = [
  // model_usage and the events agree: 1200+1500 in, 40+60 out; the grader's 900/30 is not the answer's.
  {
    id: 'two-calls',
    epoch: 1,
    output: last,
    events: [call(EVAL_MODEL, 1200, 40, 'Let me look.'), call(EVAL_MODEL, 1500, 60, 'A red barn.'), call(GRADER, 900, 30, 'GRADE: C')],
    model_usage: { [EVAL_MODEL]: usage(2700, 100), [GRADER]: usage(900, 30) },
    scores: { match: { value: 'C' } },
  },
  // A log without model_usage (events only): the eval model's events summed, 300+500 in, 20+25 out.
  { id: 'events-only', epoch: 1, output: { ...last, usage: usage(500, 25) }, events: [call(EVAL_MODEL, 300, 20, 'a'), call(EVAL_MODEL, 500, 25, 'b'), call(GRADER, 70, 7, 'GRADE: I')], scores: {} },
  // One call and nothing else: output.usage is the sample's.
  { id: 'one-call', epoch: 1, output: { ...last, usage: usage(800, 12) }, scores: {} },
];
const file = { path: 'usage.json', content: JSON.stringify({ version: 2, eval: { task: 'describe', model: EVAL_MODEL, config: {} }, samples }) };

describe('Inspect token counts of a sample', () => {
  it('are every call of the eval model, not the last one', () => {
    const c = CONVERTERS.inspect(file, {});
    expect(c.rows.map((r) => [r.row.id, r.row.usage])).toEqual([
      ['two-calls', { input_tokens: 2700, output_tokens: 100 }],
      ['events-only', { input_tokens: 800, output_tokens: 45 }],
      ['one-call', { input_tokens: 800, output_tokens: 12 }],
    ]);
  });
});

describeDb('Inspect token counts stored', (ctx) => {
  beforeAll(async () => {
    await importRubrics(ctx.database, [{ path: 'farmyard.yaml', content: readFileSync('test/fixtures/farmyard.rubric.yaml', 'utf8') }]);
  });
  it('are the sums', async () => {
    const r = await importForeignAnswers(ctx.database, file, 'inspect', { run: 'inspect-usage', task: 'describe', rubric: 'farmyard-54' });
    expect(r).toMatchObject({ imported: 3 });
    const stored = (await listAnswers(ctx.database, { run: 'inspect-usage' })).answers.map((a) => [a.externalId, a.inputTokens, a.outputTokens]).sort();
    expect(stored).toEqual([
      ['events-only', 800, 45],
      ['one-call', 800, 12],
      ['two-calls', 2700, 100],
    ]);
  });
});
