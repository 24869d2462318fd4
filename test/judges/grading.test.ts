import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { grades, judgeCache, labels, usageLedger } from '../../src/db/schema.ts';
import { parseJudgeConfig } from '../../src/judges/config.ts';
import { loadCalibrationLabels } from '../../src/services/grading/calibration-labels.ts';
import { gradeAnswer } from '../../src/services/grading/grade-answer.ts';
import { createGradingSession } from '../../src/services/grading/session.ts';
import { mulberry32 } from '../../src/stats/random.ts';
import { type FakeProvider, startFakeProvider, type Step } from '../fake-provider/server.ts';
import { describeDb } from '../helpers/db.ts';
import { farmyard, farmyardAnswer, fullVerdicts } from './harness.ts';

/** The grading service end to end: fake provider → real SDK → engine → grades, cache and ledger tables. */
const keysFor = (fake: FakeProvider) => ({ anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url, openaiApiKey: 'sk', openaiBaseUrl: fake.openaiBaseUrl });
const quiet = { sleep: async () => {}, random: mulberry32(3) };

describeDb('grading service', (ctx) => {
  let fake: FakeProvider;
  beforeAll(async () => {
    fake = await startFakeProvider();
  });
  afterAll(async () => {
    await fake.close();
  });

  it('grades the farmyard example end to end and stores 0.5814 / 0.7857 / 0.6683', async () => {
    fake.setScript([{ kind: 'verdicts', output: fullVerdicts() }]);
    const before = fake.calls.length;
    const g = await gradeAnswer(ctx.database, { judge: 'claude', keys: keysFor(fake), engine: quiet, rubric: farmyard, answer: { text: farmyardAnswer, run: 'farmyard-e2e' } });
    expect(fake.calls.length - before).toBe(1);
    expect(g.status).toBe('ok');
    expect(g.completeness!.toFixed(4)).toBe('0.5814');
    expect(g.correctness!.toFixed(4)).toBe('0.7857');
    expect(g.f1!.toFixed(4)).toBe('0.6683');
    expect(g.items.find((i) => i.id === 'pasture-animals')).toEqual({ id: 'pasture-animals', weight: 2, verdict: 'partial', evidence: '', points: 1, confidence: null, confidenceSource: null });
    expect(g.meta.orientation).toEqual({ stated: 'landscape', correct: true });
    const [row] = await ctx.database.db.select().from(grades).where(eq(grades.id, g.gradeId));
    expect(row!.status).toBe('ok');
    expect(row!.completeness).toBeCloseTo(12.5 / 21.5, 12);
    expect(row!.correctness).toBeCloseTo(11 / 14, 12);
    expect(row!.promptHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row!.items).toHaveLength(farmyard.items.length);
    const ledger = await ctx.database.db.select().from(usageLedger).where(eq(usageLedger.answerId, g.answerId));
    expect(ledger.map((l) => l.status)).toEqual(['ok']);
    expect(ledger[0]!.inputTokens + ledger[0]!.cacheWriteTokens).toBeGreaterThan(0);

    // A re-run is served from the database cache: no call, same scores, still one grade row.
    const again = await gradeAnswer(ctx.database, { judge: 'claude', keys: keysFor(fake), engine: quiet, rubric: { slug: 'farmyard-54' }, answer: { id: g.answerId } });
    expect(fake.calls.length - before).toBe(1);
    expect(again.usage).toMatchObject({ calls: 0, cached: true });
    expect(again.f1).toBe(g.f1);
    expect(again.gradeId).toBe(g.gradeId);
    expect(await ctx.database.db.select().from(grades).where(eq(grades.answerId, g.answerId))).toHaveLength(1);
    expect((await ctx.database.db.select().from(judgeCache)).length).toBeGreaterThanOrEqual(1);
  });

  // A judge that emits U+0000 (raw or as a JSON escape) must still leave a stored grade: PostgreSQL text
  // and jsonb refuse the character, which used to fail the insert instead of storing the verdicts.
  it.each(['raw', 'escaped'] as const)('a judge reply with a %s NUL is stored with U+FFFD in its place', async (form) => {
    const v = fullVerdicts() as { items: Array<Record<string, unknown>>; claims: unknown[] };
    v.items[0] = { ...v.items[0], evidence: 'the barn\u0000 is red' };
    const text = form === 'raw' ? JSON.stringify(v).replace('\\u0000', '\u0000') : JSON.stringify(v);
    expect(text.includes(form === 'raw' ? '\u0000' : '\\u0000')).toBe(true);
    fake.setScript([{ kind: 'text', text }]);
    const g = await gradeAnswer(ctx.database, { judge: 'claude', keys: keysFor(fake), engine: quiet, rubric: farmyard, answer: { text: `${farmyardAnswer} (${form} NUL)`, run: 'nul-judge' } });
    expect(g.status).toBe('ok');
    expect(g.completeness!.toFixed(4)).toBe('0.5814');
    const [row] = await ctx.database.db.select().from(grades).where(eq(grades.id, g.gradeId));
    expect(row!.rawOutput).not.toContain('\u0000');
    expect(JSON.stringify(row!.items)).toContain('the barn\ufffd is red');
  });

  // Every fault of issue 5 §4, stored: the grade row's status, null scores, and the provider calls made
  // (a judge with max_attempts 3, and a 300 ms timeout for the hang, through each real SDK).
  const fixed = { kind: 'verdicts' as const, output: fullVerdicts() };
  const unknownIds = { kind: 'verdicts' as const, output: { ...fullVerdicts(), items: fullVerdicts().items.map((i: any, n) => (n === 0 ? { ...i, id: 'barnyard' } : i)) } };
  const faults: Array<[string, string, number, Step[]]> = [
    ['429 then ok', 'ok', 2, [{ kind: 'status', status: 429, headers: { 'retry-after': '1' } }, fixed]],
    ['500, 529 then ok', 'ok', 3, [{ kind: 'status', status: 500 }, { kind: 'status', status: 529 }, fixed]],
    ['persistent 500s', 'provider_error', 3, [{ kind: 'status', status: 500 }]],
    ['a hang', 'provider_error', 3, [{ kind: 'hang' }]],
    ['truncated JSON', 'truncated', 1, [{ kind: 'truncated', text: '{"items":[' }]],
    ['a refusal', 'refused', 1, [{ kind: 'refusal', text: 'No.' }]],
    ['prose around the JSON', 'ok', 1, [{ kind: 'text', text: `Sure! ${JSON.stringify(fullVerdicts())} Done.` }]],
    ['unknown item ids, fixed on re-ask', 'ok', 2, [unknownIds, fixed]],
    ['unknown item ids twice', 'parse_failure', 2, [unknownIds]],
    ['an echo of the answer', 'parse_failure', 2, [{ kind: 'echo' }]],
    ['HTTP 400', 'provider_error', 1, [{ kind: 'status', status: 400 }]],
    ['HTTP 401', 'provider_error', 1, [{ kind: 'status', status: 401 }]],
    ['quota exhausted', 'provider_error', 1, [{ kind: 'status', status: 429, code: 'insufficient_quota', message: 'insufficient_quota: check your billing' }]],
  ];
  const cases = (['anthropic', 'openai'] as const).flatMap((p) => faults.map(([name, status, calls, script]) => [p, name, status, calls, script] as const));
  it.each(cases)('%s: %s → stored status %s after %i call(s)', async (provider, name, status, calls, script) => {
    fake.setScript(script);
    const before = fake.calls.length;
    const judge = parseJudgeConfig(
      { id: `faults-${provider}`, provider, model: provider === 'anthropic' ? 'claude-sonnet-5' : 'gpt-4.1', prompt: 'prompts/rubric-v1.md', params: { max_tokens: 500, temperature: 0, timeout_ms: name === 'a hang' ? 300 : 10_000, max_attempts: 3 } },
      'fault judge',
    );
    const session = await createGradingSession(ctx.database, { judge, keys: keysFor(fake), engine: quiet });
    const g = await session.grade({ rubric: farmyard, answer: { text: `${farmyardAnswer}\n(${provider}: ${name})`, run: 'faults' } });
    expect(fake.calls.length - before).toBe(calls);
    const [row] = await ctx.database.db.select().from(grades).where(eq(grades.id, g.gradeId));
    expect(row!.status).toBe(status);
    const ledger = await ctx.database.db.select().from(usageLedger).where(eq(usageLedger.answerId, g.answerId));
    expect(ledger).toHaveLength(calls);
    if (status === 'ok') {
      expect(row!.f1!.toFixed(4)).toBe('0.6683');
    } else {
      expect(row!.reason).toBeTruthy();
      expect([row!.completeness, row!.correctness, row!.f1]).toEqual([null, null, null]);
      expect([g.completeness, g.correctness, g.f1]).toEqual([null, null, null]);
    }
  });

  it('loads a run\'s human labels and the judge\'s verdicts for calibration', async () => {
    fake.setScript([{ kind: 'verdicts', output: fullVerdicts() }]);
    const g = await gradeAnswer(ctx.database, { judge: 'claude', keys: keysFor(fake), engine: quiet, rubric: farmyard, answer: { text: farmyardAnswer, run: 'calib', externalId: 'a1' } });
    await ctx.database.db.insert(labels).values({ answerId: g.answerId, itemKey: 'barn', annotator: 'ann', kind: 'human', label: 'partial' });
    const rows = await loadCalibrationLabels(ctx.database, { run: 'calib', judge: 'claude' });
    expect(rows).toContainEqual({ answer: 'a1', item: 'barn', model: 'unknown', rater: 'ann', kind: 'human', label: 'partial', rubric: farmyard.id });
    expect(rows).toContainEqual({ answer: 'a1', item: 'barn', model: 'unknown', rater: 'claude', kind: 'judge', label: 'correct', rubric: farmyard.id });
    expect(rows.filter((r) => r.kind === 'judge')).toHaveLength(farmyard.items.length);
    await expect(loadCalibrationLabels(ctx.database, { run: 'nope', judge: 'claude' })).rejects.toThrow(/run 'nope' not found/);
  });
});
