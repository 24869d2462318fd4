import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { assayMeta } from '../db/schema.ts';
import { JUDGES_DIR } from '../judges/config.ts';

/**
 * A database remembers which examples its seed completed (assay_meta 'seed'): a restart on the same
 * examples reads one row instead of parsing every example file to find nothing to do. The digest covers
 * what the seed reads — the examples, the project's rubrics beside them, and judges/ (the lexical judges
 * and panel it grades with) — so changed examples (a new assay version) run the seed's phases again,
 * which fill only what is missing. An interrupted seed never wrote the row, so the next start completes it.
 */

const KEY = 'seed';

/** sha256 over every file under rubrics/ (the examples' parent) and judges/: relative path and content. */
export function examplesDigest(examplesDir: string, judgesDir: string = JUDGES_DIR): string {
  return treeDigest([join(examplesDir, '..'), judgesDir]);
}

/** sha256 over every file under the given folders, in a fixed order: relative path and content. */
export function treeDigest(roots: string[], extra: string[] = []): string {
  const h = createHash('sha256');
  for (const root of roots) {
    // Folders are told apart by position, never by their absolute path (a clone may move).
    h.update('\u0001');
    for (const file of filesUnder(root)) {
      h.update(`${relative(root, file)}\0`);
      h.update(readFileSync(file));
      h.update('\0');
    }
  }
  for (const x of extra) h.update(`${x}\0`);
  return h.digest('hex');
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

export async function seedCompleteFor(database: Database, digest: string): Promise<boolean> {
  const [row] = await database.db.select({ value: assayMeta.value }).from(assayMeta).where(eq(assayMeta.key, KEY));
  return (row?.value as { digest?: string } | undefined)?.digest === digest;
}

export async function markSeedComplete(database: Database, digest: string): Promise<void> {
  const value = { digest };
  await database.db
    .insert(assayMeta)
    .values({ key: KEY, value })
    .onConflictDoUpdate({ target: assayMeta.key, set: { value, updatedAt: sql`now()` } });
}
