import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { panelItemConfidence } from '../../../src/scoring/panel/index.ts';
import { gradeAnswer, namedJudge, openJudge } from '../../../src/services/grading/grade-answer.ts';
import { gradesOfAnswer } from '../../../src/services/grading/grade-detail.ts';
import { mulberry32 } from '../../../src/stats/random.ts';
import { type FakeProvider, startFakeProvider } from '../../fake-provider/server.ts';
import { describeDb } from '../../helpers/db.ts';
import { farmyard, farmyardAnswer } from '../../judges/harness.ts';

/**
 * Item confidence carried from the provider's token log-probabilities into the stored grade, through the
 * real openai SDK against the fake (docs/grades.md#confidence), and a panel's confidence (docs/panels.md):
 *   m1 (gpt-4.1, logprobs):       a correct .9   b correct .6    c partial .5    (every other item missing, p 1)
 *   m2 (gpt-4.1-mini, logprobs):  a correct .7   b missing .8    c partial .4
 *   m3 (claude, no logprobs):     a partial      b correct       c incorrect
 * Panel [m1, m2] (all ok samples have probabilities): a correct (.9 + .7)/2 = .8; b ties correct/missing →
 * missing, (0 + .8)/2 = .4 (m1 voted otherwise: 0); c partial (.5 + .4)/2 = .45; the rest missing, 1.
 * Panel [m1, m2, m3] (m3 has none): the vote share — a correct 2/3, b correct 2/3, c partial 2/3, rest 1.
 */

const [a, b, c] = farmyard.items.map((i) => i.id) as [string, string, string];
const claims = [{ text: 'a barn', verdict: 'true' as const }];
const MODELS = {
  'gpt-4.1': [{ kind: 'verdict-set' as const, verdicts: { [a]: 'correct', [b]: 'correct', [c]: 'partial' } as const, claims, confidence: { [a]: 0.9, [b]: 0.6, [c]: 0.5 } }],
  'gpt-4.1-mini': [{ kind: 'verdict-set' as const, verdicts: { [a]: 'correct', [b]: 'missing', [c]: 'partial' } as const, claims, confidence: { [a]: 0.7, [b]: 0.8, [c]: 0.4 } }],
  'claude-sonnet-5': [{ kind: 'verdict-set' as const, verdicts: { [a]: 'partial', [b]: 'correct', [c]: 'incorrect' } as const, claims }],
};
const quiet = { sleep: async () => {}, random: mulberry32(3) };

describe('panel item confidence (pure)', () => {
  const result = { items: [{ id: 'x', verdict: 'correct' as const, agreement: 0.5 }, { id: 'y', verdict: null, agreement: null }] } as never;
  it('mean probability of the voted verdict (dissenters 0) when every ok sample has one; else the vote share', () => {
    const s = (verdict: string, p: number | undefined, status = 'ok') => ({ status, items: [{ id: 'x', verdict }], ...(p !== undefined ? { confidence: { x: p } } : {}) });
    expect(panelItemConfidence(result, [s('correct', 0.8), s('partial', 0.9), s('correct', 0.2, 'provider_error')]).get('x')).toEqual({ confidence: 0.4, confidenceSource: 'logprob' });
    expect(panelItemConfidence(result, [s('correct', 0.8), s('partial', undefined)]).get('x')).toEqual({ confidence: 0.5, confidenceSource: 'vote' });
    expect(panelItemConfidence(result, [s('correct', 0.8)]).get('y')).toEqual({ confidence: null, confidenceSource: null });
  });
});

describeDb('item confidence in grades', (ctx) => {
  let fake: FakeProvider;
  const dir = mkdtempSync(join(tmpdir(), 'assay-confidence-'));
  const file = (id: string, body: string) => {
    writeFileSync(join(dir, `${id}.yaml`), `id: ${id}\n${body}\n`);
    return join(dir, `${id}.yaml`);
  };
  const member = (id: string, provider: string, model: string, logprobs: boolean) =>
    file(id, `provider: ${provider}\nmodel: ${model}\nmode: rubric\nprompt: prompts/rubric-v1.md\nparams: { max_tokens: 2000, temperature: 0, timeout_ms: 10000, max_attempts: 2${logprobs ? ', logprobs: true' : ''} }`);
  const grade = async (judge: string, run: string) => {
    const keys = { anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url, openaiApiKey: 'sk', openaiBaseUrl: fake.openaiBaseUrl };
    return gradeAnswer(ctx.database, { judge: await openJudge(namedJudge(judge, keys, { from: 'local' }), keys), engine: quiet, rubric: farmyard, answer: { text: farmyardAnswer, run } });
  };
  const conf = (g: { items: Array<{ id: string; confidence: number | null; confidenceSource: string | null }> }, id: string) => {
    const it = g.items.find((x) => x.id === id)!;
    return [it.confidence, it.confidenceSource];
  };

  beforeAll(async () => {
    fake = await startFakeProvider({ models: MODELS });
    member('c-m1', 'openai', 'gpt-4.1', true);
    member('c-m2', 'openai', 'gpt-4.1-mini', true);
    member('c-m3', 'anthropic', 'claude-sonnet-5', false);
    member('c-plain', 'openai', 'gpt-4.1', false);
  });
  afterAll(async () => {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('an OpenAI judge with logprobs: each item verdict’s probability in the grade, the stored read and a cache hit', async () => {
    const g = await grade(join(dir, 'c-m1.yaml'), 'conf-one');
    expect(g.status).toBe('ok');
    expect(conf(g, a)).toEqual([expect.closeTo(0.9, 12), 'logprob']);
    expect(conf(g, b)).toEqual([expect.closeTo(0.6, 12), 'logprob']);
    expect(conf(g, c)).toEqual([expect.closeTo(0.5, 12), 'logprob']);
    // An item the judge listed as missing (the fake lists every item) is certain.
    expect(conf(g, farmyard.items[5]!.id)).toEqual([1, 'logprob']);
    const stored = (await gradesOfAnswer(ctx.database, g.answerId)).find((s) => s.grade.judge.id === 'c-m1')!.grade;
    expect(JSON.parse(JSON.stringify(stored))).toEqual(JSON.parse(JSON.stringify(g)));
    const calls = fake.calls.length;
    const again = await grade(join(dir, 'c-m1.yaml'), 'conf-one');
    expect(fake.calls.length).toBe(calls);
    expect(again.usage.cached).toBe(true);
    expect(again.items).toEqual(g.items);
  });

  it('no logprobs asked, or Anthropic: null', async () => {
    const plain = await grade(join(dir, 'c-plain.yaml'), 'conf-plain');
    expect(plain.items.every((i) => i.confidence === null && i.confidenceSource === null)).toBe(true);
    const claude = await grade(join(dir, 'c-m3.yaml'), 'conf-plain');
    expect(claude.items.every((i) => i.confidence === null && i.confidenceSource === null)).toBe(true);
  });

  it('a panel whose samples all have probabilities: mean probability of the voted verdict; otherwise the vote share', async () => {
    const both = await grade(file('c-p2', 'provider: panel\nmembers: [c-m1, c-m2]'), 'conf-panel');
    expect(both.status).toBe('ok');
    expect(conf(both, a)).toEqual([expect.closeTo(0.8, 12), 'logprob']);
    expect(both.items.find((i) => i.id === b)!.verdict).toBe('missing');
    expect(conf(both, b)).toEqual([expect.closeTo(0.4, 12), 'logprob']);
    expect(conf(both, c)).toEqual([expect.closeTo(0.45, 12), 'logprob']);
    expect(conf(both, farmyard.items[5]!.id)).toEqual([1, 'logprob']);

    const three = await grade(file('c-p3', 'provider: panel\nmembers: [c-m1, c-m2, c-m3]'), 'conf-panel');
    expect(three.status).toBe('ok');
    for (const id of [a, b, c]) expect(conf(three, id)).toEqual([2 / 3, 'vote']);
    expect(conf(three, farmyard.items[5]!.id)).toEqual([1, 'vote']);
    // The confidence of a panel item is stored with the grade: the stored read says the same.
    const stored = (await gradesOfAnswer(ctx.database, three.answerId)).find((s) => s.grade.judge.id === 'c-p3')!.grade;
    expect(stored.items).toEqual(three.items);
  });
});
