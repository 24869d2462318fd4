import { expect, it } from 'vitest';
import { costUsd, loadPrices } from '../../src/judges/prices.ts';
import { ZERO_USAGE } from '../../src/judges/types.ts';

/**
 * A call's cost is known whenever it can be: no tokens cost nothing at any price (a replayed verdict,
 * an attempt that failed before the provider counted anything), so only tokens of a model with no price
 * are unknown — and they make the run's cost unknown in its progress (progress.ts unpricedCalls).
 */
const prices = loadPrices();

it('no tokens cost 0 even for a model with no price; any token of such a model is unknown', () => {
  expect(costUsd(prices, 'recorded-verdicts', ZERO_USAGE)).toBe(0);
  expect(costUsd(prices, 'recorded-verdicts', { ...ZERO_USAGE, cacheRead: 1 })).toBeNull();
  expect(costUsd(prices, 'claude-sonnet-5-20261101', { input: 10, output: 0, cacheRead: 0, cacheWrite: 0 })).toBeNull();
  // A model named like an object's own property is a model with no price, not NaN.
  expect(costUsd(prices, 'constructor', { input: 10, output: 0, cacheRead: 0, cacheWrite: 0 })).toBeNull();
});

it('each kind of token at its own price: cache reads and writes are not priced as input', () => {
  const m = prices.models['claude-sonnet-4-6']!;
  expect(costUsd(prices, 'claude-sonnet-4-6', { input: 0, output: 0, cacheRead: 1_000_000, cacheWrite: 0 })).toBe(m.cache_read);
  expect(costUsd(prices, 'claude-sonnet-4-6', { input: 0, output: 0, cacheRead: 0, cacheWrite: 1_000_000 })).toBe(m.cache_write);
  expect(m.cache_read).toBeLessThan(m.input);
  expect(m.cache_write).toBeGreaterThan(m.input);
});
