import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '../db/client.ts';
import { grades, judges, rubrics, rubricVersions } from '../db/schema.ts';
import { badInput } from '../domain/errors.ts';
import { GRADE_STATUSES } from '../domain/grades.ts';
import { NO_QUORUM_STATUS } from '../domain/panel.ts';
import { RubricSchema } from '../domain/rubric.ts';
import { parseAnswerRows, storeAnswers } from './import-answers.ts';
import { parseExportAssemblyScores, storeExportAssemblyScores } from './import-export-assemblies.ts';
import { parseExportCampaigns, storeExportCampaigns, type CampaignImportResult } from './import-export-campaigns.ts';
import { checkCardCounts } from './import-export-card.ts';
import { parseExportLabels, storeExportLabels } from './import-export-labels.ts';
import { locatedError, parseJsonDocument, parseJsonl, parseLocated, type ImportFile } from './import-parse.ts';
import { readImportFiles } from './imports.ts';
import { parsePuzzleFiles, storePuzzles } from './puzzles.ts';
import { rubricContentHash, storeRubric } from './rubrics.ts';

/**
 * `assay import export DIR`: a run written by `assay export` back into a database — its rubric versions,
 * puzzles, answers, every grade with the judge configuration it was made with, and the labels (each in its
 * campaign, carried in campaigns.jsonl or held by the database, and with its rubric version: import-export-labels.ts,
 * import-export-campaigns.ts) — in one
 * transaction. Every file is parsed and checked first; a bad line exits 2 naming it and nothing is
 * written. Importing into the database it came from changes nothing.
 */

const RubricLine = z.strictObject({ version: z.number().int().positive(), contentHash: z.string(), rubric: RubricSchema });
const JudgeRow = z.strictObject({ slug: z.string().min(1), provider: z.string().min(1), model: z.string().min(1), configHash: z.string().min(1), config: z.record(z.string(), z.unknown()) });
const share = z.number().min(0).max(1).nullable();
const GradeLine = z.strictObject({
  answer: z.string().min(1),
  judge: z.string().min(1),
  judge_config_hash: z.string().min(1),
  rubric: z.string().nullable(),
  rubric_version: z.number().int().positive().nullable(),
  // Optional: exports written before these columns were exported lack them (the grade then has none).
  prompt_hash: z.string().nullable().optional(),
  // The statuses graders write: the column has no check, so 'okay' was stored and every report misread it.
  status: z.enum([...GRADE_STATUSES, NO_QUORUM_STATUS]),
  reason: z.string().nullable(),
  completeness: share,
  correctness: share,
  f1: share,
  items: z.array(z.object({ id: z.string(), weight: z.number(), verdict: z.string(), evidence: z.string().nullable().optional(), points: z.number() }).passthrough()).nullable(),
  claims: z.array(z.object({ verdict: z.string() }).passthrough()).nullable(),
  meta: z.record(z.string(), z.unknown()).nullable(),
  raw_output: z.string().nullable(),
  input_tokens: z.number().int().nullable(),
  output_tokens: z.number().int().nullable(),
  cache_read_tokens: z.number().int().nullable().optional(),
  cache_write_tokens: z.number().int().nullable().optional(),
  cost_usd: z.number().nullable(),
  latency_ms: z.number().int().nullable(),
  created_at: z.iso.datetime({ offset: true }),
}).superRefine((g, ctx) => {
  // A judge failure is a status, never a score: a failed grade carrying one would be counted as graded.
  if (g.status === 'ok') return;
  for (const k of ['completeness', 'correctness', 'f1'] as const) {
    if (g[k] !== null) ctx.addIssue({ code: 'custom', path: [k], message: `a '${g.status}' grade has no scores (a judge failure is a status, never a score)` });
  }
});

export interface RunExportImportResult {
  run: string;
  rubrics: { created: number; unchanged: number };
  puzzles: { created: number; unchanged: number };
  answers: { imported: number; unchanged: number };
  grades: { stored: number; unchanged: number };
  labels: { inserted: number; unchanged: number };
  /** As exported (import-export-assemblies.ts); an export without assembly_scores.jsonl: scored by this import. */
  assemblyScores: { stored: number; unchanged: number };
  /** created: campaigns added; unchanged: held already, with the run's answers; queued: the run's answers added to a held one's queue. */
  campaigns: CampaignImportResult;
}

/**
 * Every file `assay export` writes is read: a missing one is a partial export (or one written with
 * --format parquet) and refused, never read as "no grades". A file of no rows is empty, which the import
 * readers refuse, so it is taken here as no rows; any other read problem (size, UTF-8) is the reader's error.
 */
const EXPORT_FILES = ['answers.jsonl', 'grades.jsonl', 'labels.jsonl', 'judges.json', 'rubrics.jsonl', 'puzzles.jsonl'] as const;

function exportFile(dir: string, name: (typeof EXPORT_FILES)[number]): ImportFile | null {
  const path = join(dir, name);
  if (!existsSync(path)) throw badInput(`${dir}: no ${name} (an assay export writes ${EXPORT_FILES.join(', ')}; with --format parquet it writes no JSONL, which this import reads)`);
  if (statSync(path).size === 0) return null;
  return readImportFiles(path, /./)[0]!;
}

export async function importRunExport(database: Database, dir: string): Promise<RunExportImportResult> {
  const answersFile = exportFile(dir, 'answers.jsonl');
  if (!answersFile) throw badInput(`${dir}: answers.jsonl is empty (an export holds its run's answers)`);
  const rubricsFile = exportFile(dir, 'rubrics.jsonl');
  const rubricLines = (rubricsFile ? parseJsonl(rubricsFile) : []).map((loc) => ({ loc, line: parseLocated(RubricLine, loc) }));
  const puzzleFile = exportFile(dir, 'puzzles.jsonl');
  const puzzleList = puzzleFile ? parsePuzzleFiles([puzzleFile]) : [];
  const prepared = parseAnswerRows(answersFile);
  const runs = [...new Set(prepared.map((p) => p.run))];
  if (runs.length !== 1) throw badInput(`${answersFile.path}: holds ${runs.length} runs (${runs.join(', ')}); an export is of one run`);
  const judgesFile = exportFile(dir, 'judges.json');
  const judgeRows = judgesFile ? z.array(JudgeRow).safeParse(parseJsonDocument(judgesFile)) : { success: true as const, data: [] };
  if (!judgeRows.success) throw badInput(`${judgesFile!.path}: ${judgeRows.error.issues[0]!.path.join('.')}: ${judgeRows.error.issues[0]!.message}`);
  const gradesFile = exportFile(dir, 'grades.jsonl');
  const gradeLines = gradesFile ? parseJsonl(gradesFile).map((loc) => ({ loc, g: parseLocated(GradeLine, loc) })) : [];
  const byHash = new Map(judgeRows.data.map((j) => [j.configHash, j]));
  for (const { loc, g } of gradeLines) if (!byHash.has(g.judge_config_hash)) throw locatedError(loc, ['judge_config_hash'], `no judge with this hash in judges.json`);
  const labelsFile = exportFile(dir, 'labels.jsonl');
  const labelRows = labelsFile ? parseExportLabels(labelsFile) : [];
  // Optional: exports written before it have none (their campaign labels need the campaign held here).
  const campaignsPath = join(dir, 'campaigns.jsonl');
  const campaignsFile = existsSync(campaignsPath) && statSync(campaignsPath).size > 0 ? readImportFiles(campaignsPath, /./)[0]! : null;
  const campaignLines = campaignsFile ? parseExportCampaigns(campaignsFile) : [];
  // Optional too: an export written before it is scored here, as it was; one with it keeps its numbers.
  const scoresPath = join(dir, 'assembly_scores.jsonl');
  const scoresFile = existsSync(scoresPath) ? (statSync(scoresPath).size > 0 ? readImportFiles(scoresPath, /./)[0]! : null) : undefined;
  const scoreLines = scoresFile ? parseExportAssemblyScores(scoresFile) : [];
  // A file cut at a line end, or emptied, parses: the card's counts tell it from the run (import-export-card.ts).
  checkCardCounts(dir, [['answers', prepared.length], ['grades', gradeLines.length], ['labels', labelRows.length], ...(scoresFile === undefined ? [] : [['assembly_scores', scoreLines.length] as const])]);

  return database.db.transaction(async (tx) => {
    const versionIds = new Map<string, number>();
    const rub = { created: 0, unchanged: 0 };
    for (const { line } of rubricLines) {
      const key = `${line.rubric.id}\u0000${line.version}`;
      // A version stored with this content is this version. storeRubric compares with the latest only, so an
      // export graded against v1 and v2, imported where it came from, added v3 = v1 and v4 = v2 (v1's content
      // made current again) and stored every grade a second time under them.
      const [same] = await tx
        .select({ id: rubricVersions.id })
        .from(rubricVersions)
        .innerJoin(rubrics, eq(rubrics.id, rubricVersions.rubricId))
        .where(and(eq(rubrics.slug, line.rubric.id), eq(rubricVersions.contentHash, rubricContentHash(line.rubric))))
        .orderBy(desc(rubricVersions.version))
        .limit(1);
      if (same) {
        rub.unchanged++;
        versionIds.set(key, same.id);
        continue;
      }
      const r = await storeRubric(tx, line.rubric);
      rub[r.outcome === 'unchanged' ? 'unchanged' : 'created']++;
      versionIds.set(key, r.versionId);
    }
    const puz = puzzleList.length ? await storePuzzles(tx, puzzleList) : { created: 0, updated: 0, unchanged: 0 };
    const stored = await storeAnswers(tx, prepared, scoresFile === undefined ? {} : { score: false });
    const answerIds = new Map(prepared.map((p, i) => [p.externalId, stored.answerIds[i]!]));
    const asm =
      scoresFile === undefined
        ? { stored: stored.scored, unchanged: 0 }
        : await storeExportAssemblyScores(tx, scoreLines, new Map(prepared.map((p, i) => [p.externalId, { id: stored.answerIds[i]!, task: p.task }])));
    const judgeIds = new Map<string, number>();
    for (const j of judgeRows.data) {
      await tx.insert(judges).values(j).onConflictDoNothing();
      const [row] = await tx.select({ id: judges.id }).from(judges).where(eq(judges.configHash, j.configHash));
      judgeIds.set(j.configHash, row!.id);
    }
    let gradesStored = 0;
    for (const { loc, g } of gradeLines) {
      const answerId = answerIds.get(g.answer);
      if (answerId === undefined) throw locatedError(loc, ['answer'], `'${g.answer}' is not an answer in answers.jsonl`);
      const rubricVersionId = g.rubric === null || g.rubric_version === null ? null : versionIds.get(`${g.rubric}\u0000${g.rubric_version}`);
      if (rubricVersionId === undefined) throw locatedError(loc, ['rubric_version'], `rubric '${g.rubric}' version ${g.rubric_version} is not in rubrics.jsonl`);
      const written = await tx
        .insert(grades)
        .values({
          answerId, judgeId: judgeIds.get(g.judge_config_hash)!, rubricVersionId, promptHash: g.prompt_hash ?? null, status: g.status, reason: g.reason,
          completeness: g.completeness, correctness: g.correctness, f1: g.f1, items: g.items as never, claims: g.claims as never, meta: g.meta,
          rawOutput: g.raw_output, inputTokens: g.input_tokens, outputTokens: g.output_tokens,
          cacheReadTokens: g.cache_read_tokens ?? null, cacheWriteTokens: g.cache_write_tokens ?? null, costUsd: g.cost_usd, latencyMs: g.latency_ms, createdAt: sql`${g.created_at}::timestamptz`, // to the microsecond, as exported (a Date keeps milliseconds)
        })
        .onConflictDoNothing()
        .returning({ id: grades.id });
      gradesStored += written.length;
      if (written.length === 0) {
        // The database holds a grade under this key already: unchanged only if it is this grade — its
        // scores and also its verdicts (items, claims), reason and raw output: with the scores alone, a file
        // whose item verdicts differ was reported unchanged while the stored verdicts stayed. jsonb compares
        // by value (key order, 1 vs 1.0), as the stored items are read back in their own key order.
        const judgeId = judgeIds.get(g.judge_config_hash)!;
        const same = (column: typeof grades.items | typeof grades.claims | typeof grades.meta, v: unknown) => (v === null ? sql`${column} is null` : sql`${column} = ${JSON.stringify(v)}::jsonb`);
        const [before] = await tx
          .select({
            status: grades.status, completeness: grades.completeness, correctness: grades.correctness, f1: grades.f1, reason: grades.reason, rawOutput: grades.rawOutput,
            items: sql<boolean>`${same(grades.items, g.items)}`, claims: sql<boolean>`${same(grades.claims, g.claims)}`, meta: sql<boolean>`${same(grades.meta, g.meta)}`,
            promptHash: grades.promptHash, inputTokens: grades.inputTokens, outputTokens: grades.outputTokens, cacheReadTokens: grades.cacheReadTokens,
            cacheWriteTokens: grades.cacheWriteTokens, costUsd: grades.costUsd, latencyMs: grades.latencyMs,
          })
          .from(grades)
          .where(and(eq(grades.answerId, answerId), eq(grades.judgeId, judgeId), rubricVersionId === null ? isNull(grades.rubricVersionId) : eq(grades.rubricVersionId, rubricVersionId)));
        if (!before) continue;
        const differs = [
          ...(before.status !== g.status || before.completeness !== g.completeness || before.correctness !== g.correctness || before.f1 !== g.f1 ? ['status or scores'] : []),
          ...(before.items ? [] : ['items']),
          ...(before.claims ? [] : ['claims']),
          ...(before.reason !== g.reason ? ['reason'] : []),
          ...(before.rawOutput !== g.raw_output ? ['raw_output'] : []),
          ...(before.meta ? [] : ['meta']),
          // Usage too: a file with other token counts or cost was reported unchanged while the stored ones stayed.
          // A field an older export lacks (undefined) says nothing.
          ...([
            ['input_tokens', before.inputTokens, g.input_tokens], ['output_tokens', before.outputTokens, g.output_tokens],
            ['cache_read_tokens', before.cacheReadTokens, g.cache_read_tokens], ['cache_write_tokens', before.cacheWriteTokens, g.cache_write_tokens],
            ['cost_usd', before.costUsd, g.cost_usd], ['latency_ms', before.latencyMs, g.latency_ms], ['prompt_hash', before.promptHash, g.prompt_hash],
          ] as const).flatMap(([name, stored, file]) => (file !== undefined && stored !== file ? [name] : [])),
        ];
        if (differs.length) {
          throw locatedError(loc, [], `the database holds another grade of answer '${g.answer}' by ${g.judge} under this rubric version (status ${before.status}, f1 ${before.f1}; ${differs.join(', ')} differ); grades are not replaced by an import`);
        }
      }
    }
    const camp = campaignLines.length ? await storeExportCampaigns(tx, campaignLines, answerIds) : { created: 0, unchanged: 0, queued: 0 };
    const lab = labelRows.length ? await storeExportLabels(tx, labelsFile!, labelRows, answerIds, versionIds) : { inserted: 0, unchanged: 0 };
    return {
      run: runs[0]!,
      rubrics: rub,
      puzzles: { created: puz.created, unchanged: puz.unchanged },
      answers: { imported: stored.imported, unchanged: stored.unchanged },
      grades: { stored: gradesStored, unchanged: gradeLines.length - gradesStored },
      labels: { inserted: lab.inserted, unchanged: lab.unchanged },
      assemblyScores: asm,
      campaigns: camp,
    };
  });
}
