import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { listAnswers } from '../../src/services/answers.ts';
import { importForeignAnswers } from '../../src/services/import-foreign.ts';
import { CONVERTERS } from '../../src/services/import-formats/index.ts';
import { importRubrics } from '../../src/services/rubrics.ts';
import { describeDb } from '../helpers/db.ts';

/**
 * Inspect's refusal fallback (GenerateConfig.fallback_models, docs/fallbacks.qmd): when the requested model's
 * classifiers decline, the request is served by a fallback model, and the log says so on the sample's output
 * (`output.model` the serving model, `output.fallback` {model: requested, fallback_model: serving}). Before,
 * the fallback model's text was stored as an answer of `eval.model`, with the scorer's grade, exit 0: the
 * requested model's leaderboard row got another model's answers. The requested model gave no answer.
 */

const served = (text: string) => ({
  model: 'claude-opus-4-8',
  choices: [
    {
      message: { role: 'assistant', model: 'claude-opus-4-8', content: [{ type: 'data', data: { type: 'fallback', from: 'claude-fable-5', to: 'claude-opus-4-8' } }, { type: 'text', text }] },
      stop_reason: 'stop',
    },
  ],
  completion: text,
  usage: { input_tokens: 900, output_tokens: 40, total_tokens: 940 },
  fallback: { model: 'claude-fable-5', fallback_model: 'claude-opus-4-8', count: 1, metadata: { handoffs: [{ from: 'claude-fable-5', to: 'claude-opus-4-8' }] } },
});
const own = (text: string) => ({ model: 'claude-fable-5', choices: [{ message: { role: 'assistant', content: [{ type: 'text', text }] }, stop_reason: 'stop' }], completion: text });

const log = {
  path: 'fable.json',
  content: JSON.stringify({
    version: 2,
    status: 'success',
    eval: { task: 'farm', model: 'anthropic/claude-fable-5', config: { epochs: 1 } },
    samples: [
      { id: 'farm-1', epoch: 1, input: 'Describe the picture.', target: 'barn', output: own('A red barn on a hill.'), scores: { model_graded_qa: { value: 'C' } } },
      {
        id: 'farm-2',
        epoch: 1,
        input: 'Describe the picture.',
        target: 'barn',
        output: served('A red barn, a cow and a rooster.'),
        scores: { model_graded_qa: { value: 'C', explanation: 'all there' } },
        model_fallbacks: [{ model: 'claude-fable-5', fallback_model: 'claude-opus-4-8', count: 1 }],
      },
    ],
  }),
};

describe('Inspect samples served by a fallback model', () => {
  it("are no answer of the eval's model: no text, no score, the fallback in meta and the skipped list", () => {
    const c = CONVERTERS.inspect(log, { rubric: 'farmyard-54' });
    expect(c.rows.map((r) => [r.row.id, r.row.model, r.row.text, r.row.status ?? null, r.scores.map((s) => s.value)])).toEqual([
      ['farm-1', 'anthropic/claude-fable-5', 'A red barn on a hill.', null, [1]],
      ['farm-2', 'anthropic/claude-fable-5', null, 'no_answer', []],
    ]);
    expect((c.rows[1]!.row.meta as { source: Record<string, unknown> }).source.fallback).toEqual({ model: 'claude-fable-5', fallback_model: 'claude-opus-4-8' });
    expect(c.skipped).toEqual([
      {
        where: 'fable.json: samples[1]',
        reason:
          "served by fallback model 'claude-opus-4-8' (the requested 'claude-fable-5' declined it): its text and score 'model_graded_qa' are another model's, so the answer is imported as no_answer of 'anthropic/claude-fable-5' without them",
      },
    ]);
  });
});

describeDb('Inspect fallback samples stored', (ctx) => {
  beforeAll(async () => {
    await importRubrics(ctx.database, [{ path: 'farmyard.yaml', content: readFileSync('test/fixtures/farmyard.rubric.yaml', 'utf8') }]);
  });
  it("store no fallback text and no grade under the requested model's run", async () => {
    const r = await importForeignAnswers(ctx.database, log, 'inspect', { task: 'describe', rubric: 'farmyard-54' });
    expect(r).toMatchObject({ imported: 2, grades: { stored: 1 } });
    const stored = (await listAnswers(ctx.database, { run: 'anthropic/claude-fable-5' })).answers.map((a) => [a.externalId, a.status, a.text]).sort();
    expect(stored).toEqual([
      ['farm-1', 'ok', 'A red barn on a hill.'],
      ['farm-2', 'no_answer', null],
    ]);
  });
});
