import { describe, expect, it } from 'vitest';
import { CONVERTERS } from '../../src/services/import-formats/index.ts';
import type { Converted } from '../../src/services/import-formats/index.ts';

/**
 * Scores of other tools that are no shares must not reach the grades as shares: a scorer that gives 7
 * somewhere in the file is not on [0, 1], so its 1 elsewhere is not full marks; promptfoo's "No
 * assertions" result (score 1 for a test with nothing to check) is no score at all.
 */

const scoresOf = (c: Converted) => c.rows.map((r) => r.scores.map((s) => [s.scorer, s.value]));

const inspectLog = (samples: unknown[]) => ({ path: 'log.json', content: JSON.stringify({ eval: { task: 't', model: 'openai/gpt-4o', config: {} }, samples }) });
const sample = (id: string, scores: Record<string, unknown>) => ({ id, epoch: 1, output: { choices: [{ message: { content: `answer ${id}` }, stop_reason: 'stop' }] }, scores });

describe('a scorer with values outside [0, 1] somewhere in the file', () => {
  it('Inspect: its in-range values are skipped too, the other scorers kept', () => {
    const c = CONVERTERS.inspect(
      inspectLog([sample('a', { rating: { value: 1 }, qa: { value: 'C' } }), sample('b', { rating: { value: 7 }, qa: { value: 'I' } }), sample('c', { rating: { value: 0 } })]),
      {},
    );
    expect(scoresOf(c)).toEqual([[['qa', 1]], [['qa', 0]], []]);
    expect(c.skipped).toEqual([
      { where: 'log.json: samples[1]', reason: "score 'rating': value 7 is outside [0, 1] (assay keeps scores as shares; rescale it first); the answer is imported without it" },
      { where: 'log.json: samples[0]', reason: "score 'rating': value 1 is not read as a share: the same scorer gives 7 at log.json: samples[1], outside [0, 1], so its scale is not [0, 1]; the answer is imported without it" },
      { where: 'log.json: samples[2]', reason: "score 'rating': value 0 is not read as a share: the same scorer gives 7 at log.json: samples[1], outside [0, 1], so its scale is not [0, 1]; the answer is imported without it" },
    ]);
  });

  it('VLMEvalKit: a score column on 0-10 stores none of its values', () => {
    const c = CONVERTERS.vlmevalkit({ path: 'p.tsv', content: 'index\tprediction\tscore\n1\ta\t1\n2\tb\t8\n3\tc\t0.5\n' }, { model: 'm' });
    expect(scoresOf(c)).toEqual([[], [], []]);
    expect(c.skipped.map((s) => s.where)).toEqual(['p.tsv:3', 'p.tsv:2', 'p.tsv:4']);
  });

  it('lm-eval: a metric given as a string number outside [0, 1] counts too', () => {
    const line = (id: number, v: unknown) => JSON.stringify({ doc_id: id, filtered_resps: [`t${id}`], filter: 'none', metrics: ['rouge1'], rouge1: v });
    const c = CONVERTERS['lm-eval']({ path: 's.jsonl', content: `${line(0, 1)}\n${line(1, '45.5')}\n` }, { model: 'm' });
    expect(scoresOf(c)).toEqual([[], []]);
    expect(c.skipped).toHaveLength(2);
  });

  it('a scorer whose values are all shares is kept whole', () => {
    const c = CONVERTERS.inspect(inspectLog([sample('a', { rating: { value: 1 } }), sample('b', { rating: { value: 0.5 } })]), {});
    expect(scoresOf(c)).toEqual([[['rating', 1]], [['rating', 0.5]]]);
    expect(c.skipped).toEqual([]);
  });
});

describe('promptfoo results without assertions', () => {
  const result = (testIdx: number, gradingResult: unknown) => ({ testIdx, promptIdx: 0, provider: { id: 'openai:gpt-4o' }, response: { output: `out ${testIdx}` }, gradingResult });
  it('"No assertions" (score 1 with nothing checked) is no score; a real grading result is kept', () => {
    const content = JSON.stringify({
      results: {
        version: 3,
        results: [result(0, { pass: true, score: 1, reason: 'No assertions', tokensUsed: { total: 0 } }), result(1, { pass: true, score: 1, reason: 'All assertions passed', componentResults: [{ pass: true, score: 1 }] })],
      },
    });
    const c = CONVERTERS.promptfoo({ path: 'r.json', content }, {});
    expect(scoresOf(c)).toEqual([[], [['promptfoo', 1]]]);
    expect(c.skipped).toEqual([{ where: 'r.json: results.results[0]', reason: 'gradingResult: the test has no assertions (promptfoo scores it 1 with nothing checked); the answer is imported without a score' }]);
  });
});

describe('promptfoo results that failed their assertions', () => {
  // promptfoo writes an assertion's failure into the result's `error` too (applyGradingResult: error =
  // reason, failureReason 1 ASSERT); only failureReason 2 (ERROR) or a response error is a failed call.
  const base = { promptIdx: 0, provider: { id: 'openai:gpt-4o' } };
  const failedAssert = { pass: false, score: 0, reason: 'Expected output to contain "cow"' };
  const content = JSON.stringify({
    results: {
      version: 3,
      results: [
        { ...base, testIdx: 0, response: { output: 'a barn' }, error: failedAssert.reason, failureReason: 1, gradingResult: failedAssert },
        // Files from before failureReason: the error is the grading result's reason.
        { ...base, testIdx: 1, response: { output: 'a hill' }, error: failedAssert.reason, gradingResult: failedAssert },
        { ...base, testIdx: 2, response: { error: 'HTTP 500' }, error: 'HTTP 500', failureReason: 2 },
        { ...base, testIdx: 3, error: 'No output', failureReason: 2, response: { output: null } },
        // The model answered, the grader crashed: the answer is fine, there is no score.
        { ...base, testIdx: 4, response: { output: 'a cow' }, error: 'TypeError: x is undefined', failureReason: 2 },
      ],
    },
  });
  it('are answers with their score, not failed calls; provider errors and empty outputs still are', () => {
    const c = CONVERTERS.promptfoo({ path: 'r.json', content }, {});
    expect(c.rows.map((r) => [r.row.id, r.row.status ?? null, r.row.text])).toEqual([
      ['test-0', null, 'a barn'],
      ['test-1', null, 'a hill'],
      ['test-2', 'error', null],
      ['test-3', 'error', null],
      ['test-4', null, 'a cow'],
    ]);
    expect(scoresOf(c)).toEqual([[['promptfoo', 0]], [['promptfoo', 0]], [], [], []]);
    expect(c.skipped).toEqual([{ where: 'r.json: results.results[4]', reason: "error after the model's response (TypeError: x is undefined): the answer is imported without a score" }]);
  });
});

describe('promptfoo answer ids', () => {
  // promptfoo's promptIdx indexes the prompts of all providers (buildCompletedPrompts: provider × prompt),
  // so provider B's only prompt is promptIdx 1 beside provider A and 0 alone: its answers must not change
  // names with the other providers of the eval, or one run holds a test twice.
  const result = (label: string, testIdx: number, promptIdx: number) => ({ testIdx, promptIdx, provider: { id: `x:${label}`, label }, response: { output: `${label} ${testIdx} ${promptIdx}` } });
  const file = (results: unknown[]) => ({ path: 'r.json', content: JSON.stringify({ results: { version: 3, results } }) });
  const ids = (c: Converted) => c.rows.map((r) => [r.row.model, r.row.id]);
  it("number a provider's prompts among its own, not among all providers'", () => {
    expect(ids(CONVERTERS.promptfoo(file([result('a', 0, 0), result('b', 0, 1), result('a', 1, 0), result('b', 1, 1)]), {}))).toEqual([
      ['a', 'test-0'], ['b', 'test-0'], ['a', 'test-1'], ['b', 'test-1'],
    ]);
    expect(ids(CONVERTERS.promptfoo(file([result('b', 0, 0), result('b', 1, 0)]), {}))).toEqual([['b', 'test-0'], ['b', 'test-1']]);
    expect(ids(CONVERTERS.promptfoo(file([result('a', 0, 0), result('a', 0, 1), result('b', 0, 2), result('b', 0, 3)]), {}))).toEqual([
      ['a', 'test-0-prompt-0'], ['a', 'test-0-prompt-1'], ['b', 'test-0-prompt-0'], ['b', 'test-0-prompt-1'],
    ]);
  });
});
