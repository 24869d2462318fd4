import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONVERTERS } from '../../src/services/import-formats/index.ts';
import { shareOf } from '../../src/services/import-formats/scores.ts';

/** The converters of other tools' files: exact rows, scores and skipped records on the fixtures. */

const DIR = 'test/fixtures/import-formats';
const file = (name: string) => ({ path: `${DIR}/${name}`, content: readFileSync(`${DIR}/${name}`, 'utf8') });
const opts = { rubric: 'farmyard-54' };

describe('score values', () => {
  it("map Inspect's C/I/P/N, booleans and shares; refuse what is not a share", () => {
    expect(['C', 'I', 'P', 'N', true, false, 0.25, '0.5', 'yes'].map((v) => shareOf(v))).toEqual([1, 0, 0.5, 0, 1, 0, 0.25, 0.5, 1].map((value) => ({ value })));
    expect(shareOf(7)).toEqual({ problem: 'value 7 is outside [0, 1] (assay keeps scores as shares; rescale it first)', offScale: 7 });
    expect(shareOf('great')).toMatchObject({ problem: expect.stringMatching(/not a score/) });
    expect(shareOf([1, 2])).toMatchObject({ problem: expect.stringMatching(/not a scalar/) });
  });
});

describe('Inspect eval log', () => {
  const c = CONVERTERS.inspect(file('inspect-log.json'), opts);
  it('one answer per sample, text from the content parts, model from eval.model, status from stop_reason and error', () => {
    expect(c.rows.map((r) => [r.row.id, r.row.model, r.row.status ?? null, r.row.stop_reason ?? null])).toEqual([
      ['farm-1', 'openai/gpt-4o', null, 'stop'],
      ['farm-2', 'openai/gpt-4o', 'truncated', 'max_tokens'],
      ['3', 'openai/gpt-4o', 'error', null],
      ['farm-4', 'openai/gpt-4o', null, 'stop'],
    ]);
    expect(c.rows[0]!.row.text).toMatch(/^A red barn stands/);
    expect(c.rows[0]!.row.usage).toEqual({ input_tokens: 1200, output_tokens: 40 });
    expect(c.rows[0]!.row.meta).toEqual({ source: { tool: 'inspect', task: 'jigsaw_describe', sample: 'farm-1', epoch: 1, target: 'A red barn, a cow, a rooster on a fence.' } });
    expect(c.rows[0]!.row.rubric).toBe('farmyard-54');
  });
  it('scores per scorer; a scorer with a value out of range is skipped whole, with its reasons', () => {
    expect(c.rows.map((r) => r.scores.map((s) => [s.scorer, s.value, s.raw]))).toEqual([
      [['model_graded_qa', 1, 'C']],
      [['model_graded_qa', 0.5, 'P']],
      [],
      [['model_graded_qa', 0, 'I']],
    ]);
    expect(c.rows[0]!.scores[0]!.explanation).toBe('Mentions barn, cow and rooster.');
    expect(c.skipped).toEqual([
      { where: `${DIR}/inspect-log.json: samples[1]`, reason: "score 'match': value 7 is outside [0, 1] (assay keeps scores as shares; rescale it first); the answer is imported without it" },
      { where: `${DIR}/inspect-log.json: samples[0]`, reason: `score 'match': value 0.25 is not read as a share: the same scorer gives 7 at ${DIR}/inspect-log.json: samples[1], outside [0, 1], so its scale is not [0, 1]; the answer is imported without it` },
    ]);
  });
});

describe('promptfoo output', () => {
  const c = CONVERTERS.promptfoo(file('promptfoo-results.json'), opts);
  it('one answer per result, the provider label as model, errors as status, a non-text output skipped', () => {
    expect(c.rows.map((r) => [r.row.id, r.row.model, r.row.status ?? null, r.row.text === null ? null : String(r.row.text).slice(0, 12)])).toEqual([
      ['test-0', 'gpt-4o-mini', null, 'A red barn s'],
      ['test-0', 'claude-haiku', null, 'The picture '],
      ['test-1', 'claude-haiku', 'error', null],
    ]);
    expect(c.rows[0]!.row.usage).toEqual({ prompt_tokens: 1200, completion_tokens: 40 });
    expect(c.rows.map((r) => r.scores.map((s) => [s.scorer, s.value]))).toEqual([[['promptfoo', 0.8]], [['promptfoo', 0.4]], []]);
    expect(c.skipped).toEqual([{ where: `${DIR}/promptfoo-results.json: results.results[2]`, reason: 'response.output is object, not text (assay grades text answers)' }]);
  });
});

describe('lm-evaluation-harness samples', () => {
  const c = CONVERTERS['lm-eval'](file('lm-eval-samples.jsonl'), { ...opts, model: 'hf-llava', filter: 'none' });
  it('one answer per document of the chosen filter; metrics as scores; other filters and loglikelihood skipped', () => {
    expect(c.rows.map((r) => [r.row.id, r.row.model, r.loc.line])).toEqual([['0', 'hf-llava', 1], ['1', 'hf-llava', 2], ['2', 'hf-llava', 3]]);
    expect(c.rows.map((r) => r.scores.map((s) => [s.scorer, s.value]))).toEqual([[['exact_match', 1]], [['exact_match', 0]], [['exact_match', 0]]]);
    expect(c.skipped.map((s) => s.where)).toEqual([`${DIR}/lm-eval-samples.jsonl`, ...[1, 2, 3, 5].map((l) => `${DIR}/lm-eval-samples.jsonl:${l}`)]);
    expect(c.skipped[0]!.reason).toBe("filter 'strict-match': 1 line (from line 4) not imported: --filter none");
    expect(c.skipped[1]!.reason).toBe("score 'bleu': value 12.5 is outside [0, 1] (assay keeps scores as shares; rescale it first); the answer is imported without it");
    expect(c.skipped[4]!.reason).toMatch(/^no generated text \(a loglikelihood/);
  });
});

describe('VLMEvalKit table', () => {
  const c = CONVERTERS.vlmevalkit(file('vlmevalkit-predictions.tsv'), { ...opts, model: 'llava-v1.5-7b' });
  it('one answer per row keyed by index; a quoted multi-line prediction kept whole; a hit of 2 skips the hit column', () => {
    expect(c.rows.map((r) => [r.row.id, r.loc.line])).toEqual([['101', 2], ['102', 3], ['103', 5]]);
    expect(c.rows[1]!.row.text).toBe('The picture is a farmyard.\nThere is a barn\twith a "red" door.');
    expect(c.rows.map((r) => r.scores.map((s) => s.value))).toEqual([[], [], []]);
    expect(c.skipped.map((s) => [s.where, s.reason.split(' (')[0]!.split(':').slice(0, 2).join(':')])).toEqual([
      [`${DIR}/vlmevalkit-predictions.tsv:5`, "score 'hit': value 2 is outside [0, 1]"],
      [`${DIR}/vlmevalkit-predictions.tsv:2`, "score 'hit': value 1 is not read as a share"],
      [`${DIR}/vlmevalkit-predictions.tsv:3`, "score 'hit': value 0 is not read as a share"],
    ]);
  });
  it('refuses Excel and tables without predictions', () => {
    expect(() => CONVERTERS.vlmevalkit({ path: 'x.xlsx', content: 'a' }, {})).toThrow(/save the sheet as TSV or CSV/);
    expect(() => CONVERTERS.vlmevalkit({ path: 'x.csv', content: 'index,question\n1,q\n' }, {})).toThrow(/no 'prediction' values/);
  });
});

describe('malformed files', () => {
  it('name the file and, where there are lines, the line', () => {
    expect(() => CONVERTERS.inspect({ path: 'l.json', content: '{"eval": 1}' }, {})).toThrow(/^l\.json: not an Inspect eval log/);
    expect(() => CONVERTERS.inspect({ path: 'l.json', content: '{"eval": {}, ' }, {})).toThrow(/^l\.json: not valid JSON/);
    expect(() => CONVERTERS.promptfoo({ path: 'p.json', content: '{"results": {}}' }, {})).toThrow(/^p\.json: not a promptfoo output file/);
    expect(() => CONVERTERS['lm-eval']({ path: 's.jsonl', content: '{"doc_id": 0, "filtered_resps": ["a"]}\n{oops\n' }, {})).toThrow(/^s\.jsonl:2: not valid JSON/);
  });
});
