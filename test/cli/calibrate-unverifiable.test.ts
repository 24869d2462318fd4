import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../src/db/client.ts';
import { runCli } from '../helpers/cli.ts';
import { seedPolicyCalibration } from '../services/calibration-policy-fixture.ts';

/** `assay calibrate --run --scale numeric` reads the judge's F1 under --unverifiable (default count); the figures by hand: calibration-policy-fixture.ts. */
describe('assay calibrate --run --unverifiable', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'assay-calib-pol-'));
  const env = { DATABASE_URL: '', ASSAY_DATA_DIR: join(tmp, 'data') };
  beforeAll(async () => {
    const database = await openDatabase({ dataDir: env.ASSAY_DATA_DIR });
    try {
      await migrate(database);
      await seedPolicyCalibration(database);
    } finally {
      await database.close();
    }
  }, 300_000);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const calibrate = (...more: string[]) => runCli(['calibrate', '--run', 'pol', '--judge', 'exc', '--scale', 'numeric', '--json', ...more], { env });

  it('reads F1 under count by default and under exclude when asked', () => {
    const count = calibrate();
    expect(count.stderr).toBe('');
    const c = count.json();
    expect(c.unverifiable).toBe('count');
    expect(c.judgeReports[0].vsMajority.n).toBe(3);
    expect(c.judgeReports[0].vsMajority.mae).toBeCloseTo(5 / 54, 12);
    expect(c.unverifiableNote).toMatch(/^1 grade left out/);
    expect(c.notes).toContain(c.unverifiableNote);
    const e = calibrate('--unverifiable', 'exclude').json();
    expect(e.unverifiable).toBe('exclude');
    expect(e.unverifiableNote).toBeNull();
    expect(e.judgeReports[0].vsMajority.n).toBe(4);
    expect(e.judgeReports[0].vsMajority.mae).toBeCloseTo((1 / 2 + 1 / 14 + 1 / 9) / 4, 12);
  }, 300_000);

  it('refuses another policy, and the flag with a labels file (exit 2)', () => {
    const bad = calibrate('--unverifiable', 'both');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--unverifiable/);
    const file = runCli(['calibrate', '--labels', 'x.jsonl', '--scale', 'numeric', '--unverifiable', 'exclude'], { env });
    expect(file.code).toBe(2);
    expect(file.stderr).toMatch(/--unverifiable needs --run/);
  }, 300_000);
});
