import { describe, expect, it } from 'vitest';
import { CONVERTERS } from '../../src/services/import-formats/index.ts';

/**
 * Inspect sample fields the converter must read rather than pass over: `limit` (the sample was halted by a
 * message, token, time … limit: its output is what it had when stopped) and the single `score` of logs
 * written before `scores` (Inspect migrates it on reading; skipping it lost every score without a word).
 */

const log = (samples: unknown[], results: unknown = undefined) => ({
  path: 'log.json',
  content: JSON.stringify({ version: 1, eval: { task: 't', model: 'openai/gpt-4o', config: {} }, ...(results ? { results } : {}), samples }),
});
const output = (text: string, stop = 'stop') => ({ choices: [{ message: { content: text }, stop_reason: stop }] });

describe('Inspect sample limits', () => {
  it('a sample halted by a limit is truncated, and meta says which limit', () => {
    const c = CONVERTERS.inspect(
      log([
        { id: 'a', epoch: 1, output: output('partial'), limit: { type: 'time', limit: 60 }, scores: {} },
        { id: 'b', epoch: 1, output: output('whole'), scores: {} },
        { id: 'c', epoch: 1, output: output(''), limit: { type: 'message', limit: 10 }, error: { message: 'boom' } },
      ]),
      {},
    );
    expect(c.rows.map((r) => r.row.status ?? null)).toEqual(['truncated', null, 'error']);
    expect((c.rows[0]!.row.meta as { source: Record<string, unknown> }).source.limit).toBe('time');
    expect((c.rows[1]!.row.meta as { source: Record<string, unknown> }).source).not.toHaveProperty('limit');
  });
});

describe('Inspect logs with the single `score` of older versions', () => {
  it('import it under the scorer the results name', () => {
    const c = CONVERTERS.inspect(
      log(
        [
          { id: 'a', epoch: 1, output: output('x'), score: { value: 'C', explanation: 'right' } },
          { id: 'b', epoch: 1, output: output('y'), score: { value: 'I' } },
        ],
        { scorer: { name: 'match', params: {} }, metrics: {} },
      ),
      {},
    );
    expect(c.rows.map((r) => r.scores.map((s) => [s.scorer, s.value]))).toEqual([[['match', 1]], [['match', 0]]]);
    expect(c.skipped).toEqual([]);
  });
  it("under 'score' when the results name no scorer", () => {
    const c = CONVERTERS.inspect(log([{ id: 'a', epoch: 1, output: output('x'), score: { value: 0.5 } }]), {});
    expect(c.rows[0]!.scores.map((s) => [s.scorer, s.value])).toEqual([['score', 0.5]]);
  });
  it('a sample with both is bad input (Inspect refuses it too)', () => {
    expect(() => CONVERTERS.inspect(log([{ id: 'a', epoch: 1, output: output('x'), score: { value: 1 }, scores: { m: { value: 1 } } }]), {})).toThrow(
      /^log\.json: samples\[0\]: both "score" and "scores"/,
    );
  });
});

describe('Inspect samples invalidated after the run', () => {
  it('are skipped with who invalidated them and why, not imported as answers with their scores', () => {
    const c = CONVERTERS.inspect(
      log([
        { id: 'a', epoch: 1, output: output('x'), scores: { m: { value: 1 } }, invalidation: { timestamp: '2026-01-01T00:00:00Z', author: 'ana', reason: 'sandbox leaked the answer' } },
        { id: 'b', epoch: 1, output: output('y'), scores: { m: { value: 0 } }, invalidation: null },
      ]),
      {},
    );
    expect(c.rows.map((r) => r.row.id)).toEqual(['b']);
    expect(c.skipped).toEqual([{ where: 'log.json: samples[0]', reason: "invalidated by ana (sandbox leaked the answer) after the run (the log marks it invalid)" }]);
  });
});

/**
 * `score_on_error` (Inspect's eval option) runs the scorers on a sample that errored, so the log holds both its
 * `error` and `scores` (an `I` for the failed call). Imported, the answer was an error and the tool's 0 its grade
 * too, exit 0: a failure counted once as missing and once as a wrong answer. An error is a status, not a score.
 */
describe('Inspect samples that errored and were scored anyway (score_on_error)', () => {
  it('are errors without the scores, each reported', () => {
    const error = { message: 'RateLimitError: 429', traceback: 'Traceback …', traceback_ansi: '' };
    const c = CONVERTERS.inspect(
      log([
        { id: 'a', epoch: 1, output: output('A barn.'), scores: { match: { value: 'C' } } },
        { id: 'b', epoch: 1, output: { model: 'gpt-4o', choices: [], completion: '' }, error, scores: { match: { value: 'I', explanation: 'no answer' }, judge: { value: 0 } } },
      ]),
      {},
    );
    expect(c.rows.map((r) => [r.row.id, r.row.status ?? null, r.scores.map((s) => [s.scorer, s.value])])).toEqual([
      ['a', null, [['match', 1]]],
      ['b', 'error', []],
    ]);
    expect(c.skipped).toEqual([{ where: 'log.json: samples[1]', reason: "the sample errored (RateLimitError: 429) and was scored anyway (score_on_error): an error is a status, not a score, so it is imported as an error without score 'match', 'judge'" }]);
  });
});
