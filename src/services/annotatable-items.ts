import { eq } from 'drizzle-orm';
import type { Queryable } from '../db/client.ts';
import { rubricItems, rubricVersions } from '../db/schema.ts';

/** The items an annotator can label: those of the rubric's newest version, the one the workspace shows and a campaign asks. */
export interface AnnotatableItems {
  version: number;
  /** The current version's row id: what a label saved now records as its rubric version. */
  versionId: number;
  current: Set<string>;
  /** Items only earlier versions have: named as such when refused (a tab opened before the rubric changed). */
  older: Set<string>;
}

export async function annotatableItems(tx: Queryable, rubricId: number): Promise<AnnotatableItems> {
  const rows = await tx
    .select({ version: rubricVersions.version, versionId: rubricVersions.id, key: rubricItems.itemKey })
    .from(rubricItems)
    .innerJoin(rubricVersions, eq(rubricVersions.id, rubricItems.rubricVersionId))
    .where(eq(rubricVersions.rubricId, rubricId));
  const version = rows.reduce((v, r) => Math.max(v, r.version), 0);
  const current = new Set(rows.filter((r) => r.version === version).map((r) => r.key));
  const versionId = rows.find((r) => r.version === version)?.versionId ?? 0;
  return { version, versionId, current, older: new Set(rows.filter((r) => !current.has(r.key)).map((r) => r.key)) };
}

/** Why an item cannot be labelled on this answer, or null when it can. */
export function itemProblem(items: AnnotatableItems, item: string): string | null {
  if (items.current.has(item)) return null;
  if (items.older.has(item)) return `item '${item}': not an item of version ${items.version} (the current one) of this answer's rubric`;
  return `item '${item}': unknown item for this answer's rubric`;
}
