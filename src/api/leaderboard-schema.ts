import { z } from '@hono/zod-openapi';
import { judgeInfo, policyInfo, withInterval } from './report-schema.ts';

/** The leaderboard (src/services/report-leaderboard.ts Leaderboard) as an OpenAPI schema; objects are not strict. */

const LeaderboardRow = z
  .object({
    model: z.string().openapi({ description: 'The model, or "random baseline" on a baseline row' }),
    sizeBucket: z.string().openapi({ description: 'Puzzle size bucket, "no puzzle", or "all"' }),
    baseline: z.boolean().openapi({ description: 'The expected scores of a uniformly random arrangement over the bucket' }),
    descriptions: z.number().int(),
    ...withInterval('f1'),
    assemblies: z.number().int(),
    noAnswer: z.number().int().openapi({ description: 'Of the assemblies, answers stored no_answer (no output): scored 0 and counted in the means; 0 on baseline rows' }),
    errors: z.number().int().openapi({
      description: 'Answers stored with status error (the model call failed), in no mean: not in descriptions or assemblies, a grade or score stored for one not read; a describe-then-solve answer counts once; 0 on baseline rows',
    }),
    ...withInterval('neighbour'),
    ...withInterval('direct'),
    ...withInterval('proximity'),
    sameFamilyAsJudge: z.boolean().openapi({ description: "The judge is of this model's family (judges/families.yaml): its F1 may carry self-preference" }),
  })
  .openapi('LeaderboardRow');

export const LeaderboardSchema = z
  .object({
    ...judgeInfo,
    ...policyInfo,
    seed: z.number().int().openapi({ description: 'Bootstrap seed of the intervals' }),
    judgeFamily: z.string().nullable().openapi({ description: "The judge's model family (unknown when no prefix matches); null when nothing is graded" }),
    rows: z.array(LeaderboardRow),
    unattributed: z.number().int().openapi({ description: 'Answers left off because their run names no model' }),
  })
  .openapi('Leaderboard');
