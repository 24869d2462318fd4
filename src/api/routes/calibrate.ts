import { createRoute, z } from '@hono/zod-openapi';
import { Fields } from '../../domain/fields.ts';
import { LABEL_SCALES, LabelRowSchema } from '../../domain/labels.ts';
import { calibrateLabelSet } from '../../services/calibrate-labels.ts';
import { HumansField, LabelSetCalibrationSchema } from '../calibration-schema.ts';
import { defineRoute, type Api } from '../define-route.ts';
import { CALIBRATE_BAD_INPUT, CALIBRATE_EXAMPLE } from '../examples/request-examples.ts';
import { badInputResponse, bodyResponses, errorResponses } from '../schemas.ts';

/** POST /api/calibrate: calibrate judges against people over labels posted in the body (docs/http-api.md). */

const CalibrateBody = z
  .object({
    scale: z.enum(LABEL_SCALES),
    labels: z.array(LabelRowSchema).min(1).openapi({ description: 'Label rows as in a label file (calibration/README.md); at least one human rater' }),
    judge: Fields.annotator.optional().openapi({ description: 'Report only this judge rater' }),
    seed: z.number().int().min(0).max(2 ** 32 - 1).optional().openapi({ description: 'Seed of the bootstrap intervals (default as `assay calibrate`)' }),
    weights: z.record(Fields.itemId, z.number().positive()).optional().openapi({ description: 'Item weights (rubric item id → weight) for the answer roll-up, as `--rubric`' }),
    humans: HumansField.optional(),
  })
  .strict()
  .openapi('CalibrateRequest');

export function registerCalibrate(api: Api): void {
  defineRoute(api, {
    scope: 'read',
    route: createRoute({
      method: 'post',
      path: '/api/calibrate',
      operationId: 'calibrateLabels',
      tags: ['calibration'],
      summary: 'Calibrate judges against human labels given in the body: agreement, kappa, alpha, confusion, per model and item',
      request: { body: { required: true, content: { 'application/json': { schema: CalibrateBody, example: CALIBRATE_EXAMPLE } } } },
      responses: {
        200: { description: 'The `assay calibrate --labels … --json` report', content: { 'application/json': { schema: LabelSetCalibrationSchema } } },
        ...errorResponses,
        ...badInputResponse(CALIBRATE_BAD_INPUT),
        ...bodyResponses,
      },
    }),
    handler: (c) => c.json(calibrateLabelSet(c.req.valid('json')) as never, 200),
  });
}
