import { beforeAll, expect, it } from 'vitest';
import { readRunExport } from '../../src/services/export/read-run.ts';
import { describeDb } from '../helpers/db.ts';
import { seedRun } from './export-fixture.ts';

/**
 * `assay export` reads a run in one snapshot while grading goes on. A writer commits between the export's
 * query of the answers and its query of the grades: a new answer with its grade and label, and a changed
 * grade. Before, on PostgreSQL the export's statements ran at READ COMMITTED, so it held the new answer's
 * grade (naming an answer it did not hold) and the changed f1 beside answers read before them. On PGlite the
 * one session serialises the writer after the export's transaction; the export is the same snapshot there.
 */

/** One statement (atomic): a new answer of the run with a grade and a label, and one of its grades changed. */
const WRITE = `with a as (
    insert into answers (run_id, external_id, task, text, rubric_id)
      select r.id, 'late', 'describe', 'written mid-export', (select rubric_id from answers where run_id = r.id and rubric_id is not null limit 1)
      from runs r where r.name = $1 returning id),
  g as (insert into grades (answer_id, judge_id, status, f1) select a.id, (select min(id) from judges), 'ok', 0.5 from a returning id),
  l as (insert into labels (answer_id, annotator, label) select a.id, 'late-annotator', 'correct' from a returning id),
  u as (update grades set f1 = 0.123, reason = 'changed mid-export'
        where id = (select min(g.id) from grades g join answers x on x.id = g.answer_id join runs r on r.id = x.run_id where r.name = $1) returning id)
  select (select count(*) from g)::int + (select count(*) from l)::int + (select count(*) from u)::int as n`;

describeDb('run export snapshot', (ctx) => {
  beforeAll(async () => {
    await seedRun(ctx.database);
  }, 60_000);

  it('holds one snapshot when a writer commits between its queries', async () => {
    const before = await readRunExport(ctx.database, 'rt-run');
    let writer: Promise<unknown> | undefined;
    let wroteBeforeEnd = false;
    const during = await readRunExport(ctx.database, 'rt-run', {
      hooks: {
        afterAnswers: async () => {
          writer = ctx.database.execute(WRITE, ['rt-run']).then((r) => {
            wroteBeforeEnd = true;
            return r;
          });
          // PostgreSQL: the writer's own connection commits now, while the export is mid-read. PGlite: the
          // writer waits for the export's transaction (one session), so awaiting it here would never end.
          if (ctx.url) await writer;
        },
      },
    });
    const seen = wroteBeforeEnd;
    expect(((await writer) as { rows: Array<{ n: number }> }).rows[0]!.n).toBe(3);
    if (ctx.url) expect(seen, 'the writer committed while the export was reading').toBe(true);
    expect(during).toEqual(before);
    expect(during.grades.every((g) => g.answer !== undefined)).toBe(true);

    // The write is there for the next export: the new answer with its grade and label, the changed f1.
    const after = await readRunExport(ctx.database, 'rt-run');
    expect(after.answers.map((a) => a.externalId)).toEqual([...before.answers.map((a) => a.externalId), 'late']);
    expect(after.grades.filter((g) => g.answer === 'late')).toHaveLength(1);
    expect(after.labels.filter((l) => l.answer === 'late')).toHaveLength(1);
    expect(after.grades.map((g) => g.f1)).toContain(0.123);
  });
});
