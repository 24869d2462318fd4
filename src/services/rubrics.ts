import { createHash } from 'node:crypto';
import { and, asc, count, desc, eq, inArray } from 'drizzle-orm';
import { RubricSchema, type Rubric } from '../domain/rubric.ts';
import { badInput, notFound } from '../domain/errors.ts';
import type { Database, Queryable } from '../db/client.ts';
import { rubricItems, rubrics, rubricVersions } from '../db/schema.ts';
import { parseLocated, parseValues, type ImportFile } from './import-parse.ts';

/**
 * Rubrics are versioned: importing edited content under the same id adds version n+1, importing
 * identical content changes nothing, and grades keep pointing at the version they were judged with.
 */

export interface RubricImportResult {
  created: number;
  versioned: number;
  unchanged: number;
  rubrics: Array<{ slug: string; version: number; outcome: 'created' | 'versioned' | 'unchanged' }>;
}

export interface RubricVersionView {
  id: string;
  title: string;
  version: number;
  versions: number;
  rubricVersionId: number;
  reference: string;
  image: string | null;
  truth: Rubric['truth'] | null;
  source: string | null;
  contentHash: string;
  createdAt: Date;
  items: Array<{ id: string; text: string; weight: number; tags: string[] }>;
}

/** Key order and absent-vs-undefined do not change the hash; any content change does. */
export function rubricContentHash(r: Rubric): string {
  const canonical = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canonical);
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.keys(v)
          .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
          .sort()
          .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return createHash('sha256').update(JSON.stringify(canonical(r))).digest('hex');
}

/** Parses rubric files (YAML/JSON documents, or JSONL of rubrics); errors name file, line and field. */
export function parseRubricFiles(files: ImportFile[]): Array<{ rubric: Rubric; where: string }> {
  const out: Array<{ rubric: Rubric; where: string }> = [];
  const seen = new Map<string, string>();
  for (const f of files) {
    for (const loc of parseValues(f)) {
      const rubric = parseLocated(RubricSchema, loc);
      const here = loc.line === null ? loc.file : `${loc.file}:${loc.line}`;
      const prev = seen.get(rubric.id);
      if (prev) throw badInput(`${here}: id: rubric '${rubric.id}' also defined at ${prev}`);
      seen.set(rubric.id, here);
      out.push({ rubric, where: here });
    }
  }
  return out;
}

/** Stores one parsed rubric inside an open transaction. */
export async function storeRubric(tx: Queryable, rubric: Rubric): Promise<{ rubricId: number; versionId: number; version: number; outcome: 'created' | 'versioned' | 'unchanged' }> {
  const hash = rubricContentHash(rubric);
  const [existing] = await tx.select().from(rubrics).where(eq(rubrics.slug, rubric.id));
  let rubricId: number;
  let version = 1;
  let outcome: 'created' | 'versioned' = 'created';
  if (existing) {
    const [latest] = await tx
      .select()
      .from(rubricVersions)
      .where(eq(rubricVersions.rubricId, existing.id))
      .orderBy(desc(rubricVersions.version))
      .limit(1);
    if (latest && latest.contentHash === hash) {
      return { rubricId: existing.id, versionId: latest.id, version: latest.version, outcome: 'unchanged' };
    }
    rubricId = existing.id;
    version = (latest?.version ?? 0) + 1;
    outcome = 'versioned';
    if (existing.title !== rubric.title) await tx.update(rubrics).set({ title: rubric.title }).where(eq(rubrics.id, rubricId));
  } else {
    const [row] = await tx.insert(rubrics).values({ slug: rubric.id, title: rubric.title }).returning({ id: rubrics.id });
    rubricId = row!.id;
  }
  const [v] = await tx
    .insert(rubricVersions)
    .values({
      rubricId,
      version,
      title: rubric.title,
      reference: rubric.reference,
      image: rubric.image ?? null,
      truth: rubric.truth ?? null,
      source: rubric.source ?? null,
      contentHash: hash,
    })
    .returning({ id: rubricVersions.id });
  await tx.insert(rubricItems).values(
    rubric.items.map((it, position) => ({
      rubricVersionId: v!.id,
      itemKey: it.id,
      text: it.text,
      weight: it.weight,
      tags: it.tags ?? [],
      position,
    })),
  );
  return { rubricId, versionId: v!.id, version, outcome };
}

/** All or nothing: one bad file or field and no rubric is written. */
export async function importRubrics(database: Database, files: ImportFile[]): Promise<RubricImportResult> {
  const parsed = parseRubricFiles(files);
  if (parsed.length === 0) throw badInput('no rubric files to import (.yaml, .yml, .json or .jsonl)');
  return importParsedRubrics(database, parsed.map((p) => p.rubric));
}

export async function importParsedRubrics(database: Database, list: Rubric[]): Promise<RubricImportResult> {
  // Two documents under one id in one request would store both, the second silently superseding the first.
  const first = new Map<string, number>();
  list.forEach((r, i) => {
    const prev = first.get(r.id);
    if (prev !== undefined) throw badInput(`body[${i}]: id: rubric '${r.id}' also given at body[${prev}]`);
    first.set(r.id, i);
  });
  return database.db.transaction(async (tx) => {
    const result: RubricImportResult = { created: 0, versioned: 0, unchanged: 0, rubrics: [] };
    for (const rubric of list) {
      const r = await storeRubric(tx, rubric);
      result[r.outcome]++;
      result.rubrics.push({ slug: rubric.id, version: r.version, outcome: r.outcome });
    }
    return result;
  });
}

export interface RubricSummary {
  id: string;
  title: string;
  latestVersion: number;
  items: number;
  createdAt: Date;
}

export async function listRubrics(database: Database, opts: { limit?: number; offset?: number } = {}): Promise<{ total: number; rubrics: RubricSummary[] }> {
  const db = database.db;
  const [{ total } = { total: 0 }] = await db.select({ total: count() }).from(rubrics);
  const page = await db
    .select()
    .from(rubrics)
    .orderBy(asc(rubrics.slug))
    .limit(opts.limit ?? 50)
    .offset(opts.offset ?? 0);
  if (page.length === 0) return { total, rubrics: [] };
  const versions = await db
    .select({ id: rubricVersions.id, rubricId: rubricVersions.rubricId, version: rubricVersions.version })
    .from(rubricVersions)
    .where(inArray(rubricVersions.rubricId, page.map((r) => r.id)));
  const latest = new Map<number, { id: number; version: number }>();
  for (const v of versions) if ((latest.get(v.rubricId)?.version ?? 0) < v.version) latest.set(v.rubricId, v);
  const itemCounts = await db
    .select({ versionId: rubricItems.rubricVersionId, n: count() })
    .from(rubricItems)
    .where(inArray(rubricItems.rubricVersionId, [...latest.values()].map((v) => v.id)))
    .groupBy(rubricItems.rubricVersionId);
  const nItems = new Map(itemCounts.map((c) => [c.versionId, c.n]));
  return {
    total,
    rubrics: page.map((r) => {
      const v = latest.get(r.id);
      return { id: r.slug, title: r.title, latestVersion: v?.version ?? 0, items: v ? (nItems.get(v.id) ?? 0) : 0, createdAt: r.createdAt };
    }),
  };
}

/** A rubric version with its items (the latest unless `version` is given). */
export async function getRubric(database: Database | { db: Queryable }, slug: string, version?: number): Promise<RubricVersionView> {
  const db = database.db;
  const [rubric] = await db.select().from(rubrics).where(eq(rubrics.slug, slug));
  if (!rubric) throw notFound(`rubric '${slug}' not found`);
  const all = await db
    .select()
    .from(rubricVersions)
    .where(eq(rubricVersions.rubricId, rubric.id))
    .orderBy(desc(rubricVersions.version));
  const v = version === undefined ? all[0] : all.find((x) => x.version === version);
  if (!v) throw notFound(`rubric '${slug}' has no version ${version} (latest is ${all[0]?.version ?? 0})`);
  return rubricVersionView(db, slug, v, all.length);
}

/** A rubric version by its database id (what a grade points at). */
export async function getRubricVersionById(database: Database | { db: Queryable }, rubricVersionId: number): Promise<RubricVersionView> {
  const db = database.db;
  const [row] = await db
    .select({ v: rubricVersions, slug: rubrics.slug })
    .from(rubricVersions)
    .innerJoin(rubrics, eq(rubrics.id, rubricVersions.rubricId))
    .where(eq(rubricVersions.id, rubricVersionId));
  if (!row) throw notFound(`rubric version ${rubricVersionId} not found`);
  const [{ n } = { n: 0 }] = await db.select({ n: count() }).from(rubricVersions).where(eq(rubricVersions.rubricId, row.v.rubricId));
  return rubricVersionView(db, row.slug, row.v, n);
}

async function rubricVersionView(
  db: Queryable,
  slug: string,
  v: typeof rubricVersions.$inferSelect,
  versions: number,
): Promise<RubricVersionView> {
  const items = await db
    .select()
    .from(rubricItems)
    .where(and(eq(rubricItems.rubricVersionId, v.id)))
    .orderBy(asc(rubricItems.position));
  return {
    id: slug,
    title: v.title,
    version: v.version,
    versions,
    rubricVersionId: v.id,
    reference: v.reference,
    image: v.image,
    truth: (v.truth as Rubric['truth']) ?? null,
    source: v.source,
    contentHash: v.contentHash,
    createdAt: v.createdAt,
    items: items.map((it) => ({ id: it.itemKey, text: it.text, weight: it.weight, tags: it.tags })),
  };
}

/** The Rubric document of a stored version (what judges and scoring take). */
export function toRubric(view: RubricVersionView): Rubric {
  return {
    id: view.id,
    title: view.title,
    reference: view.reference,
    ...(view.image ? { image: view.image } : {}),
    ...(view.truth ? { truth: view.truth } : {}),
    ...(view.source ? { source: view.source } : {}),
    items: view.items.map((it) => ({ id: it.id, text: it.text, weight: it.weight, ...(it.tags.length ? { tags: it.tags } : {}) })),
  };
}
