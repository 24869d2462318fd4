import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../../../src/app.ts';
import type { ItemVerdict } from '../../../src/domain/verdicts.ts';
import { scoreDescription } from '../../../src/scoring/description/score.ts';
import { sampleItemOrder } from '../../../src/scoring/panel/index.ts';
import { gradeAnswer, namedJudge, openJudge } from '../../../src/services/grading/grade-answer.ts';
import { gradesOfAnswer } from '../../../src/services/grading/grade-detail.ts';
import { answersNeedingGrade } from '../../../src/services/grading/needs-grading.ts';
import { mulberry32 } from '../../../src/stats/random.ts';
import { type FakeProvider, startFakeProvider } from '../../fake-provider/server.ts';
import { verdictSet } from '../../fake-provider/wire.ts';
import { describeDb } from '../../helpers/db.ts';
import { farmyard, farmyardAnswer } from '../../judges/harness.ts';
import { LEXICAL_NOTE } from '../../../src/judges/engine.ts';

/**
 * A panel judge through the grading service, against the fake provider's per-model scripts and the
 * real SDKs: the vote, the quorum, shuffle, the member grades stored beside the panel's, the cache.
 */

const ids = farmyard.items.map((i) => i.id);
const [a, b, c] = ids as [string, string, string];
const set = verdictSet;
const MODELS = {
  'gpt-4.1': [set({ [a]: 'correct', [b]: 'correct', [c]: 'partial' }, ['true', 'true'])],
  'gpt-4.1-mini': [set({ [a]: 'correct', [b]: 'missing', [c]: 'partial' }, ['true', 'false'])],
  'claude-sonnet-5': [set({ [a]: 'partial', [b]: 'correct', [c]: 'incorrect' }, ['true', 'unverifiable', 'true', 'true'])],
  'always-down': [{ kind: 'status' as const, status: 500 }],
  garbled: [{ kind: 'text' as const, text: 'I think it is mostly right.' }],
};
const quiet = { sleep: async () => {}, random: mulberry32(3) };
const keysFor = (fake: FakeProvider) => ({ anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url, openaiApiKey: 'sk', openaiBaseUrl: fake.openaiBaseUrl });
const completenessOf = (v: Record<string, ItemVerdict>) => scoreDescription(farmyard, { items: Object.entries(v).map(([id, verdict]) => ({ id, verdict })), claims: [] }).completeness;
/** The item ids in the order a recorded call's prompt lists them. */
const promptOrder = (body: unknown) => [...JSON.stringify(body).matchAll(/- (\S+) \(weight /g)].map((m) => m[1]);

describeDb('panel judges in grading', (ctx) => {
  let fake: FakeProvider;
  const dir = mkdtempSync(join(tmpdir(), 'assay-panel-'));
  const judgeFile = (id: string, provider: string, model: string) =>
    writeFileSync(join(dir, `${id}.yaml`), `id: ${id}\nprovider: ${provider}\nmodel: ${model}\nmode: rubric\nprompt: prompts/rubric-v1.md\nparams: { max_tokens: 2000, temperature: 0, timeout_ms: 10000, max_attempts: 2 }\n`);
  const panelFile = (id: string, body: string) => {
    writeFileSync(join(dir, `${id}.yaml`), `id: ${id}\nprovider: panel\n${body}\n`);
    return join(dir, `${id}.yaml`);
  };
  const grade = async (panel: string, run: string) => {
    const keys = keysFor(fake);
    return gradeAnswer(ctx.database, { judge: await openJudge(namedJudge(panel, keys, { from: 'local' }), keys), engine: quiet, rubric: farmyard, answer: { text: farmyardAnswer, run } });
  };

  beforeAll(async () => {
    fake = await startFakeProvider({ models: MODELS });
    judgeFile('m-gpt', 'openai', 'gpt-4.1');
    judgeFile('m-mini', 'openai', 'gpt-4.1-mini');
    judgeFile('m-claude', 'anthropic', 'claude-sonnet-5');
    judgeFile('m-down', 'openai', 'always-down');
    judgeFile('m-garbled', 'anthropic', 'garbled');
  });
  afterAll(async () => {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('majority: the vote, every member grade stored, one call per member; a rerun is all cache hits', async () => {
    const p = panelFile('p-major', 'members: [m-gpt, m-mini, m-claude]\nvote: majority');
    const before = fake.calls.length;
    const g = await grade(p, 'panel-major');
    expect(fake.calls.length - before).toBe(3);
    expect(g.status).toBe('ok');
    // a: correct×2 vs partial; b: correct×2 vs missing; c: partial×2 vs incorrect; every other item missing×3.
    expect(g.completeness).toBeCloseTo(completenessOf({ [a]: 'correct', [b]: 'correct', [c]: 'partial' }), 12);
    // Correctness: mean of 2/2, 1/2 and 3/4 (the unverifiable claim counts against).
    expect(g.correctness).toBeCloseTo(0.75, 12);
    expect(g.f1).toBeCloseTo((2 * g.completeness! * 0.75) / (g.completeness! + 0.75), 12);
    expect(g.judge).toMatchObject({ id: 'p-major', provider: 'panel', model: 'm-gpt+m-mini+m-claude' });
    expect(g.usage).toMatchObject({ calls: 3, cached: false });
    const panel = g.panel!;
    expect(panel.members.map((m) => `${m.judge}#${m.sample} ${m.status}`)).toEqual(['m-gpt#1 ok', 'm-mini#1 ok', 'm-claude#1 ok']);
    expect(panel.items.find((i) => i.id === a)).toEqual({ id: a, verdict: 'correct', votes: { correct: 2, partial: 1, incorrect: 0, missing: 0 }, agreement: 2 / 3 });
    expect(panel.items.find((i) => i.id === c)).toMatchObject({ verdict: 'partial', votes: { correct: 0, partial: 2, incorrect: 1, missing: 0 } });
    expect(panel.items.find((i) => i.id === ids[5])).toMatchObject({ verdict: 'missing', agreement: 1 });
    expect(panel.agreement.pairwiseKappa.map((k) => `${k.a}/${k.b}`)).toEqual(['m-gpt#1/m-mini#1', 'm-gpt#1/m-claude#1', 'm-mini#1/m-claude#1']);
    expect(panel.itemOrders).toBeNull();
    expect(g.items.find((i) => i.id === a)).toMatchObject({ verdict: 'correct' });

    // The panel's grade and each member's own grade, all of this answer.
    const stored = await gradesOfAnswer(ctx.database, g.answerId);
    expect(stored.map((s) => s.grade.judge.id).sort()).toEqual(['m-claude', 'm-gpt', 'm-mini', 'p-major']);
    const mini = stored.find((s) => s.grade.judge.id === 'm-mini')!.grade;
    expect(mini).toMatchObject({ status: 'ok', correctness: 0.5, panel: null });
    expect(mini.completeness).toBeCloseTo(completenessOf({ [a]: 'correct', [c]: 'partial' }), 12);
    expect(JSON.parse(JSON.stringify(stored.find((s) => s.grade.judge.id === 'p-major')!.grade))).toEqual(JSON.parse(JSON.stringify(g)));

    const again = await grade(p, 'panel-major');
    expect(fake.calls.length - before).toBe(3);
    expect(again.usage).toMatchObject({ calls: 0, cached: true });
    expect(again.completeness).toBe(g.completeness);

    // The grade page: the members table and the votes per item with their agreement.
    const app = createApp({ database: ctx.database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 100_000 }, log: () => {} });
    const res = await app.request(`/answers/${g.answerId}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('Grade by p-major');
    expect(html).toContain('Panel members (3 of 3 samples ok, quorum 2, vote majority)');
    expect(html).toContain('m-claude#1');
    expect(html).toMatch(/Votes per item \(mean item agreement 0\.\d+\)/);
    const csv = await (await app.request(`/answers/${g.answerId}?table=panel-votes-0&format=csv`)).text();
    expect(csv.split(/\r?\n/).find((l) => l.startsWith(`${a},`))).toBe(`${a},correct,2,1,0,0,${2 / 3}`);
  });

  it('mean: completeness is the mean of the samples’ completeness', async () => {
    const p = panelFile('p-mean', 'members: [m-gpt, m-mini, m-claude]\nvote: mean');
    const g = await grade(p, 'panel-mean');
    const own = [
      completenessOf({ [a]: 'correct', [b]: 'correct', [c]: 'partial' }),
      completenessOf({ [a]: 'correct', [c]: 'partial' }),
      completenessOf({ [a]: 'partial', [b]: 'correct', [c]: 'incorrect' }),
    ];
    expect(g.status).toBe('ok');
    expect(g.completeness).toBeCloseTo((own[0]! + own[1]! + own[2]!) / 3, 12);
    expect(g.panel!.members.map((m) => m.completeness!)).toEqual(own.map((x) => expect.closeTo(x, 12)));
  });

  it('a member that always fails abstains: ok at the quorum, no_quorum (null scores, every status named) below it', async () => {
    const atQuorum = await grade(panelFile('p-down3', 'members: [m-gpt, m-mini, m-down]'), 'panel-down');
    expect(atQuorum.status).toBe('ok');
    expect(atQuorum.panel!.quorum).toBe(2);
    expect(atQuorum.panel!.members.map((m) => m.status)).toEqual(['ok', 'ok', 'provider_error']);
    expect(atQuorum.panel!.items.find((i) => i.id === b)!.votes).toEqual({ correct: 1, partial: 0, incorrect: 0, missing: 1 });
    // Tie between correct and missing goes to missing (the verdict worth fewer points).
    expect(atQuorum.panel!.items.find((i) => i.id === b)!.verdict).toBe('missing');
    expect(atQuorum.correctness).toBeCloseTo(0.75, 12);

    const below = await grade(panelFile('p-down2', 'members: [m-gpt, m-down]'), 'panel-down');
    expect(below).toMatchObject({ status: 'no_quorum', completeness: null, correctness: null, f1: null, items: [] });
    expect(below.meta.reason).toBe('1 of 2 samples ok, quorum 2: m-gpt#1 ok, m-down#1 provider_error');
    expect(below.panel!.retryable).toBe(true);
    expect(below.panel!.items.every((i) => i.verdict === null && i.agreement === null)).toBe(true);
    // The failing member's own grade is stored too, as its provider_error.
    const stored = await gradesOfAnswer(ctx.database, below.answerId);
    expect(stored.find((s) => s.grade.judge.id === 'm-down')!.grade.status).toBe('provider_error');
  });

  it('no_quorum is asked again only when every abstention was a provider_error (the needs-grading rule)', async () => {
    const needs = async (panel: string, run: string) => {
      const r = await ctx.database.execute(`select id from runs where name = $1`, [run]);
      const j = await ctx.database.execute(`select id from judges where slug = $1`, [panel]);
      // Answer text graded interactively names no rubric; the queue grades an answer that does.
      await ctx.database.execute(`update answers set rubric_id = (select id from rubrics where slug = 'farmyard-54') where run_id = $1`, [r.rows[0].id]);
      return answersNeedingGrade(ctx.database.db, Number(r.rows[0].id), Number(j.rows[0].id));
    };
    const down = await grade(panelFile('p-retry', 'members: [m-gpt, m-down]'), 'panel-retry');
    expect(down).toMatchObject({ status: 'no_quorum', panel: { retryable: true } });
    expect(await needs('p-retry', 'panel-retry')).toEqual([down.answerId]);

    const garbled = await grade(panelFile('p-final', 'members: [m-gpt, m-garbled, m-down]\nquorum: 3'), 'panel-final');
    expect(garbled.status).toBe('no_quorum');
    expect(garbled.meta.reason).toBe('1 of 3 samples ok, quorum 3: m-gpt#1 ok, m-garbled#1 parse_failure, m-down#1 provider_error');
    expect(garbled.panel!.retryable).toBe(false);
    expect(await needs('p-final', 'panel-final')).toEqual([]);
  });

  it('shuffle: each sample sees its own seeded order, recorded; samples after the first are their own cached calls', async () => {
    const p = panelFile('p-shuffle', 'members: [m-gpt, m-claude]\nsamples: 2\nshuffle: true\nseed: 7');
    // The member's own grade of the answer, made before: a shuffled sample must not replace it.
    const own = await grade(join(dir, 'm-gpt.yaml'), 'panel-shuffle');
    const before = fake.calls.length;
    const g = await grade(p, 'panel-shuffle');
    const calls = fake.calls.slice(before);
    expect(calls.length).toBe(4);
    expect(g.status).toBe('ok');
    const expected = ['m-gpt', 'm-claude'].flatMap((judge) => [1, 2].map((sample) => ({ judge, sample, order: sampleItemOrder(ids, 7, judge, sample) })));
    expect(g.panel!.itemOrders).toEqual(expected);
    expect(new Set(expected.map((e) => e.order.join(','))).size).toBe(4);
    // What each call was shown is one of the recorded orders, each once.
    expect(calls.map((call) => promptOrder(call.body).join(',')).sort()).toEqual(expected.map((e) => e.order.join(',')).sort());
    // Same verdicts whatever the order: each member's two samples agree, so every item's agreement is 1 or 1/2.
    expect(g.panel!.members.map((m) => m.completeness)).toEqual([expect.any(Number), g.panel!.members[0]!.completeness, expect.any(Number), g.panel!.members[2]!.completeness]);
    // Shuffled samples are not the members' own grades: m-gpt keeps the grade it gave alone, m-claude has none.
    const stored = await gradesOfAnswer(ctx.database, g.answerId);
    expect(own.answerId).toBe(g.answerId);
    expect(stored.find((s) => s.grade.judge.id === 'm-gpt')!.grade).toEqual(own);
    expect(stored.filter((s) => s.grade.judge.id === 'm-claude')).toEqual([]);

    const again = await grade(p, 'panel-shuffle');
    expect(fake.calls.length - before).toBe(4);
    expect(again.usage.cached).toBe(true);
  });

  it('a panel of lexical baselines is a floor and says so, like its members', async () => {
    const g = await grade(panelFile('p-lexical', 'members: [lexical]\nsamples: 2'), 'panel-lexical');
    expect(g.judge).toMatchObject({ id: 'p-lexical', provider: 'panel', baseline: true, note: LEXICAL_NOTE });
    const mixed = await grade(panelFile('p-mixed', 'members: [lexical, m-gpt]'), 'panel-mixed');
    expect(mixed.judge.baseline).toBe(false);
    expect(mixed.judge).not.toHaveProperty('note');
  });

  it('a panel of panels is refused with one bad-input line; so is --batch (checkBatchJudge)', async () => {
    panelFile('p-inner', 'members: [m-gpt, m-mini]');
    const outer = panelFile('p-outer', 'members: [p-inner, m-claude]');
    const keys = keysFor(fake);
    await expect(openJudge(namedJudge(outer, keys, { from: 'local' }), keys)).rejects.toThrow(/members\[0\]: 'p-inner' is a panel; grading with a panel of panels is not supported yet/);
    const { checkBatchJudge } = await import('../../../src/services/grading/batch.ts');
    expect(() => checkBatchJudge(join(dir, 'p-inner.yaml'))).toThrow(/--batch grades with one judge; p-inner is a panel judge/);
  });
});
