import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../src/db/client.ts';
import { createCampaign, nextForAnnotator } from '../../src/services/campaigns/index.ts';
import { seedExamples } from '../../src/services/seed.ts';
import { saveWorkspaceMarks } from '../../src/services/workspace.ts';
import { runCli } from '../helpers/cli.ts';

/**
 * On the bundled data, the workspace's whole-answer labels through the binary: `assay analyze ratings
 * --run R | --campaign C` summarises the stored 1..k ratings (checked against the same ratings given as
 * a file), and `assay calibrate --run R --scale binary|numeric` reads only its own scale's labels
 * beside the seed's item verdicts, naming a judge that has no output on the scale.
 */
describe('workspace ratings and pass/fail in assay analyze ratings and assay calibrate --run', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'assay-ws-ratings-'));
  const env = { DATABASE_URL: '', ASSAY_DATA_DIR: join(tmp, 'data') };
  // Plain workspace ratings (1..5) of three bundled descriptions, one run (and model) each.
  const RUNS = ['campaign-model-a-low', 'campaign-model-b-plain', 'campaign-model-c-low'];
  const MODELS = ['model-a', 'model-b', 'model-c'];
  const RATINGS: Record<string, number[]> = { ann: [5, 2, 4], bea: [4, 2, 5] };

  beforeAll(async () => {
    const database = await openDatabase({ dataDir: env.ASSAY_DATA_DIR });
    try {
      await migrate(database);
      await seedExamples(database);
      for (const [i, run] of RUNS.entries()) {
        const id = Number((await database.execute(`select a.id from answers a join runs r on r.id = a.run_id where r.name = $1 and a.task = 'describe'`, [run])).rows[0]!.id);
        for (const [who, rs] of Object.entries(RATINGS)) await saveWorkspaceMarks(database, { answerId: id, annotator: who, marks: [{ rating: rs[i]! }, { binary: rs[i]! >= 4 ? 'pass' : 'fail' }] });
      }
      // A campaign's ratings (k = 3) by two other people on another run's description.
      await createCampaign(database, {
        name: 'rate-study',
        answers: { run: 'campaign-model-d', task: 'describe' },
        scales: { numeric: { k: 3, anchors: ['poor', 'fair', 'good'] } },
        annotators: ['cat', 'dan'],
        overlap: 2,
      });
      for (const [who, rating] of [['cat', 3], ['dan', 1]] as const) {
        const n = await nextForAnnotator(database, { campaign: 'rate-study', annotator: who });
        await saveWorkspaceMarks(database, { answerId: n!.answerId, annotator: who, campaign: 'rate-study', marks: [{ rating }] });
      }
    } finally {
      await database.close();
    }
  }, 300_000);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('assay analyze ratings reads the stored ratings: per run, per campaign, and the same as the ratings given as a file', () => {
    const one = runCli(['analyze', 'ratings', '--run', 'campaign-model-a-low', '--json'], { env });
    expect(one.stderr).toBe('');
    expect(one.json().summaries).toEqual([{ model: 'model-a', criterion: 'rating', n: 2, items: 1, raters: 2, mean: 4.5, sd: Math.SQRT1_2 }]);

    const campaign = runCli(['analyze', 'ratings', '--campaign', 'rate-study', '--json'], { env }).json();
    expect(campaign.summaries).toEqual([{ model: 'model-d', criterion: 'rate-study', n: 2, items: 1, raters: 2, mean: 2, sd: Math.SQRT2 }]);
    expect(campaign.agreement.map((a: { raters: string[] }) => a.raters)).toEqual([['cat', 'dan']]);

    // A run and a campaign with no rating in common: nothing to summarise is bad input.
    const none = runCli(['analyze', 'ratings', '--campaign', 'rate-study', '--run', 'campaign-model-b-plain'], { env });
    expect(none.code).toBe(2);
    expect(none.stderr.trim()).toMatch(/no numeric ratings stored for run campaign-model-b-plain and campaign 'rate-study'/);
    // The same ratings written as a ratings file: each run's stored summary is the file's for that model.
    const file = join(tmp, 'ratings.jsonl');
    writeFileSync(file, RUNS.flatMap((run, i) => Object.entries(RATINGS).map(([rater, rs]) => JSON.stringify({ model: MODELS[i], item: `${run}/${run.replace('campaign-model-', '')}-describe`, criterion: 'rating', rater, rating: rs[i] }))).join('\n'));
    const fromFile = runCli(['analyze', 'ratings', '--input', file, '--json'], { env }).json();
    for (const [i, run] of RUNS.entries()) {
      expect(runCli(['analyze', 'ratings', '--run', run, '--json'], { env }).json().summaries).toEqual(fromFile.summaries.filter((s: { model: string }) => s.model === MODELS[i]));
    }
    expect(fromFile.agreement[0]).toMatchObject({ criterion: 'rating', raters: ['ann', 'bea'], units: 3, completeUnits: 3 });
    expect(runCli(['analyze', 'ratings', '--input', file, '--run', RUNS[0]!], { env }).code).toBe(2);
  }, 120_000);

  it('assay calibrate --run reads the labels of its scale only; a judge with no output on the scale is an empty side, named', () => {
    // The run holds the seed's item verdicts beside the pass/fail and rating: each scale reads its own.
    const verdict = runCli(['calibrate', '--run', 'campaign-model-a-low', '--judge', 'lexical', '--scale', 'verdict', '--json'], { env });
    expect(verdict.stderr).toBe('');
    expect(verdict.json()).toMatchObject({ units: 17, humans: ['annotator-1', 'annotator-2'], judges: ['lexical'] });

    const numeric = runCli(['calibrate', '--run', 'campaign-model-a-low', '--judge', 'lexical', '--scale', 'numeric', '--json'], { env });
    expect(numeric.stderr).toBe('');
    const report = numeric.json();
    expect(report).toMatchObject({ scale: 'numeric', units: 1, humans: ['ann', 'bea'], judges: ['lexical'] });
    // The judge side on the numeric scale is its F1; the people's mean rating is (5 + 4) / 2.
    const f1 = report.judgeReports[0].vsMajority.bias + 4.5;
    expect(f1).toBeGreaterThan(0);
    expect(f1).toBeLessThan(1);
    expect(report.notes.some((n: string) => n.startsWith("the judges' values are F1 (0 to 1)"))).toBe(true);

    // A rubric judge gives no whole-answer pass/fail: the people's figures with an empty judge side, named in
    // the notes as GET /api/reports/calibration and the page say it; the text says what the binary judge side is.
    const binary = runCli(['calibrate', '--run', 'campaign-model-a-low', '--judge', 'lexical', '--scale', 'binary', '--json'], { env });
    expect(binary.stderr).toBe('');
    expect(binary.code).toBe(0);
    expect(binary.json()).toMatchObject({ scale: 'binary', judges: [], judgeReports: [] });
    expect(binary.json().notes).toContain("judge 'lexical' has no grade of the labelled answers on the binary scale: only the human ceiling is reported");
    const text = runCli(['calibrate', '--run', 'campaign-model-a-low', '--judge', 'lexical', '--scale', 'binary'], { env });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      "Judge lexical: no side on this scale; on the binary scale a judge's side is a whole-answer pass/fail label, which only a reference-match judge gives (mode: reference-match); a rubric judge's item verdicts are read with --scale verdict",
    );
  }, 120_000);
});
