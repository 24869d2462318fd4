import { readFileSync } from 'node:fs';
import { Hono } from 'hono';
import { expect, it } from 'vitest';
import { onError } from '../../src/api/errors.ts';
import { openDatabase } from '../../src/db/client.ts';
import { AssayError } from '../../src/domain/errors.ts';
import { importAnswersJsonl } from '../../src/services/import-answers.ts';
import { importRubrics } from '../../src/services/rubrics.ts';
import { annotationTask } from '../../src/services/annotation-task.ts';
import { saveAnnotation, saveAnnotations } from '../../src/services/web-annotation.ts';
import { describeDb } from '../helpers/db.ts';

/**
 * A missing answer is not_found (404); a database that fails is a database failure (500 internal),
 * never "not found": an annotator told their answer is gone would stop, while the data is intact.
 */

const RUBRIC = { path: 'farmyard.rubric.yaml', content: readFileSync(new URL('../fixtures/farmyard.rubric.yaml', import.meta.url), 'utf8') };
const mark = { item: 'barn', label: 'correct' } as const;

/** The error `run` rejects with, as the HTTP layer answers it. */
async function httpOf(run: () => Promise<unknown>): Promise<{ status: number; body: unknown }> {
  const app = new Hono();
  app.onError((err, c) => onError(err, c, () => {}));
  app.get('/x', async (c) => c.json(await run()));
  const res = await app.request('/x');
  return { status: res.status, body: await res.json() };
}

const rejection = (p: Promise<unknown>) => p.then(() => { throw new Error('expected a rejection'); }, (e: unknown) => e);

describeDb('annotation services: not_found only for a missing answer', (ctx) => {
  let id = 0;

  it('a missing answer is not_found for the task and for saving (404)', async () => {
    await importRubrics(ctx.database, [RUBRIC]);
    await importAnswersJsonl(ctx.database, {
      path: 'a.jsonl',
      content: JSON.stringify({ id: 'one', run: 'r', model: 'm', task: 'describe', rubric: 'farmyard-54', text: 'A red barn. Three pigs.' }),
    });
    id = Number((await ctx.database.execute(`select id from answers where external_id = 'one'`)).rows[0].id);
    expect((await annotationTask(ctx.database, id, 'alice')).items.length).toBe(17);
    const missing = id + 1000;
    for (const run of [
      () => annotationTask(ctx.database, missing, 'alice'),
      () => saveAnnotations(ctx.database, { answerId: missing, annotator: 'alice', marks: [mark] }),
      () => saveAnnotation(ctx.database, { answerId: missing, annotator: 'alice', ...mark }),
    ]) {
      const err = await rejection(run());
      expect(err).toBeInstanceOf(AssayError);
      expect(err).toMatchObject({ code: 'not_found', message: `answer ${missing} not found` });
      expect(await httpOf(run)).toEqual({ status: 404, body: { error: { code: 'not_found', message: `answer ${missing} not found` } } });
    }
  });

  it('a failing query after the answer was found propagates as the database error (500), not not_found', async () => {
    // The answer and its rubric are read fine; the labels table is what fails (as a lost table or a
    // broken connection would), inside the task read and inside the save transaction.
    await ctx.database.execute('alter table labels rename to labels_away');
    try {
      for (const run of [
        () => annotationTask(ctx.database, id, 'alice'),
        () => saveAnnotations(ctx.database, { answerId: id, annotator: 'alice', marks: [mark] }),
        () => saveAnnotation(ctx.database, { answerId: id, annotator: 'alice', ...mark }),
      ]) {
        const err = await rejection(run());
        expect(err).not.toBeInstanceOf(AssayError);
        expect(String((err as Error).message) + String((err as { cause?: Error }).cause?.message ?? '')).toMatch(/labels/);
        expect(await httpOf(run)).toEqual({ status: 500, body: { error: { code: 'internal', message: 'internal error' } } });
      }
    } finally {
      await ctx.database.execute('alter table labels_away rename to labels');
    }
    expect(await saveAnnotation(ctx.database, { answerId: id, annotator: 'alice', ...mark })).toEqual({ created: true });
  });
});

it('a closed database is a database error for the task and the save, not not_found', async () => {
  const closed = await openDatabase({ memory: true });
  await closed.close();
  for (const run of [
    () => annotationTask(closed, 1, 'alice'),
    () => saveAnnotations(closed, { answerId: 1, annotator: 'alice', marks: [mark] }),
  ]) {
    const err = await rejection(run());
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(AssayError);
    expect((await httpOf(run)).status).toBe(500);
  }
});
