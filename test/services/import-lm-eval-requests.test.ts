import { describe, expect, it } from 'vitest';
import { CONVERTERS } from '../../src/services/import-formats/index.ts';

/**
 * lm-evaluation-harness writes every response as a string (loggers/evaluation_tracker.py runs
 * `sanitize_list` over resps and filtered_resps: str() of each leaf), so a loglikelihood request's
 * `[logprob, is_greedy]` is `["-1.5", "False"]` and a loglikelihood_rolling request's logprob is `"-412.3"`.
 * Read by their shape, a multiple-choice log was refused as "2 responses (the task's repeats)", and a
 * perplexity log imported every document with its logprob as the answer text, exit 0. The request type is in
 * `arguments` (gen_args_<i>.arg_1: generation kwargs for generate_until, the continuation for loglikelihood,
 * none for loglikelihood_rolling).
 */

const convert = (...lines: object[]) => CONVERTERS['lm-eval']({ path: 'samples_t.jsonl', content: lines.map((l) => `${JSON.stringify(l)}\n`).join('') }, { model: 'm' });
const hash = { doc_hash: 'd', prompt_hash: 'p', target_hash: 't' };

const generation = (id: number, text: string) => ({
  doc_id: id,
  doc: { question: 'Describe the picture.' },
  target: 'A red barn.',
  arguments: { gen_args_0: { arg_0: '<image> Describe the picture.', arg_1: { until: ['\n\n'], do_sample: false, temperature: 0 }, arg_2: { visual: '<PIL.Image.Image image mode=RGB size=640x480>' } } },
  resps: [[text]],
  filtered_resps: [text],
  filter: 'none',
  metrics: ['exact_match'],
  ...hash,
  exact_match: 0,
});
const choice = (id: number) => ({
  doc_id: id,
  doc: { question: 'Which animal is by the barn?', choices: ['cow', 'horse'] },
  target: '0',
  arguments: { gen_args_0: { arg_0: 'Which animal is by the barn?\nAnswer:', arg_1: ' cow' }, gen_args_1: { arg_0: 'Which animal is by the barn?\nAnswer:', arg_1: ' horse' } },
  resps: [[['-1.25', 'False']], [['-3.5', 'False']]],
  filtered_resps: [['-1.25', 'False'], ['-3.5', 'False']],
  filter: 'none',
  metrics: ['acc', 'acc_norm'],
  ...hash,
  acc: 1.0,
  acc_norm: 1.0,
});
const rolling = (id: number) => ({
  doc_id: id,
  doc: { page: 'A farmyard is …' },
  target: 'A farmyard is …',
  arguments: { gen_args_0: { arg_0: 'A farmyard is …' } },
  resps: [['-412.3']],
  filtered_resps: ['-412.3'],
  filter: 'none',
  metrics: ['word_perplexity', 'byte_perplexity', 'bits_per_byte'],
  ...hash,
  word_perplexity: [-412.3, 90],
  byte_perplexity: [-412.3, 480],
  bits_per_byte: [-412.3, 480],
});

describe('lm-eval requests as the harness logs them (string leaves)', () => {
  it('a multiple-choice (loglikelihood) document is skipped, not refused as repeats', () => {
    const c = convert(generation(0, 'A red barn.'), choice(1));
    expect(c.rows.map((r) => [r.row.id, r.row.text])).toEqual([['0', 'A red barn.']]);
    expect(c.skipped).toEqual([{ where: 'samples_t.jsonl:2', reason: expect.stringMatching(/^no generated text \(a loglikelihood or multiple-choice request/) }]);
  });

  it('a loglikelihood_rolling (perplexity) document is skipped, its logprob is no answer', () => {
    const c = convert(generation(0, '42'), rolling(1));
    expect(c.rows.map((r) => [r.row.id, r.row.text])).toEqual([['0', '42']]);
    expect(c.skipped[0]).toEqual({ where: 'samples_t.jsonl:2', reason: expect.stringMatching(/^no generated text \(a loglikelihood_rolling request/) });
  });

  it('a file of only such requests has no answers', () => {
    expect(convert(rolling(0), rolling(1)).rows).toEqual([]);
    expect(convert(choice(0)).rows).toEqual([]);
  });

  it('the older list form of arguments ([[context, continuation]]) is read the same way', () => {
    const old = { ...choice(3), arguments: [['ctx', ' cow'], ['ctx', ' horse']] };
    const gen = { ...generation(4, 'A cow.'), arguments: [['ctx', { until: ['\n'] }]] };
    const c = convert(old, gen);
    expect(c.rows.map((r) => [r.row.id, r.row.text])).toEqual([['4', 'A cow.']]);
    expect(c.skipped.map((s) => s.where)).toEqual(['samples_t.jsonl:1']);
  });
});
