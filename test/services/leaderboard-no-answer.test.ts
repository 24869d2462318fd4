import { expect, it } from 'vitest';
import { importPuzzles } from '../../src/services/puzzles.ts';
import { describeDb } from '../helpers/db.ts';
import { useApi } from '../api/app-fixture.ts';
import type { Context } from 'hono';
import { leaderboardPage } from '../../src/web/pages/leaderboard.tsx';

/**
 * An empty assembly answer (POST /api/assemblies with answer "") is stored no_answer and scored invalid,
 * every metric 0 (design §2.2: nothing parseable scores 0), and it stays in the leaderboard's means: a
 * non-answer is a wrong answer for assembly metrics. But the board did not say so: "assemblies 2, direct
 * 0.5" read as two attempts, half right, where one was no answer at all (descriptions leave ungraded
 * answers out, so the two columns counted differently with no word why). Each row now says how many of
 * its assemblies are no_answer rows (noAnswer), the means unchanged; the page shows the count.
 */

describeDb('leaderboard: no_answer assemblies counted in the means, and said', (ctx) => {
  const api = useApi(ctx);

  it('direct 0.5 over 2 assemblies of which 1 no_answer (hand-computed)', async () => {
    await importPuzzles(ctx.database, [{ path: 'p.jsonl', content: '{"id":"na-p","rows":2,"cols":2,"layout":[["a","b"],["c","d"]]}\n' }]);
    const post = (id: string, answer: string) => api.call(api.keys.write, 'POST', '/api/assemblies', { body: { run: 'na-run', model: 'na-m', puzzle: 'na-p', id, answer } });
    expect((await post('full', 'a b\nc d')).status).toBe(201);
    const empty = await post('empty', '');
    expect(empty.status).toBe(201);
    expect(((await empty.json()) as { status: string; direct: number }).direct).toBe(0);
    const answers = await ctx.database.execute(`select external_id, status from answers order by external_id`);
    expect(answers.rows.map((r) => [r.external_id, r.status])).toEqual([['empty', 'no_answer'], ['full', 'ok']]);

    const res = await api.call(api.keys.read, 'GET', '/api/reports/leaderboard');
    expect(res.status).toBe(200);
    const lb = (await res.json()) as { rows: Array<Record<string, unknown>> };
    const row = (model: string, bucket: string) => lb.rows.find((r) => r.model === model && r.sizeBucket === bucket)!;
    const m = row('na-m', 'all');
    // direct: (1 + 0) / 2; neighbour (1 + 0) / 2; proximity (1 + 0) / 2.
    expect({ assemblies: m.assemblies, noAnswer: m.noAnswer, direct: m.direct, neighbour: m.neighbour, proximity: m.proximity }).toEqual({ assemblies: 2, noAnswer: 1, direct: 0.5, neighbour: 0.5, proximity: 0.5 });
    expect(row('na-m', '~4').noAnswer).toBe(1);
    expect(row('random baseline', 'all').noAnswer).toBe(0);

    const html = String(await (await leaderboardPage({} as Context, new URLSearchParams(), ctx.database)).body());
    expect(html).toMatch(/No answer/);
    expect(html).toMatch(/1 of the 2 assembl/);
  });
});
