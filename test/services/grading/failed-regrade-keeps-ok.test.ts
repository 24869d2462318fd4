import { afterAll, beforeAll, expect, it } from 'vitest';
import { gradeUpserter, type GradeRow } from '../../../src/db/grade-store.ts';
import { gradeAnswer, openJudge } from '../../../src/services/grading/grade-answer.ts';
import { mulberry32 } from '../../../src/stats/random.ts';
import { type FakeProvider, startFakeProvider, type Step } from '../../fake-provider/server.ts';
import { describeDb } from '../../helpers/db.ts';
import { JUDGE_FILE, seedRun, VERDICTS } from '../../jobs/helpers.ts';

/**
 * A live regrade (`assay grade`, POST /api/grades) whose judge call fails used to replace the answer's ok
 * grade under the same key (answer × judge configuration × rubric version) in place: the verdicts and
 * scores were gone and reports counted the answer as a failure. A failure never replaces an ok grade: the
 * ok grade stays (same id, scores, time) with the failed attempt in meta.lastAttempt; an ok regrade still
 * replaces it (and drops lastAttempt).
 */

const keysFor = (fake: FakeProvider) => ({ anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url });
const engine = { sleep: async () => {}, random: mulberry32(7) };
const rows = async (ctx: { database: { execute: (q: string, p?: unknown[]) => Promise<{ rows: any[] }> } }, id: number) =>
  (await ctx.database.execute(`select id, status, completeness, f1, meta, created_at from grades where answer_id = $1 order by id`, [id])).rows;

describeDb('a failed live regrade keeps the ok grade', (ctx) => {
  let fake: FakeProvider;
  beforeAll(async () => {
    fake = await startFakeProvider({ script: [VERDICTS] });
  });
  afterAll(async () => {
    await fake.close();
  });

  const failures: Array<[string, Step, string]> = [
    ['an HTTP 500', { kind: 'status', status: 500, message: 'overloaded' }, 'provider_error'],
    ['an unparseable reply', { kind: 'text', text: 'I would rather not say.' }, 'parse_failure'],
  ];
  it.each(failures)('after %s the ok grade and its scores stay; the attempt is in meta.lastAttempt', async (_what, step, status) => {
    const { answerIds } = await seedRun(ctx.database, `keep-ok-${status}`, 1);
    const id = answerIds[0]!;
    fake.setScript([VERDICTS]);
    const first = await gradeAnswer(ctx.database, { judge: JUDGE_FILE, keys: keysFor(fake), engine, answer: { id } });
    expect(first.status).toBe('ok');
    expect(first.completeness).toBeGreaterThan(0);
    const [stored] = await rows(ctx, id);
    // A regrade that is asked again (its cached verdict gone), and fails.
    await ctx.database.execute(`delete from judge_cache`);
    fake.setScript([step]);
    const again = await gradeAnswer(ctx.database, { judge: JUDGE_FILE, keys: keysFor(fake), engine, answer: { id } });
    // The front is told of the failure and given the grade that stays.
    expect(again.gradeId).toBe(first.gradeId);
    expect(again.status).toBe('ok');
    expect(again.completeness).toBe(first.completeness);
    expect(again.f1).toBe(first.f1);
    expect(again.meta.lastAttempt).toMatchObject({ status, reason: expect.any(String) });
    const after = await rows(ctx, id);
    expect(after.map((r) => [Number(r.id), r.status, Number(r.completeness), Number(r.f1)])).toEqual([[first.gradeId, 'ok', first.completeness, first.f1]]);
    // The grade's time stays the ok grade's: it is still the grade it was.
    expect(new Date(after[0]!.created_at).toISOString()).toBe(new Date(stored!.created_at).toISOString());
    expect(after[0]!.meta.lastAttempt).toMatchObject({ status, reason: again.meta.lastAttempt && (again.meta.lastAttempt as { reason: string }).reason });
    expect(Date.parse((after[0]!.meta.lastAttempt as { at: string }).at)).not.toBeNaN();

    // An ok regrade replaces it in place, and the failed attempt's note goes with the old grade.
    await ctx.database.execute(`delete from judge_cache`);
    fake.setScript([VERDICTS]);
    const ok = await gradeAnswer(ctx.database, { judge: JUDGE_FILE, keys: keysFor(fake), engine, answer: { id } });
    expect(ok.gradeId).toBe(first.gradeId);
    expect(ok.status).toBe('ok');
    expect(ok.meta.lastAttempt).toBeUndefined();
    expect((await rows(ctx, id))[0]!.meta.lastAttempt).toBeUndefined();
  });

  it('a failure still replaces a failure (the retry of a provider_error), and an ok grade replaces a failure', async () => {
    const { answerIds } = await seedRun(ctx.database, 'keep-ok-failures', 1);
    const id = answerIds[0]!;
    fake.setScript([{ kind: 'text', text: 'no json here' }]);
    const bad = await gradeAnswer(ctx.database, { judge: JUDGE_FILE, keys: keysFor(fake), engine, answer: { id } });
    expect(bad.status).toBe('parse_failure');
    fake.setScript([{ kind: 'status', status: 500 }]);
    const worse = await gradeAnswer(ctx.database, { judge: JUDGE_FILE, keys: keysFor(fake), engine, answer: { id } });
    expect([worse.gradeId, worse.status, worse.meta.lastAttempt]).toEqual([bad.gradeId, 'provider_error', undefined]);
    fake.setScript([VERDICTS]);
    const ok = await gradeAnswer(ctx.database, { judge: JUDGE_FILE, keys: keysFor(fake), engine, answer: { id } });
    expect([ok.gradeId, ok.status]).toEqual([bad.gradeId, 'ok']);
    expect((await rows(ctx, id)).map((r) => r.status)).toEqual(['ok']);
  });

  it('a panel whose samples fail (no_quorum) keeps its ok panel grade and the members keep theirs', async () => {
    const { answerIds } = await seedRun(ctx.database, 'keep-ok-panel', 1);
    const id = answerIds[0]!;
    const { loadJudgeOrPanel } = await import('../../../src/judges/panel-config.ts');
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'keep-ok-panel-'));
    writeFileSync(join(dir, 'panel.yaml'), `id: keep-ok-panel\nprovider: panel\nmembers: [${JUDGE_FILE}]\nsamples: 1\nvote: majority\nshuffle: false\nseed: 1\n`);
    const panel = await openJudge(loadJudgeOrPanel(join(dir, 'panel.yaml')), keysFor(fake));
    fake.setScript([VERDICTS]);
    const first = await gradeAnswer(ctx.database, { judge: panel, keys: keysFor(fake), engine, answer: { id } });
    expect(first.status).toBe('ok');
    await ctx.database.execute(`delete from judge_cache`);
    fake.setScript([{ kind: 'text', text: 'nothing parseable' }]);
    const again = await gradeAnswer(ctx.database, { judge: panel, keys: keysFor(fake), engine, answer: { id } });
    expect([again.gradeId, again.status, again.f1]).toEqual([first.gradeId, 'ok', first.f1]);
    expect(again.meta.lastAttempt).toMatchObject({ status: 'no_quorum' });
    expect((await rows(ctx, id)).map((r) => r.status)).toEqual(['ok', 'ok']);
  });

  it('the store itself never lets a failure replace an ok grade, whoever writes it', async () => {
    const { answerIds } = await seedRun(ctx.database, 'keep-ok-store', 1);
    const id = answerIds[0]!;
    fake.setScript([VERDICTS]);
    const first = await gradeAnswer(ctx.database, { judge: JUDGE_FILE, keys: keysFor(fake), engine, answer: { id } });
    const [t] = (await ctx.database.execute(`select * from grades where id = $1`, [first.gradeId])).rows;
    const failed: GradeRow = {
      answerId: id, judgeId: Number(t.judge_id), rubricVersionId: Number(t.rubric_version_id), promptHash: null, status: 'provider_error', reason: 'HTTP 503',
      completeness: null, correctness: null, f1: null, items: [], claims: [], meta: { reason: 'HTTP 503' }, rawOutput: null,
      inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0, latencyMs: 1,
    };
    expect(await gradeUpserter(ctx.database)(failed)).toBe('kept');
    const [after] = await rows(ctx, id);
    expect([after!.status, Number(after!.completeness)]).toEqual(['ok', first.completeness]);
    expect(after!.meta.lastAttempt).toMatchObject({ status: 'provider_error', reason: 'HTTP 503' });
  });
});
