// The job queue's time variables are read by the one rule of text numbers: a typo stops the command,
// naming the variable, instead of Number() reading '0x10' as 16 s or ' ' as 0 s (every job expired).
import { describe, expect, it } from 'vitest';
import { envSeconds } from '../../src/jobs/env-seconds.ts';
import { readJobTimes } from '../../src/jobs/env-seconds.ts';
import { livenessDefaults } from '../../src/jobs/liveness.ts';

describe('envSeconds', () => {
  it('reads digits, and blank or unset as the fallback', () => {
    expect(envSeconds('X', 600, { integer: true }, {})).toBe(600);
    expect(envSeconds('X', 600, { integer: true }, { X: '  ' })).toBe(600);
    expect(envSeconds('X', 600, { integer: true }, { X: ' 45 ' })).toBe(45);
    expect(envSeconds('X', 5, {}, { X: '0.5' })).toBe(0.5);
  });
  it.each(['0x10', '1e2', 'ten', '0', '-3', 'Infinity', '90000'])("refuses '%s', naming the variable", (raw) => {
    expect(() => envSeconds('ASSAY_JOB_EXPIRE_SECONDS', 600, { integer: true }, { ASSAY_JOB_EXPIRE_SECONDS: raw })).toThrow(/ASSAY_JOB_EXPIRE_SECONDS: a whole number of seconds/);
  });
  it('refuses a fraction where whole seconds are needed', () => {
    expect(() => envSeconds('X', 30, { integer: true }, { X: '1.5' })).toThrow(/X: a whole number/);
  });
});

describe('worker liveness from the environment (read by config.ts through readJobTimes)', () => {
  it('takes fractional seconds and refuses hex', () => {
    const env = { ASSAY_WORKER_HEARTBEAT_SECONDS: '0.5', ASSAY_WORKER_DEAD_SECONDS: '2', ASSAY_WORKER_SWEEP_SECONDS: '0.5' };
    expect(readJobTimes(env).liveness).toEqual({ heartbeatMs: 500, deadAfterMs: 2000, sweepMs: 500 });
    expect(() => readJobTimes({ ...env, ASSAY_WORKER_DEAD_SECONDS: '0x10' })).toThrow(/ASSAY_WORKER_DEAD_SECONDS: a number of seconds in \(0, 3600\]/);
  });
  it('jobs/ itself reads no environment: its defaults are the defaults whatever is set', () => {
    const saved = { ...process.env };
    try {
      process.env.ASSAY_WORKER_DEAD_SECONDS = '0x10';
      process.env.ASSAY_WORKER_HEARTBEAT_SECONDS = '0.5';
      expect(livenessDefaults()).toEqual({ heartbeatMs: 5000, deadAfterMs: 30_000, sweepMs: 5000 });
    } finally {
      process.env = saved;
    }
  });
});
