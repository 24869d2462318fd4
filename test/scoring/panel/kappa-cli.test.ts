import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Rubric } from '../../../src/domain/rubric.ts';
import type { ItemVerdict } from '../../../src/domain/verdicts.ts';
import { votePanel } from '../../../src/scoring/panel/index.ts';
import { runCli } from '../../helpers/cli.ts';

/** A panel's pairwise kappa is `assay stats kappa` on the two samples' item verdicts (issue 13 acceptance). */

const A: ItemVerdict[] = ['correct', 'correct', 'missing', 'partial', 'incorrect', 'correct'];
const B: ItemVerdict[] = ['correct', 'partial', 'missing', 'partial', 'missing', 'correct'];

describe('pairwise kappa against the CLI', () => {
  it('equals assay stats kappa --json on the same verdict lists', () => {
    const rubric: Rubric = { id: 'k', title: 'K', reference: 'r', items: A.map((_, i) => ({ id: `i${i}`, text: `t${i}`, weight: 1 })) };
    const sample = (judge: string, vs: ItemVerdict[]) => ({ judge, sample: 1, status: 'ok', items: vs.map((verdict, i) => ({ id: `i${i}`, verdict })), correctness: 1 });
    const panel = votePanel(rubric, [sample('a', A), sample('b', B)]);

    const dir = mkdtempSync(join(tmpdir(), 'assay-panel-kappa-'));
    writeFileSync(join(dir, 'a.json'), JSON.stringify(A));
    writeFileSync(join(dir, 'b.json'), JSON.stringify(B));
    const r = runCli(['stats', 'kappa', '--a', join(dir, 'a.json'), '--b', join(dir, 'b.json'), '--json']);
    expect(r.code, r.stderr).toBe(0);

    // By hand: po = 4/6; categories correct, incorrect, missing, partial; shares A (3, 1, 1, 1)/6,
    // B (2, 0, 2, 2)/6; pe = (6 + 0 + 2 + 2)/36 = 10/36; kappa = (24/36 − 10/36)/(26/36) = 14/26.
    expect(r.json().kappa).toBeCloseTo(14 / 26, 12);
    expect(panel.agreement.pairwiseKappa).toEqual([{ a: 'a#1', b: 'b#1', kappa: r.json().kappa }]);
  });
});
