import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAssayError } from '../../../src/domain/errors.ts';
import { panelItemOrders, sampleItemOrder, sampleSeed } from '../../../src/scoring/panel/index.ts';

/** Seeded rubric item order per panel sample (shuffle: true). */

const ids = Array.from({ length: 12 }, (_, i) => `item-${i}`);

describe('sample item order', () => {
  it('is a permutation of the items, the same for the same (seed, member, sample)', () => {
    const o = sampleItemOrder(ids, 1, 'gpt', 1);
    expect([...o].sort()).toEqual([...ids].sort());
    expect(sampleItemOrder(ids, 1, 'gpt', 1)).toEqual(o);
    expect(o).not.toEqual(ids);
  });

  it('is pinned: a recorded order stays reproducible from the panel file across versions', () => {
    // Golden values: changing the hash or the shuffle would silently re-order every recorded sample.
    expect(sampleSeed(1, 'gpt', 1)).toBe(1095025832);
    expect(sampleItemOrder(['a', 'b', 'c', 'd', 'e'], 1, 'gpt', 1)).toEqual(GOLDEN_GPT_1);
    expect(sampleItemOrder(['a', 'b', 'c', 'd', 'e'], 1, 'claude', 2)).toEqual(GOLDEN_CLAUDE_2);
  });

  it('differs between samples of one member, between members, and between seeds', () => {
    const rows = panelItemOrders(ids, ['claude', 'gpt', 'local'], 3, { shuffle: true, seed: 1 });
    expect(rows.map((r) => `${r.judge}#${r.sample}`)).toEqual(['claude#1', 'claude#2', 'claude#3', 'gpt#1', 'gpt#2', 'gpt#3', 'local#1', 'local#2', 'local#3']);
    expect(new Set(rows.map((r) => r.order.join(','))).size).toBe(9);
    expect(sampleItemOrder(ids, 2, 'gpt', 1)).not.toEqual(sampleItemOrder(ids, 1, 'gpt', 1));
  });

  it('a sample’s order depends on its member id, not its position: adding a member changes no other order', () => {
    const before = panelItemOrders(ids, ['claude', 'gpt'], 2, { shuffle: true, seed: 7 });
    const after = panelItemOrders(ids, ['local', 'gpt', 'claude'], 2, { shuffle: true, seed: 7 });
    for (const r of before) expect(after.find((x) => x.judge === r.judge && x.sample === r.sample)!.order).toEqual(r.order);
  });

  it('without shuffle every sample sees the rubric order', () => {
    const rows = panelItemOrders(ids, ['claude', 'gpt'], 2, { shuffle: false, seed: 1 });
    expect(rows).toHaveLength(4);
    for (const r of rows) expect(r.order).toEqual(ids);
  });

  it('is a permutation for any ids, seed, member and sample', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 6 }), { maxLength: 30 }),
        fc.integer({ min: 0, max: 2_147_483_647 }),
        fc.string({ minLength: 1, maxLength: 10 }),
        fc.integer({ min: 1, max: 100 }),
        (items, seed, judge, sample) => {
          const o = sampleItemOrder(items, seed, judge, sample);
          expect([...o].sort()).toEqual([...items].sort());
          expect(sampleItemOrder(items, seed, judge, sample)).toEqual(o);
        },
      ),
    );
  });

  it('refuses a fractional seed and sample numbers below 1', () => {
    const bad = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return isAssayError(e) && e.code === 'bad_input' ? e.message : String(e);
      }
      return 'no error';
    };
    expect(bad(() => sampleSeed(1.5, 'gpt', 1))).toMatch(/seed: must be a whole number/);
    expect(bad(() => sampleSeed(1, 'gpt', 0))).toMatch(/count from 1/);
    expect(bad(() => panelItemOrders(ids, ['gpt'], 0, { shuffle: true, seed: 1 }))).toMatch(/samples: must be a whole number ≥ 1/);
  });
});

const GOLDEN_GPT_1 = ['c', 'b', 'd', 'a', 'e'];
const GOLDEN_CLAUDE_2 = ['a', 'e', 'b', 'c', 'd'];
