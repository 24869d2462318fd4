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
 * A grade's correctness depends on the unverifiable-claims policy it was computed under (`count`, the
 * default, or `exclude`). Nothing in the stored grade said which: regrading with `exclude` replaced the
 * grade with another correctness, and the grade, its export and every report read it as any other.
 * An excluding grade now says so in its meta; a counting one is as before.
 */
describeDb('the unverifiable policy of a grade', (ctx) => {
  it('POST /api/grades with unverifiable: exclude stores meta.unverifiable = exclude; the default stores none', async () => {
    await importParsedRubrics(ctx.database, [RubricSchema.parse(parseYaml(readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8')))]);
    const key = (await createKey(ctx.database, { scopes: ['write'], name: 'w' })).key;
    const app = createApp({ database: ctx.database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 100_000 }, log: () => {} });
    const answer = readFileSync(`${FIXTURES}farmyard.answer.txt`, 'utf8');
    const grade = async (extra: Record<string, unknown>) => {
      const res = await app.request('/api/grades', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ answer, rubric: 'farmyard-54', ...extra }),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { answerId: number; correctness: number | null; claims: Array<{ verdict: string }>; meta: Record<string, unknown> };
    };
    const counted = await grade({});
    expect(counted.meta).not.toHaveProperty('unverifiable');
    const excluded = await grade({ unverifiable: 'exclude' });
    expect(excluded.meta.unverifiable).toBe('exclude');
    const [stored] = await gradesOfAnswer(ctx.database, excluded.answerId);
    expect((stored!.grade as { meta: Record<string, unknown> }).meta.unverifiable).toBe('exclude');
    // Not vacuous: the lexical judge leaves some claims unverifiable, so the two correctness figures differ.
    expect(excluded.claims.some((c) => c.verdict === 'unverifiable')).toBe(true);
    expect(excluded.correctness).not.toBe(counted.correctness);
  }, 120_000);
});
