import type { StatName } from '../../services/statistics.ts';
import type { BadInputExample } from '../schemas.ts';

/**
 * Request and response examples of POST /api/stats/* in /openapi.json: the worked examples of
 * docs/statistics.md, and as response the document the API answers for that body (pasted from a real
 * call; test/api/openapi-examples.test.ts sends each request and requires this very response).
 */

export interface StatExample {
  request: Record<string, unknown>;
  response: Record<string, unknown>;
  /** A body the route refuses, and the envelope it answers (shown under 400). */
  badInput?: BadInputExample;
}

export const STATS_EXAMPLES: Record<StatName, StatExample> = {
  // A human and a judge on 12 rubric items, near misses cheaper (docs/statistics.md, quadratic weights).
  kappa: {
    request: {
      a: ['correct', 'partial', 'correct', 'missing', 'incorrect', 'correct', 'partial', 'partial', 'correct', 'missing', 'correct', 'incorrect'],
      b: ['correct', 'correct', 'correct', 'missing', 'partial', 'correct', 'partial', 'missing', 'correct', 'missing', 'partial', 'incorrect'],
      categories: ['missing', 'incorrect', 'partial', 'correct'],
      weights: 'quadratic',
    },
    response: { kappa: 0.7857142857142859, se: 0.12947887112831133, ci: [0.5319403615438926, 1], agreement: 0.6666666666666666, n: 12, categories: ['missing', 'incorrect', 'partial', 'correct'], method: 'cohen', weights: 'quadratic' },
    badInput: {
      summary: 'a and b of different lengths',
      request: { a: ['correct', 'partial', 'missing'], b: ['correct', 'partial'] },
      response: { error: { code: 'bad_input', message: 'a has 3 labels but b has 2 (need one label per item in each)' } },
    },
  },
  // Fleiss (1971): 10 subjects, 14 raters, 5 categories.
  fleiss: {
    request: { data: [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]] },
    response: {
      kappa: 0.20993070442195522,
      se: 0.016965069224393132,
      z: 12.374291059190464,
      p: 3.600594323466795e-35,
      byCategory: { '0': 0.20128205128205134, '1': 0.07967032967032983, '2': 0.17159763313609455, '3': 0.030381383322559796, '4': 0.5076566951566952 },
      subjects: 10,
      raters: 14,
    },
  },
  // Krippendorff (2011): 4 coders × 12 units, null where a coder gave no value.
  alpha: {
    request: {
      data: [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, null, null, null],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, null, 3],
        [null, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, null],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, null],
      ],
      level: 'nominal',
    },
    response: { alpha: 0.743421052631579, level: 'nominal', units: 12, pairable: 11, values: 40 },
  },
  wilson: {
    request: { successes: 18, trials: 20, confidence: 0.99 },
    response: { estimate: 0.9, ci: [0.6205022134712959, 0.9802134656497015], successes: 18, trials: 20, confidence: 0.99 },
  },
  corr: {
    request: { x: [44.4, 45.9, 41.9, 53.3, 44.7, 44.1, 50.7, 45.2, 60.1], y: [2.6, 3.1, 2.5, 5.0, 3.6, 4.0, 5.2, 2.8, 3.8], method: 'kendall' },
    response: { r: 0.4444444444444444, p: 0.095292838023456, n: 9, method: 'kendall' },
  },
  // Shrout & Fleiss (1979): 6 subjects × 4 judges.
  icc: { request: { data: [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]] },
    response: {
      ICC1: { value: 0.16574176840547541, ci: [-0.13293232487475087, 0.7225600623281208], F: 1.7946784922394678, p: 0.16476880834463928, df1: 5, df2: 18 },
      ICC2: { value: 0.289763779527559, ci: [0.018786513374712047, 0.7610843696489527], F: 11.027247956403258, p: 0.00013456651648433807, df1: 5, df2: 15 },
      ICC3: { value: 0.7148407148407147, ci: [0.34246476503392453, 0.9458582599553595], F: 11.027247956403258, p: 0.00013456651648433807, df1: 5, df2: 15 },
      ICC1k: { value: 0.4427971336792686, ci: [-0.884442155238119, 0.9124154203407755], F: 1.7946784922394678, p: 0.16476880834463928, df1: 5, df2: 18 },
      ICC2k: { value: 0.620050547598989, ci: [0.07113681530250349, 0.9272320401677219], F: 11.027247956403258, p: 0.00013456651648433807, df1: 5, df2: 15 },
      ICC3k: { value: 0.9093155423770694, ci: [0.675674713816304, 0.9858916781690623], F: 11.027247956403258, p: 0.00013456651648433807, df1: 5, df2: 15 },
      subjects: 6,
      raters: 4,
    },
  },
  // Agresti's presidential approval table: the discordant cells.
  mcnemar: { request: { b: 150, c: 86, exact: true }, response: { statistic: 86, p: 0.00003715936139571478, method: 'exact binomial', b: 150, c: 86 } },
};
