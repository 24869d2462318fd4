import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Rubric } from '../../../src/domain/rubric.ts';
import { ITEM_VERDICTS, VERDICT_POINTS, type ItemVerdict } from '../../../src/domain/verdicts.ts';
import { scoreDescription } from '../../../src/scoring/description/score.ts';
import { votePanel, type PanelResult, type PanelSample } from '../../../src/scoring/panel/index.ts';

/** Properties of the panel vote over random rubrics and samples (seed fixed in test/setup/fast-check.ts). */

const verdict = fc.constantFrom<ItemVerdict>(...ITEM_VERDICTS);
const STATUSES = ['ok', 'ok', 'ok', 'provider_error', 'parse_failure'] as const;

const rubricOf = (weights: number[]): Rubric => ({
  id: 'p',
  title: 'P',
  reference: 'r',
  items: weights.map((weight, i) => ({ id: `i${i}`, text: `item ${i}`, weight })),
});

/** A rubric and 1–6 samples over it, some failed. */
const panelCase = fc
  .array(fc.double({ min: 0.1, max: 10, noNaN: true }), { minLength: 1, maxLength: 8 })
  .chain((weights) =>
    fc.record({
      rubric: fc.constant(rubricOf(weights)),
      samples: fc.array(
        fc.record({
          status: fc.constantFrom(...STATUSES),
          verdicts: fc.array(verdict, { minLength: weights.length, maxLength: weights.length }),
          correctness: fc.double({ min: 0, max: 1, noNaN: true }),
        }),
        { minLength: 1, maxLength: 6 },
      ),
      vote: fc.constantFrom('majority' as const, 'mean' as const),
    }),
  )
  .map(({ rubric, samples, vote }) => ({
    rubric,
    vote,
    samples: samples.map(
      (s, k): PanelSample => ({
        judge: `j${k % 3}`,
        sample: Math.floor(k / 3) + 1,
        status: s.status,
        items: s.status === 'ok' ? s.verdicts.map((v, i) => ({ id: `i${i}`, verdict: v })) : [],
        correctness: s.status === 'ok' ? s.correctness : null,
      }),
    ),
  }));

/** The result with its two lists in a canonical order (pairs as unordered). */
function canonical(r: PanelResult) {
  return {
    ...r,
    reason: r.reason === null ? null : r.reason.split(': ')[1]!.split(', ').sort(),
    members: [...r.members].sort((x, y) => `${x.judge}#${x.sample}`.localeCompare(`${y.judge}#${y.sample}`)),
    agreement: {
      meanItemAgreement: r.agreement.meanItemAgreement,
      pairwiseKappa: r.agreement.pairwiseKappa.map((p) => ({ ...p, a: p.a < p.b ? p.a : p.b, b: p.a < p.b ? p.b : p.a })).sort((x, y) => `${x.a} ${x.b}`.localeCompare(`${y.a} ${y.b}`)),
    },
  };
}

describe('panel vote properties', () => {
  it('unanimous ok samples give that verdict on every item with agreement 1, and the single sample’s completeness', () => {
    fc.assert(
      fc.property(
        fc.array(verdict, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 5 }),
        fc.constantFrom('majority' as const, 'mean' as const),
        (verdicts, n, vote) => {
          const rubric = rubricOf(verdicts.map((_, i) => i + 1));
          const items = verdicts.map((v, i) => ({ id: `i${i}`, verdict: v }));
          const samples = Array.from({ length: n }, (_, k): PanelSample => ({ judge: `j${k}`, sample: 1, status: 'ok', items, correctness: 0.5 }));
          const r = votePanel(rubric, samples, { vote });
          expect(r.items.map((it) => it.verdict)).toEqual(verdicts);
          expect(r.items.every((it) => it.agreement === 1 && it.instability === 0)).toBe(true);
          expect(r.agreement.meanItemAgreement).toBe(1);
          expect(r.completeness).toBeCloseTo(scoreDescription(rubric, { items, claims: [] }).completeness, 12);
          // Identical raters: kappa 1, or undefined when every verdict is the same (chance agreement 1).
          for (const p of r.agreement.pairwiseKappa) {
            if (p.kappa === null) expect(p.reason).toMatch(/chance agreement is 1/);
            else expect(p.kappa).toBeCloseTo(1, 12);
          }
        },
      ),
    );
  });

  it('permuting the samples changes nothing but the order of the member and pair lists', () => {
    fc.assert(
      fc.property(
        panelCase.chain((c) => fc.tuple(fc.constant(c), fc.shuffledSubarray(c.samples, { minLength: c.samples.length, maxLength: c.samples.length }))),
        ([c, shuffled]) => {
          const a = votePanel(c.rubric, c.samples, { vote: c.vote });
          const b = votePanel(c.rubric, shuffled, { vote: c.vote });
          expect(canonical(b)).toEqual(canonical(a));
        },
      ),
    );
  });

  it('scores lie in [0, 1] and are null exactly when the quorum is missed', () => {
    fc.assert(
      fc.property(panelCase, (c) => {
        const r = votePanel(c.rubric, c.samples, { vote: c.vote });
        const okCount = c.samples.filter((s) => s.status === 'ok').length;
        expect(r.okSamples).toBe(okCount);
        expect(r.status).toBe(okCount >= r.quorum ? 'ok' : 'no_quorum');
        for (const x of [r.completeness, r.correctness, r.f1]) {
          if (r.status === 'ok') expect(x! >= 0 && x! <= 1).toBe(true);
          else expect(x).toBeNull();
        }
        for (const it of r.items) {
          expect(ITEM_VERDICTS.reduce((s, v) => s + it.votes[v], 0)).toBe(okCount);
          if (it.agreement !== null) expect(it.agreement + it.instability!).toBeCloseTo(1, 12);
        }
      }),
    );
  });

  it('the majority verdict has the most votes, and on a tie the fewest points', () => {
    fc.assert(
      fc.property(panelCase, (c) => {
        const r = votePanel(c.rubric, c.samples, { vote: 'majority' });
        for (const it of r.items) {
          if (it.verdict === null) continue;
          const top = Math.max(...ITEM_VERDICTS.map((v) => it.votes[v]));
          expect(it.votes[it.verdict]).toBe(top);
          const tied = ITEM_VERDICTS.filter((v) => it.votes[v] === top);
          expect(VERDICT_POINTS[it.verdict]).toBe(Math.min(...tied.map((v) => VERDICT_POINTS[v])));
          if (tied.includes('missing')) expect(it.verdict).toBe('missing');
        }
      }),
    );
  });

  it('mean completeness is Σ weight · mean points / Σ weight over the items', () => {
    fc.assert(
      fc.property(panelCase, (c) => {
        const r = votePanel(c.rubric, c.samples, { vote: 'mean' });
        if (r.status !== 'ok') return;
        const possible = r.items.reduce((s, it) => s + it.weight, 0);
        expect(r.completeness!).toBeCloseTo(r.items.reduce((s, it) => s + it.weight * it.points!, 0) / possible, 10);
      }),
    );
  });

  it('a one-sample panel scores as §2.1 scores that sample (same completeness, correctness and f1)', () => {
    fc.assert(
      fc.property(
        fc.array(verdict, { minLength: 1, maxLength: 8 }),
        fc.array(fc.constantFrom('true' as const, 'false' as const, 'unverifiable' as const), { maxLength: 6 }),
        (verdicts, claimVerdicts) => {
          const rubric = rubricOf(verdicts.map((_, i) => i + 0.5));
          const items = verdicts.map((v, i) => ({ id: `i${i}`, verdict: v }));
          const single = scoreDescription(rubric, { items, claims: claimVerdicts.map((verdict) => ({ verdict })) });
          const r = votePanel(rubric, [{ judge: 'j', sample: 1, status: 'ok', items, correctness: single.correctness }]);
          expect([r.completeness, r.correctness, r.f1]).toEqual([single.completeness, single.correctness, single.f1]);
        },
      ),
    );
  });
});
