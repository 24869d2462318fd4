import type { BadInputExample } from '../schemas.ts';

/**
 * Request-body examples of the write and calibration routes in /openapi.json (Swagger UI fills "Try it
 * out" with them). They speak of the bundled examples `npm start` loads (rubric farmyard-54, puzzle
 * grid-4x4, answer 10 = a-low-describe) and of the walk-through in docs/annotation.md, and they run in
 * that order on a fresh server: test/api/openapi-examples.test.ts sends every one of them.
 */

const jsonLines = (rows: readonly object[]): string => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

export const CREATE_KEY_EXAMPLE = { scopes: ['annotate'], name: 'ann' };

export const RUBRIC_EXAMPLE = {
  id: 'kitchen-12',
  title: 'Kitchen',
  reference: 'A sunny kitchen: a white stove on the left with a red kettle on it, a round wooden table with two chairs in the middle, and a window over the sink on the right.',
  truth: { orientation: 'landscape', grid: { rows: 3, cols: 4 }, pieces: 12 },
  items: [
    { id: 'stove', weight: 2, text: 'A white stove stands on the left.' },
    { id: 'kettle', weight: 1, text: 'A red kettle sits on the stove.' },
    { id: 'table', weight: 2, text: 'A round wooden table with two chairs is in the middle.' },
    { id: 'window', weight: 1, text: 'A window is above the sink on the right.' },
  ],
};
/** What importing RUBRIC_EXAMPLE into a database without it answers (pasted from a real call). */
export const RUBRIC_IMPORT_RESPONSE = { created: 1, versioned: 0, unchanged: 0, rubrics: [{ slug: 'kitchen-12', version: 1, outcome: 'created' }] };

export const PUZZLES_EXAMPLE = jsonLines([{ id: 'grid-2x3', rows: 2, cols: 3, layout: [['4', '0', '5'], ['2', '1', '3']] }]);
export const PUZZLE_IMPORT_RESPONSE = { created: 1, updated: 0, unchanged: 0 };

export const ANSWERS_EXAMPLE = jsonLines([
  { id: 'd1', run: 'my-run', model: 'my-model', task: 'describe', rubric: 'farmyard-54', text: 'A red barn with white trim on the left, a farmer on a green tractor and three pigs in the mud.' },
  { id: 'd2', run: 'my-run', model: 'my-model', task: 'describe', rubric: 'farmyard-54', text: 'A farm with a barn, some cows behind a fence and a duck pond.', usage: { input_tokens: 1200, output_tokens: 80 } },
]);

export const LABELS_EXAMPLE = jsonLines([
  { answer: 'd1', run: 'my-run', item: 'barn', rater: 'ann', kind: 'human', label: 'correct' },
  { answer: 'd1', run: 'my-run', item: 'pigs-mud', rater: 'ann', kind: 'human', label: 'partial' },
  { answer: 'd2', run: 'my-run', rater: 'ann', kind: 'human', label: 'fail' },
]);

export const ASSEMBLY_EXAMPLE = { run: 'my-run', model: 'my-model', puzzle: 'grid-4x4', id: 'q1', answer: '14 11 0 12\n2 10 4 8\n15 9 7 5\n3 13 6 1' };

export const ANNOTATION_EXAMPLE = { answerId: 10, item: 'barn', label: 'correct' };

// No rpm/tpm: lexical calls no provider, so limits on it are refused (they apply to provider judges).
export const RUN_GRADE_EXAMPLE = { judge: 'lexical' };
export const RUN_GRADE_CANCEL_EXAMPLE = { judge: 'lexical' };
export const JOBS_RETRY_EXAMPLE = { run: 'my-run' };

/** docs/annotation.md's study: two bundled answers, two annotators, k = 2, pass/fail and a 1–5 rating. */
export const CAMPAIGN_EXAMPLE = {
  name: 'farm-study',
  answers: { task: 'describe', filter: { rubric: 'farmyard-54', answers: ['a-low-describe', 'b-plain-describe'] } },
  scales: { binary: { question: 'Would you accept this as a description of the picture?' }, numeric: { k: 5, anchors: ['useless', 'poor', 'fair', 'good', 'excellent'] } },
  annotators: ['ann', 'bea'],
  adjudicators: ['judy'],
  overlap: 2,
};
export const CAMPAIGN_LABELS_EXAMPLE = { answerId: 10, marks: [{ scale: 'binary', label: true }, { scale: 'numeric', label: 4 }] };
export const ADJUDICATION_EXAMPLE = { answerId: 10, unit: 'answer:binary', label: false, note: 'the fence is missing' };

/** Two people and the lexical judge on two rubric items of two answers (rows as in a label file). */
export const CALIBRATE_EXAMPLE = {
  scale: 'verdict',
  labels: [
    ['a1', 'vlm-a', 'barn', 'correct', 'correct', 'correct'],
    ['a1', 'vlm-a', 'farmer', 'partial', 'partial', 'correct'],
    ['a2', 'vlm-b', 'barn', 'missing', 'missing', 'missing'],
    ['a2', 'vlm-b', 'farmer', 'incorrect', 'incorrect', 'partial'],
  ].flatMap(([answer, model, item, h1, h2, judge]) => [
    { answer, model, item, rater: 'h1', kind: 'human', label: h1 },
    { answer, model, item, rater: 'h2', kind: 'human', label: h2 },
    { answer, model, item, rater: 'lexical', kind: 'judge', label: judge },
  ]),
  seed: 1,
};
export const CALIBRATE_BAD_INPUT: BadInputExample = {
  summary: 'A rater labels one unit twice',
  request: { scale: 'verdict', labels: [{ answer: 'a1', item: 'barn', rater: 'h1', kind: 'human', label: 'correct' }, { answer: 'a1', item: 'barn', rater: 'h1', kind: 'human', label: 'partial' }] },
  response: { error: { code: 'bad_input', message: "labels: row 2: rater 'h1' labels answer 'a1' item 'barn' twice (first at row 1)" } },
};
