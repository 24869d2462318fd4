import { z } from 'zod';
import { CAPS, text } from './limits.ts';

/** Verdict vocabulary of design §2.1, shared by scoring, judges, labels and calibration. */
export const ITEM_VERDICTS = ['correct', 'partial', 'incorrect', 'missing'] as const;
export const CLAIM_VERDICTS = ['true', 'false', 'unverifiable'] as const;

export type ItemVerdict = (typeof ITEM_VERDICTS)[number];
export type ClaimVerdict = (typeof CLAIM_VERDICTS)[number];

/** Points per item verdict: the weights completeness is built from. */
export const VERDICT_POINTS: Readonly<Record<ItemVerdict, number>> = {
  correct: 1,
  partial: 0.5,
  incorrect: 0,
  missing: 0,
};

export const ItemVerdictSchema = z.enum(ITEM_VERDICTS);
export const ClaimVerdictSchema = z.enum(CLAIM_VERDICTS);

/** A verdicts file (`assay score description --verdicts`) and the judge's rubric-mode output. */
export const VerdictsSchema = z
  .object({
    items: z.array(
      z.object({ id: text(CAPS.name), verdict: ItemVerdictSchema, evidence: text(CAPS.longText, { min: 0 }).optional() }).strict(),
    ),
    claims: z
      .array(z.object({ text: text(CAPS.longText, { min: 0 }).optional(), verdict: ClaimVerdictSchema }).strict())
      .default([]),
  })
  .strict();

export type Verdicts = z.infer<typeof VerdictsSchema>;
