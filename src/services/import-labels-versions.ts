import { eq, inArray } from 'drizzle-orm';
import type { Queryable } from '../db/client.ts';
import { rubricItems, rubricVersions } from '../db/schema.ts';
import type { Candidate, Resolvable } from './import-labels-answers.ts';
import { locatedError } from './import-parse.ts';
import { CHUNK, versionForLabel } from './labels.ts';

/** The rubric version each row of a label import (import-labels.ts) was given against. */

export type Versions = Map<number, Map<number, { id: number; items: Set<string> }>>;

/** Every version of the rubrics, by version number, with its items: what a row's `rubric_version` names. */
export async function rubricVersionIndex(tx: Queryable, rubricIds: number[]): Promise<Versions> {
  const out: Versions = new Map();
  for (let i = 0; i < rubricIds.length; i += CHUNK) {
    const rows = await tx
      .select({ rubricId: rubricVersions.rubricId, id: rubricVersions.id, version: rubricVersions.version, key: rubricItems.itemKey })
      .from(rubricVersions)
      .leftJoin(rubricItems, eq(rubricItems.rubricVersionId, rubricVersions.id))
      .where(inArray(rubricVersions.rubricId, rubricIds.slice(i, i + CHUNK)));
    for (const r of rows) {
      const byNo = out.get(r.rubricId) ?? new Map<number, { id: number; items: Set<string> }>();
      const v = byNo.get(r.version) ?? { id: r.id, items: new Set<string>() };
      if (r.key !== null) v.items.add(r.key);
      out.set(r.rubricId, byNo.set(r.version, v));
    }
  }
  return out;
}

/** The rubric version row a label row was given against: the one it names, the current one for the seed, else unknown (null). */
export function rowVersion(r: Resolvable, answer: Candidate, item: string, versions: Versions, currentVersion: boolean): number | null {
  const byNo = answer.rubricId === null ? undefined : versions.get(answer.rubricId);
  const n = r.row.rubric_version;
  if (n === undefined) {
    if (!currentVersion || !byNo || byNo.size === 0) return null;
    const newest = byNo.get(Math.max(...byNo.keys()))!;
    return versionForLabel(newest, item);
  }
  if (!byNo) throw locatedError(r.loc, ['rubric_version'], `answer has no rubric, so it has no rubric version ${n}`);
  const v = byNo.get(n);
  if (!v) throw locatedError(r.loc, ['rubric_version'], `the answer's rubric has no version ${n} (it has ${[...byNo.keys()].sort((a, b) => a - b).join(', ')})`);
  if (versionForLabel(v, item) === null) throw locatedError(r.loc, ['item'], `item '${item}' is not an item of version ${n} of the answer's rubric`);
  return v.id;
}
