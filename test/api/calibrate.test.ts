import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { LabelSetCalibrationSchema } from '../../src/api/calibration-schema.ts';
import { runCli } from '../helpers/cli.ts';
import { describeDb } from '../helpers/db.ts';
import { useApi } from './app-fixture.ts';

/** POST /api/calibrate: the report of `assay calibrate --labels` over rows in the body, nothing imported. */

const FILE = 'calibration/example-small.jsonl';
const rows = readFileSync(FILE, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Record<string, unknown>);

describeDb('POST /api/calibrate', (ctx) => {
  const api = useApi(ctx);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const post = (body: unknown) => api.call(api.keys.read, 'POST', '/api/calibrate', { body }) as Promise<Omit<Response, 'json'> & { json(): Promise<any> }>;

  it('equals `assay calibrate --labels FILE --json` on the same rows, seeded alike, and fits its schema', async () => {
    const cli = runCli(['calibrate', '--labels', FILE, '--scale', 'verdict', '--seed', '7', '--json']);
    expect(cli.code, cli.stderr).toBe(0);
    const r = await post({ scale: 'verdict', labels: rows, seed: 7 });
    expect(r.status).toBe(200);
    const body = await r.json();
    expect(body).toEqual(cli.json());
    expect(LabelSetCalibrationSchema.strict().safeParse(body).success).toBe(true);
    // No judge of judges/ anchors on this label set: nothing left out, said as an empty count on both.
    expect(body.excludedExamples).toEqual({});
    expect(body.judgeReports.length).toBeGreaterThan(0);
    expect(body.judgeReports[0].vsMajority.kappa.kappa).toEqual(cli.json().judgeReports[0].vsMajority.kappa.kappa);
  }, 60_000);

  it('humans: majority equals `--humans majority` on the same rows; adjudicated needs stored labels (400, as the CLI exits 2)', async () => {
    const cli = runCli(['calibrate', '--labels', FILE, '--scale', 'verdict', '--seed', '7', '--humans', 'majority', '--json']);
    expect(cli.code, cli.stderr).toBe(0);
    const r = await post({ scale: 'verdict', labels: rows, seed: 7, humans: 'majority' });
    expect(r.status).toBe(200);
    const body = await r.json();
    expect(body.humans).toEqual(['majority']);
    expect(body).toEqual(cli.json());
    // Not the report of each annotator under another name: the question asked is the one answered.
    const each = await (await post({ scale: 'verdict', labels: rows, seed: 7 })).json();
    expect(each.humans.length).toBeGreaterThan(1);
    const bad = await post({ scale: 'verdict', labels: rows, humans: 'adjudicated' });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toMatch(/^humans: adjudicated needs stored labels/);
  }, 60_000);

  it('bad rows are 400 naming the row; nothing is stored', async () => {
    const before = await ctx.database.execute('select count(*)::int as n from labels');
    const cases: [unknown, RegExp][] = [
      [{ scale: 'verdict', labels: [...rows, rows[0]] }, new RegExp(`^labels: row ${rows.length + 1}: rater '${String(rows[0]!.rater)}' labels answer '${String(rows[0]!.answer)}'.* twice \\(first at row 1\\)`)],
      [{ scale: 'verdict', labels: [{ ...rows[0], label: 'maybe' }] }, /^labels: row 1: field 'label': "maybe" is not valid on the verdict scale/],
      [{ scale: 'ordinal', labels: rows }, /scale/],
      [{ scale: 'verdict', labels: [] }, /labels/],
      [{ scale: 'verdict', labels: [{ ...rows[0], kind: 'robot' }] }, /kind/],
    ];
    for (const [body, message] of cases) {
      const r = await post(body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      const j = await r.json();
      expect(j.error.code).toBe('bad_input');
      expect(j.error.message).toMatch(message);
    }
    expect((await ctx.database.execute('select count(*)::int as n from labels')).rows).toEqual(before.rows);
  });
});
