import { describe, expect, it } from 'vitest';
import { CONVERTERS } from '../../src/services/import-formats/index.ts';

/**
 * An assertion that throws ends a promptfoo result with failureReason ERROR (2) in one of two shapes
 * (src/evaluator.ts). Model-graded assertions are graded after `ret.response = processedResponse`, and
 * applyGradingError sets error (the stack), score 0, namedScores {} and no gradingResult: the response is in
 * the record, and it is the answer. Any other assertion (or a test transform) that throws escapes to
 * runEval's catch, which returns a new result of the setup, the error and failureReason ERROR, without a
 * response: the text is not in the file at all, so there is nothing to keep.
 */

const base = (testIdx: number) => ({
  testIdx,
  promptIdx: 0,
  promptId: 'p-describe',
  provider: { id: 'openai:gpt-4o', label: 'gpt-4o' },
  prompt: { raw: 'Describe the picture', label: 'describe' },
  vars: { image: 'farm.png' },
  testCase: { vars: { image: 'farm.png' }, assert: [{ type: 'llm-rubric', value: 'mentions the barn' }] },
  latencyMs: 812,
});
const deferred = {
  ...base(0),
  response: { output: 'A red barn on a green hill, a cow in front.', tokenUsage: { total: 1250, prompt: 1200, completion: 50 }, finishReason: 'stop' },
  success: false,
  failureReason: 2,
  score: 0,
  namedScores: {},
  error: 'Error: 429 Too Many Requests\n    at OpenAiChatCompletionProvider.callApi (src/providers/openai/chat.ts:512:13)',
  tokenUsage: { total: 1250, prompt: 1200, completion: 50 },
};
const caught = {
  ...base(1),
  error: "Error: Cannot find module 'checks/mentions-cow.js'\n\nError: Cannot find module 'checks/mentions-cow.js'\n    at loadFromJavaScriptFile (src/assertions/index.ts:88:11)",
  success: false,
  failureReason: 2,
  score: 0,
  namedScores: {},
  metadata: { errorContext: { providerId: 'openai:gpt-4o', providerLabel: 'gpt-4o' } },
};
const file = { path: 'results.json', content: JSON.stringify({ evalId: 'eval-t', results: { version: 3, timestamp: '2026-12-04T10:00:00.000Z', results: [deferred, caught] }, config: {} }) };

describe('promptfoo: an assertion that threw (failureReason ERROR)', () => {
  const c = CONVERTERS.promptfoo(file, {});
  it('keeps the response text when the record holds it (a model-graded assertion), as an answer without a score', () => {
    expect(c.rows[0]!.row).toMatchObject({ id: 'test-0', model: 'gpt-4o', text: 'A red barn on a green hill, a cow in front.', finish_reason: 'stop', usage: { prompt_tokens: 1200, completion_tokens: 50 } });
    expect(c.rows[0]!.row.status).toBeUndefined();
    expect(c.rows[0]!.scores).toEqual([]);
    expect(c.skipped[0]).toEqual({ where: 'results.json: results.results[0]', reason: expect.stringMatching(/^error after the model's response \(Error: 429 Too Many Requests/) });
  });
  it('stores an error without text when the record has no response (runEval caught it): the file holds none', () => {
    expect(c.rows[1]!.row).toMatchObject({ id: 'test-1', text: null, status: 'error' });
    expect(c.rows[1]!.scores).toEqual([]);
    expect(c.skipped).toHaveLength(1);
  });
});
