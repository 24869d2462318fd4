import { describe, expect, it } from 'vitest';
import { costText, formatDuration, progressBar, progressLine } from '../../src/cli/progress-bar.ts';
import type { Progress } from '../../src/services/grading/progress.ts';

const p: Progress = {
  run: { id: 1, name: 'r' },
  judge: { id: 2, slug: 'claude' },
  status: 'active',
  total: 200,
  skipped: { task: 0, answerError: 0, noText: 0, noRubric: 0 },
  done: 90,
  failed: 10,
  remaining: 100,
  jobs: { queued: 80, retrying: 4, active: 16 },
  ratePerSecond: 2.5,
  etaSeconds: 40,
  reason: null,
  elapsedSeconds: 40,
  calls: 104,
  inFlightCalls: 0,
  unsettled: { calls: 0, costUsd: 0 },
  tokens: { input: 1000, output: 200, cacheRead: 3000, cacheWrite: 500 },
  costUsd: 0.12345,
  unpricedCalls: 0,
  unknownCostCalls: 0,
};

describe('progress line', () => {
  it('shows done/failed/remaining, rate, ETA, tokens and cost; the bar is half full at 100 of 200', () => {
    expect(progressLine(p)).toBe(`${'█'.repeat(12)}${'░'.repeat(12)} 100/200  done 90  failed 10  remaining 100  2.5/s  ETA 40s  4700 tokens  $0.1235`);
    expect(progressLine({ ...p, ratePerSecond: null, etaSeconds: null })).toContain('—  ETA —');
  });

  it('names unsettled calls (sent by a dead worker, never settled) and their estimated cost', () => {
    expect(progressLine({ ...p, unsettled: { calls: 3, costUsd: 0.0421 } })).toMatch(/\$0\.1235  3 unsettled calls \(≈\$0\.0421 of it estimated\)$/);
    expect(progressLine({ ...p, unsettled: { calls: 1, costUsd: 0.01 } })).toContain(' 1 unsettled call (');
  });

  it('a cost over calls of no known price reads unknown, with the priced part when there is one', () => {
    expect(progressLine({ ...p, costUsd: 0, unpricedCalls: 104 })).toMatch(/tokens  cost unknown \(104 calls of a model not in judges\/prices\.yaml\)$/);
    expect(costText({ costUsd: 0.5, unpricedCalls: 1, unknownCostCalls: 0 })).toBe('cost unknown (1 call of a model not in judges/prices.yaml; $0.5000 for the rest)');
    expect(costText({ costUsd: 0, unpricedCalls: 0, unknownCostCalls: 0 })).toBe('$0.0000');
  });

  it('calls of unknown cost (sent, no usage reported) make the cost and the tokens lower bounds, never $0 as fact', () => {
    expect(progressLine({ ...p, costUsd: 0, unknownCostCalls: 2 })).toMatch(/ETA 40s  at least 4700 tokens  at least \$0\.0000 \(2 calls of unknown cost: sent, no usage reported\)$/);
    expect(costText({ costUsd: 0.5, unpricedCalls: 1, unknownCostCalls: 1 })).toBe('cost unknown (1 call of a model not in judges/prices.yaml; 1 call of unknown cost: sent, no usage reported; $0.5000 for the rest)');
  });

  it('formats durations', () => {
    expect([formatDuration(0), formatDuration(59), formatDuration(61), formatDuration(3 * 3600 + 7 * 60), formatDuration(null)]).toEqual(['0s', '59s', '1m01s', '3h07m', '—']);
  });

  it('redraws in place on a terminal and prints a line at most every interval otherwise', () => {
    const out: string[] = [];
    let now = 0;
    const tty = progressBar({ isTTY: true, write: (s: string) => out.push(s) } as unknown as NodeJS.WriteStream, 5000, () => now);
    tty.update(p);
    tty.update(p);
    tty.end();
    expect(out.map((s) => s.slice(0, 1))).toEqual(['\r', '\r', '\n']);
    const lines: string[] = [];
    const log = progressBar({ isTTY: false, write: (s: string) => lines.push(s) } as unknown as NodeJS.WriteStream, 5000, () => now);
    now = 10_000;
    log.update(p);
    now = 12_000;
    log.update(p);
    now = 15_000;
    log.update(p);
    log.end();
    expect(lines).toHaveLength(2);
    expect(lines.every((l) => l.endsWith('\n') && !l.includes('\r'))).toBe(true);
  });
});
