import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { importAnswersJsonl, listAnswers } from '../../src/services/answers.ts';
import { effortTable } from '../../src/services/reports.ts';
import { importRubrics } from '../../src/services/rubrics.ts';
import { stopThreads } from '../../src/threads/pool.ts';
import { FIXTURES, runCli } from '../helpers/cli.ts';
import { describeDb, rowCounts } from '../helpers/db.ts';

/**
 * An answer row saying `status: ok` with no text contradicts itself. Before, it was stored as an ok answer:
 * grading skipped it (no text) and the effort report counted it answered (missing 1 of 4 where 3 had no
 * text), exit 0. Now the import refuses it naming the line, so every stored answer without text is
 * no_answer and the report counts it missing.
 */

afterAll(() => stopThreads());

const jsonl = (...rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
const base = { run: 'e', model: 'm-empty', effort: 'low', task: 'describe', rubric: 'farmyard-54' };

describeDb('answers with status ok and no text', (ctx) => {
  beforeAll(async () => {
    await importRubrics(ctx.database, [{ path: 'farmyard.yaml', content: readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8') }]);
  });

  it('are refused naming the line and field; nothing is written', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'no text'],
      [{ text: null }, 'text null'],
      [{ text: ' \n\t' }, 'blank text'],
    ];
    for (const [extra, what] of cases) {
      const before = await rowCounts(ctx.database);
      const content = jsonl({ ...base, id: 'x1', text: 'A red barn.' }, { ...base, id: 'x2', status: 'ok', ...extra });
      const run = importAnswersJsonl(ctx.database, { path: 'f.jsonl', content });
      await expect(run).rejects.toMatchObject({ code: 'bad_input' });
      await expect(run).rejects.toThrow(`f.jsonl:2: status: 'ok' but the row has ${what} (an answer without output is 'no_answer': give the text, or leave "status" out)`);
      expect(await rowCounts(ctx.database)).toEqual(before);
    }
  });

  it('without a status such rows are no_answer, and the effort report counts them missing', async () => {
    const content = jsonl(
      { ...base, id: 'a1', text: 'A red barn.', status: 'ok' },
      { ...base, id: 'a2' },
      { ...base, id: 'a3', text: '' },
      { ...base, id: 'a4', text: 'Cut off', status: 'truncated' },
    );
    expect(await importAnswersJsonl(ctx.database, { path: 'ok.jsonl', content })).toMatchObject({ imported: 4 });
    const stored = (await listAnswers(ctx.database, { run: 'e' })).answers.map((a) => [a.externalId, a.status]);
    expect(stored).toEqual([['a1', 'ok'], ['a2', 'no_answer'], ['a3', 'no_answer'], ['a4', 'truncated']]);
    const row = (await effortTable(ctx.database)).rows.find((r) => r.model === 'm-empty');
    expect(row).toMatchObject({ effort: 'low', answers: 4, missing: 3, truncated: 1 });
  });
});

it('assay import answers exits 2 naming the line of an ok row without text, and stores nothing', () => {
  const dir = mkdtempSync(join(tmpdir(), 'assay-empty-ok-'));
  const env = { DATABASE_URL: '', ASSAY_DATA_DIR: join(dir, 'data') };
  try {
    expect(runCli(['import', 'rubrics', `${FIXTURES}farmyard.rubric.yaml`], { env }).code).toBe(0);
    const file = join(dir, 'run.jsonl');
    writeFileSync(file, jsonl({ ...base, id: 'a1', text: 'A red barn.' }, { ...base, id: 'a2', status: 'ok' }));
    const r = runCli(['import', 'answers', file, '--json'], { env });
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr.trim()).toBe(`assay import answers: ${file}:2: status: 'ok' but the row has no text (an answer without output is 'no_answer': give the text, or leave "status" out)`);
    writeFileSync(file, jsonl({ ...base, id: 'a1', text: 'A red barn.' }, { ...base, id: 'a2' }));
    const ok = runCli(['import', 'answers', file, '--json'], { env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.json()).toMatchObject({ imported: 2, unchanged: 0 }); // the refused import left nothing behind
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
