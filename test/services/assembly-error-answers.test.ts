import { beforeAll, expect, it } from 'vitest';
import { getAssemblyScore, listAssemblyScores, scoreAndStoreAssembly } from '../../src/services/assemblies.ts';
import { importAnswersJsonl } from '../../src/services/answers.ts';
import { describeDb } from '../helpers/db.ts';
import { useApi } from '../api/app-fixture.ts';
import { seedErrorAnswers, type ErrorAnswerIds } from './error-answer-fixture.ts';

/**
 * An assembly answer stored with status error (the model call failed) has no score: its status says why.
 * Scoring stored one for its leftover text (0 for none, status invalid), and the readers served it as a
 * real score, HTTP 200: GET /api/assemblies listed g2 (direct 0) beside g1, GET /api/assemblies/{g2}
 * answered direct 0. The reports leave such rows out (report-facts.ts notOfErrorAnswer); now scoring
 * stores none (and clears an old one when it re-scores), an import counts only the answers it scored, and
 * the readers serve no score of an error answer from rows an old database or an import still holds.
 * Fixture: error-answer-fixture.ts (g1 ok, stored score valid, every metric 1; g2 error, stored 0s).
 */
describeDb('an error assembly has no score', (ctx) => {
  let ids: ErrorAnswerIds;
  const api = useApi(ctx);
  beforeAll(async () => {
    ids = await seedErrorAnswers(ctx.database);
  });

  it('GET /api/assemblies lists no score of an error answer (old rows), and its own route is a 404 saying why', async () => {
    const list = await api.call(api.keys.read, 'GET', '/api/assemblies?run=ea-run');
    expect(list.status).toBe(200);
    const page = (await list.json()) as { total: number; items: Array<{ answer: string; direct: number }> };
    expect({ total: page.total, items: page.items.map((s) => [s.answer, s.direct]) }).toEqual({ total: 1, items: [['g1', 1]] });
    expect((await listAssemblyScores(ctx.database, { run: 'ea-run' })).total).toBe(1);
    const one = await api.call(api.keys.read, 'GET', `/api/assemblies/${ids.g2}`);
    expect(one.status).toBe(404);
    expect(((await one.json()) as { error: { code: string; message: string } }).error).toEqual({
      code: 'not_found',
      message: `answer ${ids.g2} has no assembly score: its model call failed (status error)`,
    });
    expect((await getAssemblyScore(ctx.database, ids.g1)).direct).toBe(1);
  });

  it('an import stores no score of an error answer and counts only those it scored', async () => {
    const r = await importAnswersJsonl(ctx.database, {
      path: 'imp.jsonl',
      content: [
        { id: 'i1', run: 'ea-imp', model: 'ea-m', task: 'assemble', puzzle: 'ea-p', text: 'a b\nd c' },
        { id: 'i2', run: 'ea-imp', model: 'ea-m', task: 'assemble', puzzle: 'ea-p', text: '', status: 'error' },
      ].map((x) => JSON.stringify(x)).join('\n'),
    });
    expect({ imported: r.imported, scored: r.scored }).toEqual({ imported: 2, scored: 1 });
    const rows = await ctx.database.execute(`select a.external_id, s.direct from assembly_scores s join answers a on a.id = s.answer_id join runs r on r.id = a.run_id where r.name = 'ea-imp'`);
    // i1 'a b\nd c' on a b / c d: a and b in place, direct 2/4.
    expect(rows.rows.map((x) => [x.external_id, Number(x.direct)])).toEqual([['i1', 0.5]]);
  });

  it('re-scoring an error answer stores nothing and clears the score stored before', async () => {
    expect(await scoreAndStoreAssembly(ctx.database, ids.g2)).toBeNull();
    expect(Number((await ctx.database.execute(`select count(*)::int as n from assembly_scores where answer_id = $1`, [ids.g2])).rows[0]!.n)).toBe(0);
    expect((await scoreAndStoreAssembly(ctx.database, ids.g1))?.direct).toBe(1);
  });
});
