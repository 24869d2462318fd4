import { describe, expect, it } from 'vitest';
import { VERDICT_POINTS, VerdictsSchema } from '../../src/domain/verdicts.ts';

describe('VerdictsSchema', () => {
  it('scores correct 1, partial 0.5, incorrect and missing 0', () => {
    expect(VERDICT_POINTS).toEqual({ correct: 1, partial: 0.5, incorrect: 0, missing: 0 });
  });

  it('defaults claims to an empty list and rejects unknown verdict words', () => {
    expect(VerdictsSchema.parse({ items: [] })).toEqual({ items: [], claims: [] });
    expect(VerdictsSchema.safeParse({ items: [{ id: 'a', verdict: 'right' }] }).success).toBe(false);
    expect(VerdictsSchema.safeParse({ items: [], claims: [{ verdict: 'maybe' }] }).success).toBe(false);
  });
});
