import type { ImportFile, Located } from '../import-parse.ts';

/**
 * What an importer of another tool's file gives back (`assay import answers --from FORMAT`): assay answer
 * rows (the JSONL import's fields, checked by the same schema afterwards), the tool's own scores of each
 * row, and every record it did not turn into an answer with the reason. Pure: text in, rows out.
 */

/** A score the tool gave a row, as a share in [0, 1] (the form of a grade's completeness). */
export interface ForeignScore {
  scorer: string;
  value: number;
  /** The value as the tool wrote it ("C", true, 0.5 …). */
  raw: string | number | boolean;
  explanation?: string;
}

export interface ForeignRow {
  /** Where the record is in the file (line, or the file for a one-document format) for error messages. */
  loc: Located;
  row: Record<string, unknown>;
  scores: ForeignScore[];
}

export interface Skipped {
  where: string;
  reason: string;
}

export interface Converted {
  tool: ForeignFormat;
  rows: ForeignRow[];
  skipped: Skipped[];
}

export interface ConvertOptions {
  model?: string | undefined;
  rubric?: string | undefined;
  puzzle?: string | undefined;
  /** lm-eval: the filter whose lines are the answers (--filter). */
  filter?: string | undefined;
}

export const FOREIGN_FORMATS = ['inspect', 'promptfoo', 'lm-eval', 'vlmevalkit'] as const;
export type ForeignFormat = (typeof FOREIGN_FORMATS)[number];

export type Converter = (file: ImportFile, opts: ConvertOptions) => Converted;
