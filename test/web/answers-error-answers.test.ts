import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { answerDetail, listAnswerRows } from '../../src/services/web-answer.ts';
import { stopThreads } from '../../src/threads/pool.ts';
import { describeDb } from '../helpers/db.ts';
import { seedErrorAnswers, type ErrorAnswerIds } from '../services/error-answer-fixture.ts';

/**
 * /answers and an answer's page showed the grade stored for an error answer (its F1 0.2, 1 grade) and the
 * score stored for an error assembly (direct 0, neighbour 0) as if they were figures of a model's answer,
 * while every report leaves them out (report-facts.ts notOfErrorAnswer). An error answer has neither: its
 * row shows status error, no grade, no F1, no score, and its page says it is not graded (answers.tsx).
 * Fixture: test/services/error-answer-fixture.ts. Under exclude the grades without claims cannot be
 * rescored: of those read, d1's only (1 left out, not 2).
 */

afterAll(() => stopThreads());

describeDb('answers page: no grade or score of an error answer', (ctx) => {
  let ids: ErrorAnswerIds;
  beforeAll(async () => {
    ids = await seedErrorAnswers(ctx.database);
  });

  it('the list: error answers show no grade, F1 or score; ok answers theirs', async () => {
    const r = await listAnswerRows(ctx.database, { run: 'ea-run', limit: 10, offset: 0 });
    expect(r.judge).toBe('ea-judge');
    expect(r.rows.map((x) => [x.answer, x.status, x.grades, x.f1, x.neighbour, x.direct])).toEqual([
      ['d1', 'ok', 1, 0.8, null, null],
      ['d2', 'error', 0, null, null, null],
      ['g1', 'ok', 0, null, 1, 1],
      ['g2', 'error', 0, null, null, null],
    ]);
    const exclude = await listAnswerRows(ctx.database, { run: 'ea-run', unverifiable: 'exclude', limit: 10, offset: 0 });
    expect(exclude.unverifiableNote).toMatch(/^1 grade left out/);
  });

  it("an error answer's page holds no grade and no assembly score; an ok answer's its own", async () => {
    expect((await answerDetail(ctx.database, ids.d2)).grades).toEqual([]);
    expect((await answerDetail(ctx.database, ids.g2)).assembly).toBeNull();
    expect((await answerDetail(ctx.database, ids.d1)).grades.map((g) => g.grade.f1)).toEqual([0.8]);
    expect((await answerDetail(ctx.database, ids.g1)).assembly).toMatchObject({ status: 'valid', direct: 1, neighbour: 1 });
    const app = createApp({ database: ctx.database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 100_000 }, log: () => {} });
    const page = await app.request(`http://127.0.0.1/answers/${ids.d2}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Not graded: the model');
    expect(html).not.toContain('0.2');
  });
});
