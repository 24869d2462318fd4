import { asc, eq, inArray, or, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { notFound } from '../../domain/errors.ts';
import { answers, assemblyScores, campaigns, grades, judges, labels, puzzles, rubricItems, rubrics, rubricVersions, runs } from '../../db/schema.ts';
import type { Rubric } from '../../domain/rubric.ts';
import { findRun } from '../grading/run-ref.ts';
import { readRunCampaigns, type ExportedCampaign } from './campaigns.ts';

/**
 * Everything stored about one run, read in one snapshot for `assay export`: the run, its answers, every
 * grade (all versions, with the judge configuration each was made with), the labels (with the campaign each
 * was given in, by name, and its rubric version), the assembly scores, and the rubrics (every version a grade
 * or a label points at, and the latest) and puzzles they use.
 *
 * One snapshot: on PostgreSQL every statement of a READ COMMITTED transaction sees what committed before
 * it, so an export taken while workers grade held answers read before a grade written after them. The
 * read is one REPEATABLE READ, read-only transaction: every query sees the database as of the first. A
 * PGlite session runs one transaction at a time (its other callers, and socket clients, wait for it), so
 * the same transaction is already isolated there; it takes the same settings, which it accepts.
 *
 * No id list as query parameters: the per-answer tables are read by the run (a subquery), the sets derived
 * from them as one int[] parameter — a run of more than 65,535 answers was past PostgreSQL's (and PGlite's)
 * limit of parameters per statement, so it could not be exported.
 */

/** `column = any($1::int[])`: a set of ids as one parameter, however many. */
const anyId = (column: AnyColumn, ids: Iterable<number>): SQL => sql`${column} = any(${`{${[...ids].join(',')}}`}::int[])`;

/** A timestamp as ISO text to the microsecond (UTC): a row moved to another database keeps its time exactly. */
const isoUs = (column: AnyColumn): SQL<string> => sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

export interface RunExport {
  run: { name: string; model: string; effort: string | null; tags: string[] };
  answers: Array<typeof answers.$inferSelect & { puzzle: string | null; rubric: string | null }>;
  /** createdAtUs: created_at as ISO text to the microsecond, as PostgreSQL holds it (a Date keeps milliseconds). */
  grades: Array<typeof grades.$inferSelect & { answer: string; judge: string; judgeHash: string; rubric: string | null; rubricVersion: number | null; createdAtUs: string }>;
  judges: Array<{ slug: string; provider: string; model: string; configHash: string; config: Record<string, unknown> }>;
  /**
   * campaign: its name (null: a plain label); rubricVersion: the number of the version of the answer's rubric it was given against (null: unknown);
   * claimSentence: the hash of the sentence a claim mark was given on (claim-marks.ts; null: unknown, or no claim mark).
   */
  labels: Array<{ answer: string; item: string | null; annotator: string; kind: string; label: string; campaign: string | null; rubricVersion: number | null; claimSentence: string | null; createdAt: Date; createdAtUs: string }>;
  assemblyScores: Array<typeof assemblyScores.$inferSelect & { answer: string }>;
  rubrics: Array<{ rubric: Rubric; version: number; contentHash: string }>;
  /** The puzzles the answers are of, in the puzzle import format. */
  puzzles: Array<Record<string, unknown>>;
  /** The campaigns holding the run's answers or labels on them, with their part in this run (campaigns.ts). */
  campaigns: ExportedCampaign[];
}

export interface ReadRunExportOptions {
  /** For tests: runs between the read of the answers and the rest (a concurrent writer commits there). */
  hooks?: { afterAnswers?(): Promise<void> };
}

export async function readRunExport(database: Database, runRef: string, o: ReadRunExportOptions = {}): Promise<RunExport> {
  const found = await findRun(database, runRef);
  return database.db.transaction(async (tx) => {
    const [run] = await tx.select().from(runs).where(eq(runs.id, found.id));
    // Deleted between the lookup and the snapshot.
    if (!run) throw notFound(`run '${runRef}' not found`);
    const ofRun = () => tx.select({ id: answers.id }).from(answers).where(eq(answers.runId, found.id));
    const rows = await tx
      .select({ a: answers, puzzle: puzzles.slug, rubric: rubrics.slug })
      .from(answers)
      .leftJoin(puzzles, eq(puzzles.id, answers.puzzleId))
      .leftJoin(rubrics, eq(rubrics.id, answers.rubricId))
      .where(eq(answers.runId, found.id))
      .orderBy(asc(answers.id));
    await o.hooks?.afterAnswers?.();
    const external = new Map(rows.map((r) => [r.a.id, r.a.externalId]));
    const g = await tx
      .select({ g: grades, judge: judges.slug, judgeHash: judges.configHash, rubric: rubrics.slug, rubricVersion: rubricVersions.version, createdAtUs: isoUs(grades.createdAt) })
      .from(grades)
      .innerJoin(judges, eq(judges.id, grades.judgeId))
      .leftJoin(rubricVersions, eq(rubricVersions.id, grades.rubricVersionId))
      .leftJoin(rubrics, eq(rubrics.id, rubricVersions.rubricId))
      .where(inArray(grades.answerId, ofRun()))
      .orderBy(asc(grades.answerId), asc(grades.createdAt), asc(grades.id));
    const judgeRows = g.length ? await tx.select().from(judges).where(anyId(judges.id, new Set(g.map((x) => x.g.judgeId)))).orderBy(asc(judges.slug), asc(judges.id)) : [];
    // By campaign name, plain first: the order survives a move to a database whose campaign ids differ.
    const l = await tx
      .select({ l: labels, campaign: campaigns.name, rubricVersion: rubricVersions.version, createdAtUs: isoUs(labels.createdAt) })
      .from(labels)
      .leftJoin(campaigns, eq(campaigns.id, labels.campaignId))
      .leftJoin(rubricVersions, eq(rubricVersions.id, labels.rubricVersionId))
      .where(inArray(labels.answerId, ofRun()))
      .orderBy(asc(labels.answerId), asc(labels.itemKey), asc(labels.annotator), sql`${campaigns.name} nulls first`);
    const s = await tx.select().from(assemblyScores).where(inArray(assemblyScores.answerId, ofRun())).orderBy(asc(assemblyScores.answerId));
    // The rubric versions the grades were made against and the labels given against, and the answers' rubrics at their latest version.
    const versionIds = new Set([...g.map((x) => x.g.rubricVersionId), ...l.map((x) => x.l.rubricVersionId)].flatMap((id) => (id === null ? [] : [id])));
    const rubricIds = new Set(rows.flatMap((r) => (r.a.rubricId === null ? [] : [r.a.rubricId])));
    const versions =
      versionIds.size || rubricIds.size
        ? await tx
            .select({ v: rubricVersions, slug: rubrics.slug })
            .from(rubricVersions)
            .innerJoin(rubrics, eq(rubrics.id, rubricVersions.rubricId))
            .where(or(anyId(rubricVersions.rubricId, rubricIds), anyId(rubricVersions.id, versionIds)))
            .orderBy(asc(rubrics.slug), asc(rubricVersions.version))
        : [];
    const latest = new Map<number, number>();
    for (const v of versions) latest.set(v.v.rubricId, Math.max(latest.get(v.v.rubricId) ?? 0, v.v.version));
    const wanted = versions.filter((v) => versionIds.has(v.v.id) || latest.get(v.v.rubricId) === v.v.version);
    const items = wanted.length ? await tx.select().from(rubricItems).where(anyId(rubricItems.rubricVersionId, wanted.map((v) => v.v.id))).orderBy(asc(rubricItems.position)) : [];
    const itemsOf = new Map<number, typeof items>();
    for (const i of items) {
      const list = itemsOf.get(i.rubricVersionId);
      if (list) list.push(i);
      else itemsOf.set(i.rubricVersionId, [i]);
    }
    const puzzleIds = new Set(rows.flatMap((r) => (r.a.puzzleId === null ? [] : [r.a.puzzleId])));
    const puzzleRows = puzzleIds.size
      ? await tx.select({ p: puzzles, rubric: rubrics.slug }).from(puzzles).leftJoin(rubrics, eq(rubrics.id, puzzles.rubricId)).where(anyId(puzzles.id, puzzleIds)).orderBy(asc(puzzles.slug))
      : [];
    const campaignRows = await readRunCampaigns(tx, found.id, external);
    return {
      campaigns: campaignRows,
      run: { name: run.name, model: run.model, effort: run.effort, tags: run.tags },
      answers: rows.map((r) => ({ ...r.a, puzzle: r.puzzle, rubric: r.rubric })),
      grades: g.map((x) => ({ ...x.g, answer: external.get(x.g.answerId)!, judge: x.judge, judgeHash: x.judgeHash, rubric: x.rubric, rubricVersion: x.rubricVersion, createdAtUs: x.createdAtUs })),
      judges: judgeRows.map((j) => ({ slug: j.slug, provider: j.provider, model: j.model, configHash: j.configHash, config: j.config })),
      labels: l.map(({ l: x, campaign, rubricVersion, createdAtUs }) => ({ answer: external.get(x.answerId)!, item: x.itemKey === '' ? null : x.itemKey, annotator: x.annotator, kind: x.kind, label: x.label, campaign, rubricVersion, claimSentence: x.claimSentence, createdAt: x.createdAt, createdAtUs })),
      assemblyScores: s.map((x) => ({ ...x, answer: external.get(x.answerId)! })),
      rubrics: wanted.map((v) => ({
        version: v.v.version,
        contentHash: v.v.contentHash,
        rubric: {
          id: v.slug,
          title: v.v.title,
          reference: v.v.reference,
          ...(v.v.image ? { image: v.v.image } : {}),
          ...(v.v.truth ? { truth: v.v.truth as Rubric['truth'] } : {}),
          items: (itemsOf.get(v.v.id) ?? []).map((i) => ({ id: i.itemKey, text: i.text, weight: i.weight, ...(i.tags.length ? { tags: i.tags } : {}) })),
          ...(v.v.source ? { source: v.v.source } : {}),
        },
      })),
      puzzles: puzzleRows.map((p) => ({
        id: p.p.slug,
        rows: p.p.rows,
        cols: p.p.cols,
        layout: p.p.layout,
        ...(p.p.edges ? { edges: p.p.edges } : {}),
        ...(p.p.picturePath ? { picture: p.p.picturePath } : {}),
        ...(p.p.sizeBucket ? { sizeBucket: p.p.sizeBucket } : {}),
        ...(p.rubric ? { rubric: p.rubric } : {}),
      })),
    };
  }, { isolationLevel: 'repeatable read', accessMode: 'read only' });
}
