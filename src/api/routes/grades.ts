import { createRoute, z } from '@hono/zod-openapi';
import { providerKeys } from '../../config.ts';
import { Fields } from '../../domain/fields.ts';
import { ADHOC_RUN } from '../../services/grading/resolve.ts';
import { gradeAnswer, namedJudge, openJudge } from '../../services/grading/grade-answer.ts';
import { defineRoute, type Api } from '../define-route.ts';
import { GradeSchema } from '../grade-schema.ts';
import { GRADE_BAD_INPUT, GRADE_REQUEST_EXAMPLE, GRADE_RESPONSE_EXAMPLE } from '../examples/grade-example.ts';
import { badInputResponse, bodyResponses, errorResponses, jsonResponse, notFoundResponse, withExample } from '../schemas.ts';
import { registerGradeReads } from './grade-reads.ts';

/**
 * POST /api/grades: grade one answer with one judge and store it (one grade per answer × judge
 * configuration × rubric version: a re-grade under the same ones replaces it, a changed judge or rubric
 * adds a grade beside the earlier ones — docs/grades.md; an unchanged one is served from the response
 * cache at no cost). Judges are named by id in judges/ only — never by a file path from a request.
 */


const GradeBody = z
  .object({
    answerId: Fields.rowId.optional().openapi({ description: 'A stored answer' }),
    answer: Fields.answerText.min(1, 'must not be empty').optional().openapi({ description: 'Or answer text (stored under `run`)' }),
    run: Fields.run.optional().openapi({ description: `Run for answer text (default "${ADHOC_RUN}", as \`assay grade\`)` }),
    model: Fields.model.optional().openapi({
      description: 'Model that wrote the answer text (a run is one model). Without it the answer names no model and the leaderboards leave it out',
    }),
    rubric: Fields.rubricId.optional().openapi({ description: "Stored rubric id (default: the answer's rubric)" }),
    rubricVersion: Fields.version.optional(),
    judge: Fields.judgeId.optional().openapi({ description: 'Judge id in judges/ (default: claude with ANTHROPIC_API_KEY, else gpt with OPENAI_API_KEY, else the lexical baseline: the judge the page footer names)' }),
    unverifiable: z.enum(['count', 'exclude']).optional(),
  })
  .strict()
  .refine((b) => (b.answerId === undefined) !== (b.answer === undefined), { message: 'give exactly one of answerId or answer' })
  .refine((b) => b.answerId === undefined || (b.run === undefined && b.model === undefined), { message: 'run and model name the run of answer text; a stored answer already has its run and model' })
  // A version names a version of a rubric: without `rubric` it was dropped and the latest version graded (200).
  .refine((b) => b.rubricVersion === undefined || b.rubric !== undefined, { message: 'rubricVersion: give rubric too (the id of the rubric this is a version of)' })
  .openapi('GradeRequest');

export function registerGrades(api: Api): void {
  const { database, config } = api.deps;
  const keys = providerKeys(config);

  defineRoute(api, {
    scope: 'write',
    route: createRoute({
      method: 'post',
      path: '/api/grades',
      operationId: 'gradeAnswer',
      tags: ['grades'],
      summary: 'Grade one answer with a judge and store the grade; scores are null unless status is ok',
      request: { body: { required: true, content: { 'application/json': { schema: GradeBody, example: GRADE_REQUEST_EXAMPLE } } } },
      responses: { 200: withExample(jsonResponse('The stored grade', GradeSchema), GRADE_RESPONSE_EXAMPLE), ...errorResponses, ...badInputResponse(GRADE_BAD_INPUT), ...notFoundResponse, ...bodyResponses },
    }),
    handler: async (c) => {
      const b = c.req.valid('json');
      const g = await gradeAnswer(database, {
        judge: await openJudge(namedJudge(b.judge, keys, { from: 'network' }), keys),
        keys,
        ...(b.rubric ? { rubric: { slug: b.rubric, ...(b.rubricVersion ? { version: b.rubricVersion } : {}) } } : {}),
        answer: b.answerId !== undefined ? { id: b.answerId } : { text: b.answer!, ...(b.run ? { run: b.run } : {}), ...(b.model ? { model: b.model } : {}) },
        ...(b.unverifiable ? { unverifiable: b.unverifiable } : {}),
      });
      return c.json(g, 200);
    },
  });

  registerGradeReads(api);
}
