import { z } from '@hono/zod-openapi';
import { GRADE_STATUSES } from '../domain/grades.ts';
import { NO_QUORUM_STATUS, PANEL_VOTES } from '../domain/panel.ts';
import { Timestamp } from './schemas.ts';

/**
 * The one grade shape (src/services/grading/grade-detail.ts GradeDetail, field by field in docs/grades.md)
 * as an OpenAPI schema, for every route that returns a grade: POST /api/grades, GET /api/grades and
 * /api/grades/{id}. Objects are not strict: a field added to GradeDetail never makes a valid grade fail.
 */

const nullableShare = z.number().nullable();
/** PanelDetail (src/services/grading/panel-report.ts), every figure defined in docs/panels.md. */
const PanelReport = z
  .object({
    vote: z.enum(PANEL_VOTES),
    quorum: z.number().int(),
    samples: z.number().int(),
    okSamples: z.number().int(),
    members: z.array(z.object({ judge: z.string(), sample: z.number().int(), status: z.string(), reason: z.string().nullable().optional(), completeness: nullableShare, correctness: nullableShare })),
    items: z.array(
      z.object({
        id: z.string(),
        verdict: z.string().nullable(),
        votes: z.object({ correct: z.number().int(), partial: z.number().int(), incorrect: z.number().int(), missing: z.number().int() }),
        agreement: nullableShare,
      }),
    ),
    agreement: z.object({ meanItemAgreement: nullableShare, pairwiseKappa: z.array(z.object({ a: z.string(), b: z.string(), kappa: nullableShare, reason: z.string().optional() })) }),
    itemOrders: z.array(z.object({ judge: z.string(), sample: z.number().int(), order: z.array(z.string()) })).nullable(),
    retryable: z.boolean(),
  })
  .openapi('PanelReport');

/** GradeDetail (src/services/grading/grade-detail.ts), field by field in docs/grades.md. */
export const GradeSchema = z
  .object({
    gradeId: z.number().int(),
    answerId: z.number().int(),
    status: z.enum([...GRADE_STATUSES, NO_QUORUM_STATUS]),
    completeness: z.number().nullable(),
    correctness: z.number().nullable(),
    f1: z.number().nullable(),
    items: z.array(
      z.object({
        id: z.string(),
        weight: z.number(),
        verdict: z.string(),
        evidence: z.string(),
        points: z.number(),
        confidence: z.number().min(0).max(1).nullable().openapi({ description: 'Probability of the verdict (docs/grades.md#confidence); null when the judge gives none' }),
        confidenceSource: z.enum(['logprob', 'vote']).nullable().openapi({ description: 'logprob: token log-probabilities; vote: a panel\'s vote share' }),
      }),
    ),
    claims: z.array(z.object({ text: z.string(), verdict: z.string() })),
    meta: z.record(z.string(), z.unknown()),
    usage: z.object({
      calls: z.number().int(),
      cached: z.boolean(),
      input: z.number().int(),
      output: z.number().int(),
      cacheRead: z.number().int(),
      cacheWrite: z.number().int(),
      costUsd: z.number().nullable(),
      latencyMs: z.number().int(),
    }),
    judge: z.object({ id: z.string(), provider: z.string(), model: z.string(), mode: z.string(), configHash: z.string(), baseline: z.boolean(), note: z.string().optional() }),
    rubric: z.object({ id: z.string(), version: z.number().int() }).nullable(),
    createdAt: Timestamp.openapi({ description: 'When the grade was written (ISO 8601)' }),
    // A union, not .nullable(): on a named schema zod-openapi would emit the bare $ref and drop the null.
    panel: z.union([PanelReport, z.null()]).openapi({ description: "A panel judge's report (docs/panels.md); null for a plain judge" }),
  })
  .openapi('Grade');

export const GradePageSchema = z
  .object({
    items: z.array(GradeSchema),
    total: z.number().int().openapi({ description: 'Grades matching the filters, over all pages' }),
    limit: z.number().int(),
    nextCursor: z.string().nullable().openapi({ description: 'Pass as cursor for the next page; null on the last page' }),
  })
  .openapi('GradePage');
