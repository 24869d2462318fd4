import { z } from 'zod';
import { ANSWER_STATUSES, TASK_KINDS } from './answers.ts';
import { Fields } from './fields.ts';
import { CAPS, int4, text } from './limits.ts';
import { CLAIM_VERDICTS, ITEM_VERDICTS } from './verdicts.ts';

/**
 * An annotation campaign (issue 14): which answers people label, on which scales, by whom, how many
 * distinct annotators per answer (the overlap k), what is hidden from them, and in which order the
 * answers are served. The zod schema is the one definition: the CLI (a YAML/JSON file), the API body and
 * the admin page all parse a spec with it, and the stored campaign keeps the parsed spec.
 */

/** The scales a campaign can ask for. `verdict` and `claims` are per item / per sentence; the others per answer. */
export const CAMPAIGN_SCALES = ['verdict', 'claims', 'binary', 'numeric'] as const;
export type CampaignScale = (typeof CAMPAIGN_SCALES)[number];

/** Why an answer stands where it does in the queue: the order is disagreement, then audit, then the rest. */
export const QUEUE_REASONS = ['disagreement', 'audit', 'rest'] as const;
export type QueueReason = (typeof QUEUE_REASONS)[number];

/** Numeric ratings run 1..k; anchors[i] describes the rating i + 1. */
export const NUMERIC_MIN_K = 2;
export const NUMERIC_MAX_K = 10;

/**
 * Where binary and numeric labels of a campaign are stored in `labels.item_key`: an answer-level label
 * of one scale each, so an annotator's pass/fail and 1..k rating of one answer do not replace each other
 * (item_key '' stays the plain answer-level label of imported label files).
 */
export const ANSWER_SCALE_KEYS = { binary: 'answer:binary', numeric: 'answer:numeric' } as const;
/** The whole-answer keys (pass/fail, a number), stored beside item labels; they are no item verdicts. */
export const WHOLE_ANSWER_KEYS: string[] = Object.values(ANSWER_SCALE_KEYS);
/** A label key that names a rubric item: not a claim mark, not a whole-answer rating. */
export const isItemKey = (key: string): boolean => !key.startsWith('claim:') && !WHOLE_ANSWER_KEYS.includes(key);

const Name = text(CAPS.name);

export const AnswerSelectorSchema = z
  .object({
    run: Fields.run.optional().describe('run name'),
    model: Fields.model.optional().describe('the model that wrote the answers'),
    task: z.enum(TASK_KINDS).optional().describe('task kind (describe, describe-then-solve, ...)'),
    filter: z
      .object({
        rubric: Fields.rubricId.optional().describe('only answers graded against this rubric'),
        status: z.enum(ANSWER_STATUSES).optional().describe('only answers with this status (e.g. ok)'),
        answers: z.array(Fields.answerExternalId).min(1).max(100_000).optional().describe("only these answers (ids within their run)"),
      })
      .strict()
      .default({})
      .describe('further conditions, all of which must hold'),
  })
  .strict();

export const BinaryScaleSchema = z
  .object({ question: text(CAPS.itemText).describe('the pass/fail question the annotator answers for the whole answer') })
  .strict();

export const NumericScaleSchema = z
  .object({
    k: int4(NUMERIC_MIN_K, NUMERIC_MAX_K).describe('ratings run 1..k'),
    anchors: z.array(text(CAPS.itemText)).describe('one description per rating, anchors[0] for 1'),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.anchors.length !== v.k) ctx.addIssue({ code: 'custom', path: ['anchors'], message: `must hold exactly k = ${v.k} anchors, got ${v.anchors.length}` });
  });

export const ScalesSchema = z
  .object({
    verdict: z.boolean().optional().describe('item verdicts against the rubric'),
    claims: z.boolean().optional().describe("true/false/unverifiable marks on the answer's sentences"),
    binary: BinaryScaleSchema.optional(),
    numeric: NumericScaleSchema.optional(),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (!v.verdict && !v.claims && !v.binary && !v.numeric) ctx.addIssue({ code: 'custom', message: 'at least one scale (verdict, claims, binary, numeric) is required' });
  });

export const CampaignSpecSchema = z
  .object({
    name: Name.describe('campaign name, unique'),
    answers: AnswerSelectorSchema,
    scales: ScalesSchema,
    annotators: z
      .array(z.union([Fields.rowId, Fields.keyName]))
      .min(1)
      .max(1000)
      .describe('API keys by id or name; each labels as the key name'),
    overlap: int4(1, 1000).describe('k: how many distinct annotators label each answer'),
    adjudicators: z
      .array(z.union([Fields.rowId, Fields.keyName]))
      .max(1000)
      .default([])
      .describe('keys (id or name) that may record final labels where annotators disagree (with the annotate scope); admins always may'),
    hide: z
      .object({ reference: z.boolean().default(false).describe('hide the rubric reference (reference-blind protocol); judge output is always hidden') })
      .strict()
      .default({ reference: false }),
    order: z
      .object({
        disagreementFirst: z.boolean().default(true).describe('answers where judges or panel samples disagree come first'),
        auditShare: z.number().min(0).max(1).default(0.1).describe('share of the remaining answers drawn at random (seeded) as an audit slice'),
        seed: int4(0).default(1).describe('seed of the audit draw'),
      })
      .strict()
      .default({ disagreementFirst: true, auditShare: 0.1, seed: 1 }),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.overlap > v.annotators.length) {
      ctx.addIssue({ code: 'custom', path: ['overlap'], message: `overlap k = ${v.overlap} needs at least ${v.overlap} annotators, got ${v.annotators.length}` });
    }
    const seen = new Set<string>();
    for (const a of v.annotators) {
      const k = String(a);
      if (seen.has(k)) ctx.addIssue({ code: 'custom', path: ['annotators'], message: `annotator ${JSON.stringify(a)} is listed twice` });
      seen.add(k);
    }
  });

export type CampaignSpecInput = z.input<typeof CampaignSpecSchema>;
export type CampaignSpec = z.output<typeof CampaignSpecSchema>;
export type CampaignScales = CampaignSpec['scales'];

/** The scales a spec asks for, in the fixed order of CAMPAIGN_SCALES. */
export function specScales(scales: CampaignScales): CampaignScale[] {
  return CAMPAIGN_SCALES.filter((s) => Boolean(scales[s]));
}

/**
 * What the annotation workspace needs for one annotator × answer of a campaign. The judge's output is
 * never part of it; the reference is left out when `hideReference` is set.
 */
export interface WorkspaceSpec {
  campaignId: number;
  scales: CampaignScale[];
  hideReference: boolean;
  binaryQuestion?: string;
  numeric?: { k: number; anchors: string[] };
  why: QueueReason;
}

export function workspaceSpec(campaignId: number, spec: CampaignSpec, why: QueueReason): WorkspaceSpec {
  const w: WorkspaceSpec = { campaignId, scales: specScales(spec.scales), hideReference: spec.hide.reference, why };
  if (spec.scales.binary) w.binaryQuestion = spec.scales.binary.question;
  if (spec.scales.numeric) w.numeric = { k: spec.scales.numeric.k, anchors: [...spec.scales.numeric.anchors] };
  return w;
}

/** One label given in a campaign: an item verdict, a claim mark, the binary answer or the 1..k rating. */
export const CampaignMarkSchema = z.discriminatedUnion('scale', [
  z.object({ scale: z.literal('verdict'), item: Fields.itemId, label: z.enum(ITEM_VERDICTS) }).strict(),
  z.object({ scale: z.literal('claims'), claim: int4(0), label: z.enum(CLAIM_VERDICTS) }).strict(),
  z.object({ scale: z.literal('binary'), label: z.union([z.boolean(), Fields.label]) }).strict(),
  z.object({ scale: z.literal('numeric'), label: int4(1, NUMERIC_MAX_K) }).strict(),
]);
export type CampaignMark = z.infer<typeof CampaignMarkSchema>;

/**
 * How the human side of a calibration report is formed: `each` annotator as a rater (the default),
 * their strict `majority` per unit (ties dropped), or `adjudicated`: the adjudicator's final label where
 * there is one, else the strict majority.
 */
export const HUMANS_MODES = ['each', 'majority', 'adjudicated'] as const;
export type HumansMode = (typeof HUMANS_MODES)[number];
export const isHumansMode = (s: string): s is HumansMode => (HUMANS_MODES as readonly string[]).includes(s);

/** The unit key of an adjudication: a rubric item id, or the binary answer-level key. */
export const AdjudicationUnitSchema = z.union([Fields.itemId, z.literal(ANSWER_SCALE_KEYS.binary)]);
