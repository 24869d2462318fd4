import { z } from '@hono/zod-openapi';
import { LABEL_KINDS } from '../domain/label-kinds.ts';
import { pageOf, Timestamp } from './schemas.ts';

/**
 * What the label and annotation routes return (src/services/labels.ts LabelView, import-labels.ts
 * LabelImportResult, annotation-queue.ts QueueEntry) as OpenAPI schemas. Objects are not strict.
 */

const Label = z
  .object({
    answerId: z.number().int(),
    answer: z.string().openapi({ description: "The answer's id within its run" }),
    run: z.string(),
    model: z.string(),
    item: z.string().nullable().openapi({ description: 'Rubric item id; null for a whole-answer label' }),
    annotator: z.string(),
    kind: z.enum(LABEL_KINDS),
    label: z.string(),
    campaignId: z.number().int().nullable().openapi({ description: 'The campaign the label was given in (its own label, apart from the same person\'s elsewhere); null for a plain or imported label' }),
    rubricVersion: z.number().int().nullable().openapi({ description: "The version of the answer's rubric the label was given against; null when unknown" }),
    createdAt: Timestamp,
  })
  .openapi('Label');
export const LabelPage = pageOf('LabelPage', Label);

export const LabelImportSchema = z
  .object({ inserted: z.number().int(), replaced: z.number().int(), unchanged: z.number().int(), runs: z.array(z.string()).openapi({ description: 'Runs whose answers the file labels, sorted' }) })
  .openapi('LabelImport');

const QueueEntry = z
  .object({ answerId: z.number().int(), answer: z.string(), run: z.string(), model: z.string(), rubric: z.string().nullable(), text: z.string().nullable() })
  .openapi('AnnotationQueueEntry');
export const AnnotationQueuePage = pageOf('AnnotationQueuePage', QueueEntry);

export const SavedLabelSchema = z
  .object({
    created: z.boolean().openapi({ description: 'true: a new label; false: this annotator had labelled the unit before' }),
    unchanged: z.boolean().openapi({ description: 'true: the earlier label was the same, so nothing was rewritten (it keeps its time)' }),
  })
  .openapi('SavedLabel');
