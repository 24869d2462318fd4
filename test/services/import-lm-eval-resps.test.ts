import { describe, expect, it } from 'vitest';
import { CONVERTERS } from '../../src/services/import-formats/index.ts';

/**
 * lm-evaluation-harness writes `filtered_resps` as one entry per request of the document
 * (lm_eval/evaluator.py: `[req.filtered_resps[filter_key] for req in requests]`); a generation task has
 * one request, and its entry is a string after a selecting filter (take_first, the default) or the list
 * of the task's `repeats` responses when the filter keeps them all (pass@k, a regex filter alone). The
 * metrics were computed over the whole entry, so storing its first response as the answer and the
 * metric as that answer's grade mis-scores it: refused, naming the line. A one-response list is that
 * response.
 */

const convert = (...lines: object[]) => CONVERTERS['lm-eval']({ path: 's.jsonl', content: lines.map((l) => `${JSON.stringify(l)}\n`).join('') }, { model: 'm' });
const sample = (id: number, filtered: unknown, extra: object = {}) => ({ doc_id: id, filter: 'none', metrics: ['exact_match'], exact_match: 1, resps: [['x']], filtered_resps: filtered, ...extra });

describe('lm-eval filtered_resps', () => {
  it('one string per document is the answer (repeats reduced by take_first: the metric is on that one)', () => {
    const c = convert(sample(0, ['first'], { resps: [['first', 'second', 'third']] }));
    expect(c.rows.map((r) => [r.row.id, r.row.text, r.scores.map((s) => [s.scorer, s.value])])).toEqual([['0', 'first', [['exact_match', 1]]]]);
  });

  it('a one-response list (a filter that keeps a list, e.g. majority_vote last) is that response, not skipped as a loglikelihood', () => {
    const c = convert(sample(0, [['42']]), sample(1, ['7']));
    expect(c.rows.map((r) => [r.row.id, r.row.text])).toEqual([['0', '42'], ['1', '7']]);
    expect(c.skipped).toEqual([]);
  });

  it("repeats kept by the filter (several responses, one metric over them) are refused: one answer cannot carry another's score", () => {
    expect(() => convert(sample(0, ['ok']), sample(1, [['a', 'b', 'c']], { metrics: ['pass@1'], 'pass@1': 0.33 }))).toThrow(
      /^s\.jsonl:2: filtered_resps\[0\]: holds 3 responses \(the task's repeats\)/,
    );
  });

  it('several requests of generated text for one document are refused, not the first kept', () => {
    expect(() => convert(sample(0, ['a', 'b']))).toThrow(/^s\.jsonl:1: filtered_resps: holds 2 generated responses/);
  });

  it('loglikelihood entries ([logprob, is_greedy] per choice) are still skipped with their reason', () => {
    const c = convert(sample(0, ['t']), sample(1, [[-3, false], [-4, false]], { metrics: ['acc'], acc: 0 }));
    expect(c.rows.map((r) => r.row.id)).toEqual(['0']);
    expect(c.skipped).toEqual([{ where: 's.jsonl:2', reason: expect.stringMatching(/^no generated text \(a loglikelihood/) }]);
  });
});
