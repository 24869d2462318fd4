import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { Rubric } from '../../src/domain/rubric.ts';
import { importAnswersJsonl } from '../../src/services/answers.ts';
import { calibrationLabelSet, loadRunCalibration, rowsOnScale } from '../../src/services/grading/calibration-labels.ts';
import { importPuzzles } from '../../src/services/puzzles.ts';
import { calibrationReport, calibrationRows } from '../../src/services/report-analysis.ts';
import { pageCalibrationTask } from '../../src/services/report-tasks.ts';
import { importParsedRubrics } from '../../src/services/rubrics.ts';
import { FIXTURES } from '../helpers/cli.ts';
import { describeDb } from '../helpers/db.ts';

/**
 * Calibration over stored labels: one whole-answer label per person and answer on the scale read — their
 * newest that reads on it, whether imported (item '') or given in the workspace or a campaign
 * (answer:binary, answer:numeric), as describe-then-solve counts votes (538422e). Before, the imported
 * and the workspace label were two units of one person: the report refused the data (a rater labelling
 * an answer twice) and the human majority counted the person twice.
 * Descriptions d1, d2 (run r, model A); a reference-match judge 'ref' passed d1 and failed d2; people x, y, z.
 */
const rubric = parseYaml(readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8')) as Rubric;
const truth4 = JSON.parse(readFileSync(`${FIXTURES}grid-truth-4x4.json`, 'utf8')) as { rows: number; cols: number; layout: string[][] };

describeDb('calibration: one whole-answer label per person', (ctx) => {
  const label = (answer: string, annotator: string, item: string, value: string, at: string) =>
    ctx.database.execute(
      `insert into labels (answer_id, item_key, annotator, kind, label, created_at)
       select a.id, $2, $1, 'human', $3, $4::timestamptz from answers a where a.external_id = $5`,
      [annotator, item, value, at, answer],
    );
  const humans = async (scale: 'binary' | 'numeric', mode?: 'majority') => {
    // The labels the scale reads, as every reader of the rows takes them (rowsOnScale).
    const rows = rowsOnScale(await calibrationRows(ctx.database, scale, {}, mode), scale).kept;
    const ids = new Map((await ctx.database.execute(`select id, external_id from answers`)).rows.map((r) => [String(r.id), String(r.external_id)]));
    return rows
      .filter((r) => r.kind === 'human')
      .map((r) => `${ids.get(r.answer)} ${r.rater} ${r.label}`)
      .sort();
  };

  beforeAll(async () => {
    const db = ctx.database;
    await importParsedRubrics(db, [rubric]);
    await importPuzzles(db, [{ path: 'p.jsonl', content: JSON.stringify({ id: 'p4', ...truth4, sizeBucket: '~16', rubric: 'farmyard-54' }) }]);
    const desc = (id: string) => JSON.stringify({ id, run: 'r', model: 'A', task: 'describe', puzzle: 'p4', text: 'A farmyard.' });
    await importAnswersJsonl(db, { path: 'a.jsonl', content: [desc('d1'), desc('d2')].join('\n') });
    await db.execute(`insert into judges (slug, provider, model, config, config_hash) values ('ref', 'lexical', 'lexical', '{}', 'h1')`);
    await db.execute(
      `insert into grades (answer_id, judge_id, rubric_version_id, status, f1, items, meta)
       select a.id, (select id from judges where slug = 'ref'), (select id from rubric_versions limit 1), 'ok', v.f1, '[]'::jsonb, jsonb_build_object('label', v.label)
         from answers a join (values ('d1', 'pass', 0.8), ('d2', 'fail', 0.3)) as v(id, label, f1) on v.id = a.external_id`,
    );
    // d1: x imported 'fail', then passed it in the workspace; y passes, z fails: x's newest decides, 2–1 pass.
    await label('d1', 'x', '', 'fail', '2026-01-01T00:00:00Z');
    await label('d1', 'x', 'answer:binary', 'pass', '2026-01-02T00:00:00Z');
    await label('d1', 'y', 'answer:binary', 'pass', '2026-01-02T00:00:00Z');
    await label('d1', 'z', 'answer:binary', 'fail', '2026-01-02T00:00:00Z');
    // d2: x imported a rating 0.2, then rated 0.9 and failed it in the workspace; y imported 'fail', later a rating 0.4.
    await label('d2', 'x', '', '0.2', '2026-01-01T00:00:00Z');
    await label('d2', 'x', 'answer:numeric', '0.9', '2026-01-02T00:00:00Z');
    await label('d2', 'x', 'answer:binary', 'fail', '2026-01-02T00:00:00Z');
    await label('d2', 'y', '', 'fail', '2026-01-01T00:00:00Z');
    await label('d2', 'y', 'answer:numeric', '0.4', '2026-01-03T00:00:00Z');
  });

  it('binary: each person once per answer, their newest pass/fail', async () => {
    expect(await humans('binary')).toEqual(['d1 x pass', 'd1 y pass', 'd1 z fail', 'd2 x fail', 'd2 y fail']);
  });

  it('numeric: each person once per answer, their newest rating (a newer pass/fail leaves it standing)', async () => {
    expect(await humans('numeric')).toEqual(['d2 x 0.9', 'd2 y 0.4']);
  });

  it('what a person changed is counted as superseded: x on d1 (binary), x on d2 (numeric)', async () => {
    for (const scale of ['binary', 'numeric'] as const) expect((await calibrationLabelSet(ctx.database, { key: 'answerId', scale })).versions.superseded, scale).toBe(1);
  });

  it('the human majority counts x once: d1 passes 2–1', async () => {
    expect(await humans('binary', 'majority')).toEqual(['d1 majority pass', 'd2 majority fail']);
  });

  it('the calibration page calibrates ref against 3 people on 2 answers, no tie', async () => {
    const page = pageCalibrationTask({ rows: await calibrationRows(ctx.database, 'binary'), scale: 'binary', seed: 1 });
    expect(page.reason).toBeUndefined();
    expect(page.skipped).toBe(1); // d2: x's imported rating 0.2 is no pass/fail
    const r = page.report!;
    expect([r.humans, r.judges, r.units]).toEqual([['x', 'y', 'z'], ['ref'], 2]);
    expect(r.majority).toMatchObject({ units: 2, ties: 0 });
  });

  it('assay calibrate --run r --judge ref --scale binary reads the same rows', async () => {
    const c = await loadRunCalibration(ctx.database, { run: 'r', judge: 'ref', scale: 'binary' });
    expect(c.rows.filter((r) => r.kind === 'human').map((r) => `${r.answer} ${r.rater} ${r.label}`).sort()).toEqual(['d1 x pass', 'd1 y pass', 'd1 z fail', 'd2 x fail', 'd2 y fail']);
  });
});
