import { readdirSync, readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentWords, lexicalReferenceMatch, lexicalRubricVerdicts, stem } from '../../src/judges/adapters/lexical.ts';
import { createAdapter } from '../../src/judges/adapters/index.ts';
import { loadJudge } from '../../src/judges/config.ts';
import { createJudgeEngine } from '../../src/judges/engine.ts';
import { MemoryCache, MemoryLedger } from '../../src/judges/store.ts';
import { parseRubric } from '../../src/scoring/description/rubric.ts';
import { ROOT } from '../helpers/cli.ts';
import { farmyard, farmyardAnswer } from './harness.ts';

const T = { correct: 0.6, partial: 0.3 };

describe('lexical baseline judge', () => {
  it('stems lightly and drops glue words', () => {
    expect(stem('grazing')).toBe('graz');
    expect(stem('cows')).toBe('cow');
    expect(stem('is')).toBe('is');
    expect(contentWords('The tractor is green.')).toEqual(['tractor', 'green']);
  });

  it('marks items by word overlap (hand-checked on farmyard)', () => {
    const v = lexicalRubricVerdicts(farmyard, farmyardAnswer, T);
    const by = Object.fromEntries(v.items.map((i) => [i.id, i.verdict]));
    // barn: large red barn white trim door open → red, barn, white, trim, door found = 5/7 ≥ 0.6.
    expect(by.barn).toBe('correct');
    // fence: wooden rail fence run across → only "fence" = 1/5 < 0.3.
    expect(by.fence).toBe('missing');
    // pigs-mud: pink pig wallow band mud foreground → pink, pig = 2/6 → partial.
    expect(by['pigs-mud']).toBe('partial');
    // The floor's blind spot, documented: "red tractor" overlaps "tractor green" on both words.
    expect(by['tractor-green']).toBe('correct');
    expect(v.items.every((i) => i.verdict !== 'incorrect')).toBe(true);
    expect(v.claims.every((c) => c.verdict !== 'false')).toBe(true);
    expect(v.claims.map((c) => c.text)).not.toContain('Orientation: landscape');
  });

  it('passes the reference against itself in reference-match mode', () => {
    expect(lexicalReferenceMatch(farmyard, farmyard.reference, T).label).toBe('pass');
    expect(lexicalReferenceMatch(farmyard, 'A photo of a city street at night.', T).label).toBe('fail');
  });

  it('is deterministic for any answer (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (s) => {
        const a = lexicalRubricVerdicts(farmyard, s, T);
        expect(lexicalRubricVerdicts(farmyard, s, T)).toEqual(a);
        expect(a.items.map((i) => i.id)).toEqual(farmyard.items.map((i) => i.id));
      }),
    );
  });

  const bundled = readdirSync(`${ROOT}rubrics/examples`).filter((f) => f.endsWith('.yaml'));
  it.each(bundled)('grades the bundled example %s offline through the engine, identically twice', async (f) => {
    const rubric = parseRubric(parseYaml(readFileSync(`${ROOT}rubrics/examples/${f}`, 'utf8')), f);
    const judge = loadJudge('lexical');
    const adapter = await createAdapter(judge, {});
    const engine = () => createJudgeEngine({ judge, adapter, cache: new MemoryCache(), ledger: new MemoryLedger() });
    const answers = [rubric.reference, farmyardAnswer, ''];
    for (const answer of answers) {
      const a = await engine().grade({ rubric, answer });
      const b = await engine().grade({ rubric, answer });
      expect(a.status).toBe('ok');
      expect(a.judge.baseline).toBe(true);
      expect(a.judge.note).toMatch(/floor, not an LLM judge/);
      expect(b.output).toEqual(a.output);
      expect(a.costUsd).toBe(0);
    }
    // The reference describes itself: no item is missing.
    const self = await engine().grade({ rubric, answer: rubric.reference });
    expect((self.output as { items: Array<{ verdict: string }> }).items.filter((i) => i.verdict === 'missing')).toEqual([]);
  });
});
