import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { isAssayError } from '../../../src/domain/errors.ts';
import { loadPanel } from '../../../src/judges/panel-config.ts';
import { gradeAnswer } from '../../../src/services/grading/grade-answer.ts';
import { describeDb } from '../../helpers/db.ts';
import { badInputMessage } from '../../helpers/errors.ts';
import { farmyard, farmyardAnswer } from '../../judges/harness.ts';

/**
 * Whose grade a panel's grade is: a panel and its members each store grades under their own judge id
 * (judges.slug), and every report (calibrate, grade lists, newest grade per judge) tells them apart by it.
 */

const dir = mkdtempSync(join(tmpdir(), 'assay-panel-attr-'));
const lexical = (id: string, correct: number) => `id: ${id}\nprovider: lexical\nmodel: lexical-overlap-v1\nmode: rubric\nlexical: { correct: ${correct}, partial: 0.3 }\n`;
writeFileSync(join(dir, 'other.yaml'), lexical('other', 0.6));
// A member file whose judge id is the panel's own id (its file name differs, so the panel does not list itself).
writeFileSync(join(dir, 'twin.yaml'), lexical('same', 0.8));
writeFileSync(join(dir, 'same.yaml'), 'id: same\nprovider: panel\nmembers: [twin, other]\nquorum: 1\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a member whose judge id is the panel’s own id is refused: its grades would be stored under the panel’s name', () => {
  expect(badInputMessage(() => loadPanel(join(dir, 'same.yaml')))).toBe(
    `panel ${join(dir, 'same.yaml')}: members[0]: 'twin' is judge same, the panel's own id (a member's grades are stored under its id: rename the member or the panel)`,
  );
});

describeDb('a panel and a member of one id', (ctx) => {
  it('grading with it is refused before anything is written (before: two judges’ grades under one id)', async () => {
    const err = await gradeAnswer(ctx.database, { judge: join(dir, 'same.yaml'), rubric: farmyard, answer: { text: farmyardAnswer, run: 'attr' } }).catch((e: unknown) => e);
    expect(isAssayError(err) && err.code).toBe('bad_input');
    const rows = await ctx.database.execute(`select (select count(*)::int from grades) as grades, (select count(*)::int from judges) as judges`);
    expect([Number(rows.rows[0]!.grades), Number(rows.rows[0]!.judges)]).toEqual([0, 0]);
  });
});
