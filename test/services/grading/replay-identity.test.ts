import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { gradeAnswer } from '../../../src/services/grading/grade-answer.ts';
import { describeDb } from '../../helpers/db.ts';
import { farmyard } from '../../judges/harness.ts';
import { count, seedRun } from '../../jobs/helpers.ts';

/**
 * A replay judge's verdicts are its file's: the file is named by path in the judge file, so one edited in
 * place kept the config hash, the judges row and its cache entries. Grading on then stored the new file's
 * verdicts beside the old file's under one judge (and a cached answer kept the old verdicts). Like an edited
 * template, a changed replay file is refused (409 conflict) before anything is written; restoring it grades on.
 */
describeDb('a replay judge whose file changed', (ctx) => {
  const dir = mkdtempSync(join(tmpdir(), 'assay-replay-id-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const judge = join(dir, 'recorded.yaml');
  const file = join(dir, 'recorded.json');
  writeFileSync(judge, 'id: recorded\nprovider: replay\nmodel: recorded-v1\nreplay: recorded.json\n');
  const output = (verdict: string) => JSON.stringify({ items: farmyard.items.map((it) => ({ id: it.id, verdict, evidence: '' })), claims: [{ text: 'c', verdict: 'true' }] });

  it('is refused with a conflict naming the file; nothing is written; the file restored grades on', async () => {
    const { answerIds } = await seedRun(ctx.database, 'replay-id', 2);
    writeFileSync(file, output('correct'));
    const first = await gradeAnswer(ctx.database, { judge, answer: { id: answerIds[0]! } });
    expect(first.status).toBe('ok');
    expect(first.completeness).toBe(1);

    writeFileSync(file, output('missing'));
    const rows = async () => ({
      grades: await count(ctx.database, `select count(*)::int as n from grades`),
      judges: await count(ctx.database, `select count(*)::int as n from judges`),
      cache: await count(ctx.database, `select count(*)::int as n from judge_cache`),
    });
    const before = await rows();
    for (const id of answerIds) {
      const err = await gradeAnswer(ctx.database, { judge, answer: { id: id! } }).catch((e: unknown) => e);
      expect(err, `answer ${id}`).toMatchObject({ code: 'conflict' });
      expect((err as Error).message).toMatch(/^judge recorded: its replay file .*recorded\.json changed since this configuration first graded/);
    }
    expect(await rows()).toEqual(before);

    writeFileSync(file, output('correct'));
    const again = await gradeAnswer(ctx.database, { judge, answer: { id: answerIds[1]! } });
    expect(again.completeness).toBe(1);
  }, 60_000);
});
