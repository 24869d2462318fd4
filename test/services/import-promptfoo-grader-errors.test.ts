import { readFileSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { answers, grades, judges } from '../../src/db/schema.ts';
import { importForeignAnswers } from '../../src/services/import-foreign.ts';
import { CONVERTERS } from '../../src/services/import-formats/index.ts';
import { importRubrics } from '../../src/services/rubrics.ts';
import { describeDb } from '../helpers/db.ts';

/**
 * A promptfoo grader that fails (the llm-rubric provider errors, its reply is no JSON) grades the assertion
 * with matchers/shared.ts graderFail: `{pass: false, score: 0, reason, metadata: {graderError: true}}`, and
 * the test's gradingResult averages it with the other assertions (runAssertions). An assertion that throws
 * ends the result with failureReason ERROR (2), score 0, the error in `error`. Imported, each stored a 0 (or
 * the average with a 0 in it) as the imported judge's grade, exit 0: a judge failure counted as a wrong answer.
 */

const ok = { pass: true, score: 1, reason: 'Mentions the barn.', assertion: { type: 'llm-rubric', value: 'mentions the barn' } };
const graderError = { pass: false, score: 0, reason: 'Could not extract JSON from llm-rubric response', metadata: { graderError: true }, assertion: { type: 'llm-rubric', value: 'mentions the cow' } };

const result = (testIdx: number, extra: Record<string, unknown>) => ({
  testIdx,
  promptIdx: 0,
  promptId: 'p-describe',
  provider: { id: 'openai:gpt-4o', label: 'gpt-4o' },
  prompt: { raw: 'Describe the picture', label: 'describe' },
  response: { output: `Answer ${testIdx}: a red barn.`, tokenUsage: { total: 1240, prompt: 1200, completion: 40 } },
  latencyMs: 900,
  namedScores: {},
  ...extra,
});

const list = [
  result(0, { success: true, score: 1, failureReason: 0, gradingResult: { pass: true, score: 1, reason: 'All assertions passed', componentResults: [ok] } }),
  // A real assertion failure: its score stands.
  result(1, { success: false, score: 0.25, failureReason: 1, error: 'Misses the cow.', gradingResult: { pass: false, score: 0.25, reason: 'Misses the cow.', componentResults: [{ ...ok, pass: false, score: 0.25, reason: 'Misses the cow.' }] } }),
  // The grader failed: promptfoo reports it as a failed assertion (ASSERT) with score 0.
  result(2, { success: false, score: 0, failureReason: 1, error: graderError.reason, gradingResult: { pass: false, score: 0, reason: graderError.reason, componentResults: [graderError] } }),
  // One assertion passed, the other's grader failed: the average 0.5 holds a judge failure as a 0.
  result(3, { success: false, score: 0.5, failureReason: 1, error: graderError.reason, gradingResult: { pass: false, score: 0.5, reason: graderError.reason, componentResults: [ok, graderError] } }),
  // The assertion threw after the response: failureReason ERROR, score 0.
  result(4, { success: false, score: 0, failureReason: 2, error: 'Error: grading provider timed out', gradingResult: { pass: false, score: 0, reason: 'Error: grading provider timed out' } }),
];
const file = { path: 'results.json', content: JSON.stringify({ evalId: 'eval-g', results: { version: 3, results: list }, config: {} }) };

describe('promptfoo grader failures', () => {
  it('are no score: the answer stands, its score is reported as a judge failure', () => {
    const c = CONVERTERS.promptfoo(file, {});
    expect(c.rows.map((r) => [r.row.id, r.row.status ?? 'ok', r.row.text, r.scores.map((s) => s.value)])).toEqual([
      ['test-0', 'ok', 'Answer 0: a red barn.', [1]],
      ['test-1', 'ok', 'Answer 1: a red barn.', [0.25]],
      ['test-2', 'ok', 'Answer 2: a red barn.', []],
      ['test-3', 'ok', 'Answer 3: a red barn.', []],
      ['test-4', 'ok', 'Answer 4: a red barn.', []],
    ]);
    expect(c.skipped).toEqual([
      { where: 'results.json: results.results[2]', reason: "gradingResult: the grader failed (Could not extract JSON from llm-rubric response): a judge failure, not a score; promptfoo's score 0 is not imported" },
      { where: 'results.json: results.results[3]', reason: "gradingResult: the grader failed (Could not extract JSON from llm-rubric response): a judge failure, not a score; promptfoo's score 0.5 is not imported" },
      { where: 'results.json: results.results[4]', reason: "gradingResult: the grader failed (Error: grading provider timed out): a judge failure, not a score; promptfoo's score 0 is not imported" },
    ]);
  });
});

describeDb('promptfoo grader failures stored', (ctx) => {
  beforeAll(async () => {
    await importRubrics(ctx.database, [{ path: 'farmyard.yaml', content: readFileSync('test/fixtures/farmyard.rubric.yaml', 'utf8') }]);
  });
  it('store the answers and only the real scores', async () => {
    const r = await importForeignAnswers(ctx.database, file, 'promptfoo', { task: 'describe', rubric: 'farmyard-54', run: 'pf-grader-errors' });
    expect(r).toMatchObject({ imported: 5, grades: { stored: 2 } });
    const stored = await ctx.database.db
      .select({ id: answers.externalId, completeness: grades.completeness, status: grades.status })
      .from(grades)
      .innerJoin(answers, eq(answers.id, grades.answerId))
      .innerJoin(judges, eq(judges.id, grades.judgeId))
      .where(eq(judges.slug, 'promptfoo:promptfoo'));
    expect(stored.map((g) => [g.id, g.status, g.completeness]).sort()).toEqual([
      ['test-0', 'ok', 1],
      ['test-1', 'ok', 0.25],
    ]);
  });
});
