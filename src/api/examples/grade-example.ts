import type { BadInputExample } from '../schemas.ts';

/**
 * POST /api/grades in /openapi.json: docs/judges.md's request (answer text against the bundled farmyard
 * rubric, the offline lexical judge), and the grade a freshly started server answers for it (pasted from a
 * real call). test/api/openapi-examples.test.ts sends it and requires this grade but for gradeId,
 * answerId, createdAt and usage.latencyMs, which differ from one database and call to the next.
 */

export const GRADE_REQUEST_EXAMPLE = {
  answer: 'A large red barn with white trim stands on the left, its doors open. A farmer in blue overalls drives a green tractor.',
  run: 'my-run',
  model: 'my-model',
  rubric: 'farmyard-54',
  judge: 'lexical',
};

export const GRADE_BAD_INPUT: BadInputExample = {
  summary: 'Both a stored answer and answer text',
  request: { answerId: 10, answer: 'A red barn.' },
  response: { error: { code: 'bad_input', message: 'body: give exactly one of answerId or answer' } },
};

export const GRADE_RESPONSE_EXAMPLE = {
  gradeId: 136,
  answerId: 122,
  status: 'ok',
  completeness: 0.27906976744186046,
  correctness: 1,
  f1: 0.43636363636363634,
  items: [
    { id: 'barn', weight: 2, verdict: 'correct', evidence: 'A large red barn with white trim stands on the left, its doors open.', points: 2, confidence: null, confidenceSource: null },
    { id: 'cow-in-barn', weight: 1, verdict: 'partial', evidence: 'A large red barn with white trim stands on the left, its doors open.', points: 0.5, confidence: null, confidenceSource: null },
    { id: 'rooster-on-cow', weight: 0.5, verdict: 'missing', evidence: '', points: 0, confidence: null, confidenceSource: null },
    { id: 'farmer', weight: 2, verdict: 'correct', evidence: 'A farmer in blue overalls drives a green tractor.', points: 2, confidence: null, confidenceSource: null },
    { id: 'tractor-green', weight: 1, verdict: 'correct', evidence: 'A farmer in blue overalls drives a green tractor.', points: 1, confidence: null, confidenceSource: null },
    { id: 'fence', weight: 1, verdict: 'missing', evidence: '', points: 0, confidence: null, confidenceSource: null },
    { id: 'pasture-animals', weight: 2, verdict: 'missing', evidence: '', points: 0, confidence: null, confidenceSource: null },
    { id: 'calves', weight: 1, verdict: 'missing', evidence: '', points: 0, confidence: null, confidenceSource: null },
    { id: 'cattle-count', weight: 1, verdict: 'missing', evidence: '', points: 0, confidence: null, confidenceSource: null },
    { id: 'sheep', weight: 1, verdict: 'missing', evidence: '', points: 0, confidence: null, confidenceSource: null },
    { id: 'pigs-mud', weight: 2, verdict: 'missing', evidence: '', points: 0, confidence: null, confidenceSource: null },
    { id: 'pond', weight: 2, verdict: 'missing', evidence: '', points: 0, confidence: null, confidenceSource: null },
    { id: 'chickens', weight: 0.5, verdict: 'missing', evidence: '', points: 0, confidence: null, confidenceSource: null },
    { id: 'sky', weight: 1, verdict: 'partial', evidence: 'A farmer in blue overalls drives a green tractor.', points: 0.5, confidence: null, confidenceSource: null },
    { id: 'hills-windmill', weight: 1, verdict: 'missing', evidence: '', points: 0, confidence: null, confidenceSource: null },
    { id: 'layout', weight: 2, verdict: 'missing', evidence: '', points: 0, confidence: null, confidenceSource: null },
    { id: 'style', weight: 0.5, verdict: 'missing', evidence: '', points: 0, confidence: null, confidenceSource: null },
  ],
  claims: [
    { text: 'A large red barn with white trim stands on the left, its doors open.', verdict: 'true' },
    { text: 'A farmer in blue overalls drives a green tractor.', verdict: 'true' },
  ],
  meta: {
    reason: null,
    promptHash: 'ae1456f9d01e43a746549b691930f120a8dc32f410a8d3cd256a93755cc52d22',
    cacheKey: 'edcabbf07809164b806a31242fba11ca3482aa3fef5ce031bd855060080d5959',
    neutralised: 0,
    orientation: { stated: null, correct: false },
    grid: { stated: null, correct: false, transposed: false },
    pieceCount: { stated: null, error: null, reason: 'the answer states no piece count' },
    points: { earned: 6, possible: 21.5 },
    claimCounts: { true: 2, false: 0, unverifiable: 0, total: 2 },
  },
  usage: { calls: 1, cached: false, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, costUsd: 0, latencyMs: 6 },
  judge: {
    id: 'lexical',
    provider: 'lexical',
    model: 'lexical-overlap-v1',
    mode: 'rubric',
    configHash: '75b376878d2bbc3f2be26d8482c6328657a60c5073b794f486374560e4a3926f',
    baseline: true,
    note: 'lexical word-overlap baseline: an offline floor, not an LLM judge',
  },
  rubric: { id: 'farmyard-54', version: 1 },
  createdAt: '2026-12-01T18:40:12.933Z',
  panel: null,
};
