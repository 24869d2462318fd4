import { expect, it } from 'vitest';
import { canonicalJson, sha256 } from '../../src/judges/config.ts';
import { createJudgeEngine } from '../../src/judges/engine.ts';
import { MemoryCache, MemoryLedger } from '../../src/judges/store.ts';
import { createAdapter } from '../../src/judges/adapters/index.ts';
import { loadJudge } from '../../src/judges/config.ts';
import { farmyard, farmyardAnswer } from './harness.ts';

/**
 * A panel's samples after the first are their own cache entries; a plain judge's key (and sample 1's,
 * the same call) is the one it always had, so caches written before panels stay valid.
 */
it('the cache key of a plain judge is unchanged; sample 1 shares it; sample 2 has its own', async () => {
  const judge = loadJudge('lexical');
  const engine = createJudgeEngine({ judge, adapter: await createAdapter(judge, {}), cache: new MemoryCache(), ledger: new MemoryLedger() });
  const plain = await engine.grade({ rubric: farmyard, answer: farmyardAnswer });
  // The key as it was computed before samples existed (engine.ts before issue 13).
  expect(plain.cacheKey).toBe(sha256(canonicalJson({ judge: judge.configHash, prompt: plain.promptHash, static: plain.staticHash, answer: sha256(farmyardAnswer) })));
  const one = await engine.grade({ rubric: farmyard, answer: farmyardAnswer, sample: 1 });
  const two = await engine.grade({ rubric: farmyard, answer: farmyardAnswer, sample: 2 });
  expect(one.cacheKey).toBe(plain.cacheKey);
  expect(two.cacheKey).not.toBe(plain.cacheKey);
  expect(two.cacheKey).toBe(sha256(canonicalJson({ judge: judge.configHash, prompt: plain.promptHash, static: plain.staticHash, answer: sha256(farmyardAnswer), sample: 2 })));
  expect(judge.configHash).toBe(loadJudge('lexical').configHash);
});
