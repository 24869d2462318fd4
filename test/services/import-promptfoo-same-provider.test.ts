import { describe, expect, it } from 'vitest';
import { CONVERTERS } from '../../src/services/import-formats/index.ts';

/**
 * promptfoo compares configurations of one model as providers of the same id (`openai:gpt-4o` at temperature 0
 * and at 1); without labels a result names its provider only by that id ({id, label}: the config is not in the
 * output file). promptIdx counts provider × prompt, so the second provider's answers read as a second prompt of
 * the first: both were stored in one run (test-0-prompt-0 at temperature 0, test-0-prompt-1 at 1), exit 0, and
 * the run mixed two conditions. Two columns of one provider name, one test and one prompt cannot be told apart:
 * refused, asking for labels.
 */

const result = (testIdx: number, promptIdx: number, provider: Record<string, string>, output: string) => ({
  id: `r-${testIdx}-${promptIdx}`,
  testIdx,
  promptIdx,
  promptId: 'p-describe',
  provider,
  prompt: { raw: `Describe the picture: farm${testIdx}.png`, label: 'describe' },
  vars: { image: `farm${testIdx}.png` },
  testCase: { vars: { image: `farm${testIdx}.png` }, assert: [{ type: 'llm-rubric', value: 'mentions the barn' }] },
  response: { output, tokenUsage: { total: 1240, prompt: 1200, completion: 40 } },
  success: true,
  score: 1,
  latencyMs: 900,
  namedScores: {},
  gradingResult: { pass: true, score: 1, reason: 'Mentions the barn.' },
  failureReason: 0,
});

const file = (results: unknown[], prompts: unknown[]) => ({
  path: 'results.json',
  content: JSON.stringify({ evalId: 'eval-x', results: { version: 3, timestamp: '2026-11-20T10:00:00.000Z', prompts, results }, config: {} }),
});
const prompt = (provider: string) => ({ raw: 'Describe the picture: {{image}}', label: 'describe', id: 'p-describe', provider });

describe('promptfoo providers of one id without labels', () => {
  it('are refused, naming the provider and asking for labels', () => {
    const gpt = { id: 'openai:gpt-4o' };
    const f = file(
      [result(0, 0, gpt, 'A red barn.'), result(0, 1, gpt, 'A crimson barn, wildly.'), result(1, 0, gpt, 'A cow.'), result(1, 1, gpt, 'A cow dancing.')],
      [prompt('openai:gpt-4o'), prompt('openai:gpt-4o')],
    );
    expect(() => CONVERTERS.promptfoo(f, {})).toThrow(
      "results.json: results.results[1]: provider 'openai:gpt-4o' answers test 0 with prompt 'describe' in two columns (promptIdx 0 and 1): two providers of one id without labels, whose answers cannot be told apart; give each provider a label",
    );
  });

  it('with labels they are two runs, and one provider with two prompts is still one run of two prompts', () => {
    const labelled = CONVERTERS.promptfoo(file([result(0, 0, { id: 'openai:gpt-4o', label: 'gpt-4o-t0' }, 'A red barn.'), result(0, 1, { id: 'openai:gpt-4o', label: 'gpt-4o-t1' }, 'A barn.')], []), {});
    expect(labelled.rows.map((r) => [r.row.model, r.row.id])).toEqual([
      ['gpt-4o-t0', 'test-0'],
      ['gpt-4o-t1', 'test-0'],
    ]);
    const two = (idx: number) => ({ ...result(0, idx, { id: 'openai:gpt-4o' }, `answer ${idx}`), promptId: `p${idx}`, prompt: { raw: `prompt ${idx}`, label: `prompt ${idx}` } });
    expect(CONVERTERS.promptfoo(file([two(0), two(1)], []), {}).rows.map((r) => r.row.id)).toEqual(['test-0-prompt-0', 'test-0-prompt-1']);
  });
});
