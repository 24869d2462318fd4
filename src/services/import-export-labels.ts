import { eq, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Queryable } from '../db/client.ts';
import { answers, campaigns, rubrics, rubricVersions } from '../db/schema.ts';
import { Fields } from '../domain/fields.ts';
import { storeLabelFile, type LabelImportResult, type Resolvable } from './import-labels.ts';
import { locatedError, parseJsonl, parseLocated, type ImportFile } from './import-parse.ts';
import { LabelRowSchema } from './labels.ts';

/**
 * labels.jsonl of a run export (`assay import export`): the labels import format plus `campaign` (the name
 * of the campaign the label was given in; null: a plain label) and `rubric_version` (the number of the
 * answer's rubric version in rubrics.jsonl; null: unknown). Both are optional: exports written before
 * these columns hold plain labels of unknown version.
 *
 * Campaigns are not part of a run export. A label naming a campaign the database lacks is refused (exit
 * 2, nothing written): storing it as a plain label would mix it with labels given elsewhere (two labels of
 * one rater for one unit would collide), and inventing the campaign would store a spec nobody wrote.
 * The version number is the export's: it is matched to the target's version through the content hash
 * (rubrics.jsonl, as for grades), since the target may number the same content otherwise.
 */

const Extra = z.strictObject({
  campaign: z.string().min(1).nullable().optional(),
  rubric_version: Fields.version.nullable().optional(),
  // The stored claim mark's sentence hash (claim-marks.ts sentenceHash); absent (older exports): today's sentence, as a label file.
  claim_sentence: z.string().regex(/^[0-9a-f]{12}$/, 'a sentence hash (12 hex digits)').nullable().optional(),
  // When it was given; absent (older exports): the time of the import.
  created_at: z.iso.datetime({ offset: true }).optional(),
});

export interface ExportLabel {
  r: Resolvable;
  campaign: string | null;
  rubricVersion: number | null;
  /** undefined: the file does not say (today's sentence is recorded). */
  claimSentence?: string | null;
  /** ISO text as exported, read by the database to the microsecond (a Date keeps milliseconds). */
  createdAt?: string;
}

export function parseExportLabels(file: ImportFile): ExportLabel[] {
  return parseJsonl(file).map((loc) => {
    const value = loc.value;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return { r: { loc, row: parseLocated(LabelRowSchema, loc) }, campaign: null, rubricVersion: null };
    const { campaign, rubric_version, claim_sentence, created_at, ...rest } = value as Record<string, unknown>;
    const extra = parseLocated(Extra, { ...loc, value: { campaign, rubric_version, claim_sentence, created_at } });
    const r = { loc, row: parseLocated(LabelRowSchema, { ...loc, value: rest }) };
    return { r, campaign: extra.campaign ?? null, rubricVersion: extra.rubric_version ?? null, ...(extra.claim_sentence === undefined ? {} : { claimSentence: extra.claim_sentence }), ...(extra.created_at ? { createdAt: extra.created_at } : {}) };
  });
}

/** Stores them in the caller's transaction; versionIds: `${rubric slug}\0${exported version}` → the target's version row id. */
export async function storeExportLabels(
  tx: Queryable,
  file: ImportFile,
  rows: ExportLabel[],
  answerIds: ReadonlyMap<string, number>,
  versionIds: ReadonlyMap<string, number>,
): Promise<LabelImportResult> {
  const names = [...new Set(rows.flatMap((x) => (x.campaign === null ? [] : [x.campaign])))];
  const found = names.length ? await tx.select({ id: campaigns.id, name: campaigns.name }).from(campaigns).where(inArray(campaigns.name, names)) : [];
  const campaignId = new Map(found.map((c) => [c.name, c.id]));
  const missing = rows.find((x) => x.campaign !== null && !campaignId.has(x.campaign));
  if (missing) {
    const lacking = names.filter((n) => !campaignId.has(n));
    const count = rows.filter((x) => x.campaign !== null && !campaignId.has(x.campaign)).length;
    throw locatedError(
      missing.r.loc,
      ['campaign'],
      `no campaign '${missing.campaign}' in this database (${count} label${count === 1 ? '' : 's'} of ${lacking.map((n) => `'${n}'`).join(', ')}; campaigns are not part of a run export, ` +
        'and a campaign label is not imported as a plain one); create the campaign under that name first — nothing written',
    );
  }
  // The answers' rubric slugs and the target's version numbers, for the rows that name a version.
  const versioned = rows.filter((x) => x.rubricVersion !== null);
  const ids = [...new Set(versioned.flatMap((x) => (answerIds.has(x.r.row.answer ?? '') ? [answerIds.get(x.r.row.answer!)!] : [])))];
  const slugs = ids.length
    ? new Map((await tx.select({ id: answers.id, slug: rubrics.slug }).from(answers).innerJoin(rubrics, eq(rubrics.id, answers.rubricId)).where(sql`${answers.id} = any(${`{${ids.join(',')}}`}::int[])`)).map((a) => [a.id, a.slug]))
    : new Map<number, string>();
  const targetIds = [...new Set(versionIds.values())];
  const numbers = targetIds.length
    ? new Map((await tx.select({ id: rubricVersions.id, version: rubricVersions.version }).from(rubricVersions).where(sql`${rubricVersions.id} = any(${`{${targetIds.join(',')}}`}::int[])`)).map((v) => [v.id, v.version]))
    : new Map<number, number>();
  const parsed = rows.map((x) => {
    if (x.rubricVersion === null) return x.r;
    const answerId = x.r.row.answer === undefined ? undefined : answerIds.get(x.r.row.answer);
    if (answerId === undefined) throw locatedError(x.r.loc, ['answer'], `'${x.r.row.answer ?? x.r.row.answer_id}' is not an answer in answers.jsonl`);
    const slug = slugs.get(answerId);
    if (slug === undefined) throw locatedError(x.r.loc, ['rubric_version'], `answer has no rubric, so it has no rubric version ${x.rubricVersion}`);
    const target = versionIds.get(`${slug}\u0000${x.rubricVersion}`);
    if (target === undefined) throw locatedError(x.r.loc, ['rubric_version'], `rubric '${slug}' version ${x.rubricVersion} is not in rubrics.jsonl`);
    return { loc: x.r.loc, row: { ...x.r.row, rubric_version: numbers.get(target)! } };
  });
  return storeLabelFile(tx, file, parsed, { campaignIds: rows.map((x) => (x.campaign === null ? null : campaignId.get(x.campaign)!)), claimSentences: rows.map((x) => x.claimSentence), createdAt: rows.map((x) => x.createdAt) });
}
