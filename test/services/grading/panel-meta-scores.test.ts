import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { expect, it } from 'vitest';
import { createApp } from '../../../src/app.ts';
import { RubricSchema } from '../../../src/domain/rubric.ts';
import { createKey } from '../../../src/services/keys.ts';
import { importParsedRubrics } from '../../../src/services/rubrics.ts';
import { FIXTURES } from '../../helpers/cli.ts';
import { describeDb } from '../../helpers/db.ts';

/**
 * The meta scores (orientation, grid, piece count: design §3) are read from the answer against the rubric's
 * truth, whoever judges it. A panel's grade did not carry them, so the orientation and ablation reports for
 * a panel judge (?judge=panel-lexical) counted every answer as stating no orientation and no piece count:
 * accuracy 0 where the members' reports (and the answer) say landscape, correct.
 */
describeDb('meta scores of a panel grade', (ctx) => {
  it('a quorate panel grade carries meta.orientation, grid and pieceCount as its members do; the reports read them', async () => {
    await importParsedRubrics(ctx.database, [RubricSchema.parse(parseYaml(readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8')))]);
    const write = (await createKey(ctx.database, { scopes: ['write'], name: 'w' })).key;
    const read = (await createKey(ctx.database, { scopes: ['read'], name: 'r' })).key;
    const app = createApp({ database: ctx.database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 100_000 }, log: () => {} });
    // The fixture answer ends "Orientation: landscape / Grid: 6 x 9 / Pieces: 54"; the truth is landscape, 6 × 9, 54.
    const answer = readFileSync(`${FIXTURES}farmyard.answer.txt`, 'utf8');
    const post = async (judge: string) => {
      const res = await app.request('/api/grades', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${write}` },
        body: JSON.stringify({ answer, rubric: 'farmyard-54', judge, run: 'meta-run', model: 'm' }),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { status: string; meta: Record<string, unknown> };
    };
    const lexical = await post('lexical');
    const panel = await post('panel-lexical');
    expect(panel.status).toBe('ok');
    expect(lexical.meta.orientation).toEqual({ stated: 'landscape', correct: true });
    expect(panel.meta.orientation).toEqual(lexical.meta.orientation);
    expect(panel.meta.grid).toEqual(lexical.meta.grid);
    expect(panel.meta.pieceCount).toEqual({ stated: 54, error: 0 });

    const report = async (path: string) => {
      const res = await app.request(path, { headers: { authorization: `Bearer ${read}` } });
      expect(res.status).toBe(200);
      return ((await res.json()) as { rows: Array<Record<string, unknown>> }).rows;
    };
    const expected = { model: 'm', landscapeCorrect: 1, landscapeTotal: 1, notStated: 0, correct: 1, total: 1, accuracy: 1 };
    expect((await report('/api/reports/orientation?judge=lexical'))[0]).toMatchObject(expected);
    expect((await report('/api/reports/orientation?judge=panel-lexical'))[0]).toMatchObject(expected);
    const ablation = await report('/api/reports/ablation?judge=panel-lexical');
    expect(ablation.map((r) => [r.model, r.pieceCountStated, r.pieceCountError])).toEqual([['m', 1, 0]]);
  }, 120_000);
});
