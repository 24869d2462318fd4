import { z } from '@hono/zod-openapi';
import { pageOf, Timestamp } from './schemas.ts';

/**
 * What the rubric, puzzle and run routes return (src/services/rubrics.ts, puzzles.ts, runs.ts views) as
 * OpenAPI schemas. Objects are not strict: a field added to a view shows up before it is described here.
 */

const RubricTruth = z
  .object({
    orientation: z.enum(['landscape', 'portrait']).optional(),
    grid: z.object({ rows: z.number().int(), cols: z.number().int() }).optional(),
    pieces: z.number().int().optional(),
  })
  .openapi('RubricTruth', { description: "What is true of the rubric's picture (rubric file `truth`)" });

const RubricSummary = z
  .object({ id: z.string(), title: z.string(), latestVersion: z.number().int(), items: z.number().int().openapi({ description: 'Items of the latest version' }), createdAt: Timestamp })
  .openapi('RubricSummary');
export const RubricPage = pageOf('RubricPage', RubricSummary);

export const RubricVersionSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    version: z.number().int(),
    versions: z.number().int().openapi({ description: 'Versions stored under this id' }),
    rubricVersionId: z.number().int(),
    reference: z.string(),
    image: z.string().nullable(),
    truth: z.union([RubricTruth, z.null()]),
    source: z.string().nullable(),
    contentHash: z.string(),
    createdAt: Timestamp,
    items: z.array(z.object({ id: z.string(), text: z.string(), weight: z.number(), tags: z.array(z.string()) })),
  })
  .openapi('RubricVersion');

const Outcome = z.enum(['created', 'versioned', 'unchanged']);
export const RubricImportSchema = z
  .object({
    created: z.number().int(),
    versioned: z.number().int(),
    unchanged: z.number().int(),
    rubrics: z.array(z.object({ slug: z.string(), version: z.number().int(), outcome: Outcome })),
  })
  .openapi('RubricImport');

export const PuzzleSchema = z
  .object({
    id: z.string(),
    rows: z.number().int(),
    cols: z.number().int(),
    pieces: z.number().int(),
    layout: z.array(z.array(z.string())).openapi({ description: 'Piece ids, row by row' }),
    edges: z.record(z.string(), z.array(z.string())).nullable().openapi({ description: 'Per piece [top, right, bottom, left], each tab | blank | flat; null when unknown' }),
    picture: z.string().nullable(),
    sizeBucket: z.string().nullable(),
    rubric: z.string().nullable(),
    createdAt: Timestamp,
  })
  .openapi('Puzzle');
export const PuzzlePage = pageOf('PuzzlePage', PuzzleSchema);

export const PuzzleImportSchema = z.object({ created: z.number().int(), updated: z.number().int(), unchanged: z.number().int() }).openapi('PuzzleImport');

export const RunSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    model: z.string(),
    effort: z.string().nullable(),
    tags: z.array(z.string()).openapi({ description: 'Condition tags, e.g. tagged' }),
    answers: z.number().int(),
    createdAt: Timestamp,
  })
  .openapi('Run');
export const RunPage = pageOf('RunPage', RunSchema);
