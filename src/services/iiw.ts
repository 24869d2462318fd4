import { z } from 'zod';
import type { Rubric } from '../domain/rubric.ts';

/**
 * ImageInWords (IIW-400) rows → assay rubrics and answers. Pure: no database, no files.
 *
 * Each human-annotated object becomes one rubric item. Its weight measures salience from two signals
 * the annotation carries: the share of the picture its bounding box covers (a = area / 999²) and its
 * place in the annotator's list (annotators list the main subject first):
 *
 *   weight = round to 0.5 of ( 1 + 2·√a + 1/(i + 1) ),  i = 0 for the first object
 *
 * √a because prominence grows slower than area (a quarter-frame object is half as prominent as a
 * full-frame one, not a quarter). Range: 1 (a speck late in the list) to 4 (the full-frame first object).
 */

export const IIW_ATTRIBUTION =
  'ImageInWords IIW-400 (Garg et al., "ImageInWords: Unlocking Hyper-Detailed Image Descriptions", arXiv:2405.02793, EMNLP 2024), CC-BY-4.0';

export const IIW_MODEL_RUN = 'IIW-P5B';

const ObjectSchema = z.object({
  label: z.string().min(1),
  description: z.string().min(1),
  normalized_coords: z.array(z.union([z.string(), z.number()]).transform(Number)).length(4),
});

const SxsSchema = z.record(z.string(), z.string());

export const IiwRowSchema = z.looseObject({
  'image/key': z.string().min(1),
  IIW: z.string().min(1),
  'IIW-P5B': z.string().min(1).optional(),
  objects: z.array(ObjectSchema).min(1),
  'iiw-human-sxs-iiw-p5b': SxsSchema.optional(),
  'iiw-human-sxs-gpt4v': SxsSchema.optional(),
});
export type IiwRow = z.output<typeof IiwRowSchema>;

const roundHalf = (x: number) => Math.round(x * 2) / 2;

export function salienceWeight(coords: readonly number[], index: number): number {
  const [y0, x0, y1, x1] = coords as [number, number, number, number];
  const clamp = (v: number) => Math.min(999, Math.max(0, v));
  const area = (Math.max(0, clamp(y1) - clamp(y0)) * Math.max(0, clamp(x1) - clamp(x0))) / (999 * 999);
  return Math.max(1, roundHalf(1 + 2 * Math.sqrt(area) + 1 / (index + 1)));
}

/** Item ids from labels: lower-case words joined by '-', numbered when a label repeats. */
export function itemIds(labels: readonly string[]): string[] {
  const used = new Map<string, number>();
  return labels.map((label) => {
    const base =
      label
        .toLowerCase()
        .normalize('NFKD')
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '') || 'object';
    const n = (used.get(base) ?? 0) + 1;
    used.set(base, n);
    return n === 1 ? base : `${base}-${n}`;
  });
}

export const iiwRubricId = (key: string): string => `iiw-${key.replace(/[^A-Za-z0-9._-]+/g, '-')}`;

export function iiwRubric(row: IiwRow): Rubric {
  const key = row['image/key'];
  const ids = itemIds(row.objects.map((o) => o.label));
  const labels = row.objects.slice(0, 3).map((o) => o.label);
  return {
    id: iiwRubricId(key),
    title: `IIW ${key}: ${labels.join(', ')}${row.objects.length > 3 ? ', …' : ''}`,
    reference: row.IIW,
    source: `${IIW_ATTRIBUTION}; image/key ${key}`,
    items: row.objects.map((o, i) => ({
      id: ids[i]!,
      text: `${o.label}: ${o.description}`,
      weight: salienceWeight(o.normalized_coords, i),
      tags: ['iiw-object'],
    })),
  };
}

/** The IIW-P5B description as an answers-JSONL row (null when the row has none). */
export function iiwAnswerRow(row: IiwRow): Record<string, unknown> | null {
  const text = row['IIW-P5B'];
  if (!text) return null;
  const sxs = row['iiw-human-sxs-iiw-p5b'];
  return {
    id: row['image/key'],
    run: IIW_MODEL_RUN,
    model: IIW_MODEL_RUN,
    task: 'describe',
    rubric: iiwRubricId(row['image/key']),
    text,
    meta: {
      source: IIW_ATTRIBUTION,
      imageKey: row['image/key'],
      ...(sxs ? { humanSxsVsIiwHuman: sxs } : {}),
    },
  };
}
