import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { expect, it } from 'vitest';
import { createApp } from '../../../src/app.ts';
import { RubricSchema } from '../../../src/domain/rubric.ts';
import { gradesOfAnswer } from '../../../src/services/grading/grade-detail.ts';
import { createKey } from '../../../src/services/keys.ts';
import { importParsedRubrics } from '../../../src/services/rubrics.ts';
import { FIXTURES } from '../../helpers/cli.ts';
import { describeDb } from '../../helpers/db.ts';

/**
 * A panel's correctness is the mean of its samples' correctness, each computed under the request's
 * unverifiable policy. A single judge's grade says `meta.unverifiable: exclude` when it excluded them; the
 * panel's grade said nothing, so a panel grade under `exclude` read as one under the default.
 */
describeDb('the unverifiable policy of a panel grade', (ctx) => {
  it('POST /api/grades with a panel and unverifiable: exclude stores meta.unverifiable = exclude on the panel grade', async () => {
    await importParsedRubrics(ctx.database, [RubricSchema.parse(parseYaml(readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8')))]);
    const key = (await createKey(ctx.database, { scopes: ['write'], name: 'w' })).key;
    const app = createApp({ database: ctx.database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 100_000 }, log: () => {} });
    const answer = readFileSync(`${FIXTURES}farmyard.answer.txt`, 'utf8');
    const grade = async (extra: Record<string, unknown>) => {
      const res = await app.request('/api/grades', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ answer, rubric: 'farmyard-54', judge: 'panel-lexical', ...extra }),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { answerId: number; correctness: number | null; judge: { id: string }; meta: Record<string, unknown> };
    };
    const counted = await grade({});
    expect(counted.judge.id).toBe('panel-lexical');
    expect(counted.meta).not.toHaveProperty('unverifiable');
    const excluded = await grade({ unverifiable: 'exclude' });
    expect(excluded.meta.unverifiable).toBe('exclude');
    const stored = (await gradesOfAnswer(ctx.database, excluded.answerId)).find((g) => (g.grade as { judge: { id: string } }).judge.id === 'panel-lexical');
    expect((stored!.grade as { meta: Record<string, unknown> }).meta.unverifiable).toBe('exclude');
    // Not vacuous: the members leave claims unverifiable, so the panel's two correctness figures differ.
    expect(excluded.correctness).not.toBe(counted.correctness);
  }, 120_000);
});
