import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS_DIR, openPglite } from '../db/client.ts';
import { holdsDatabase, pgliteVersion } from '../db/pglite-template.ts';
import { migrateDatabase } from './schema.ts';
import { examplesDigest, treeDigest } from './seed-marker.ts';
import { EXAMPLES_DIR, seedExamples } from './seed.ts';
import { CODE_DIR } from '../paths.ts';

/**
 * The seeded template: a closed PGlite directory, migrated and seeded with the bundled examples, that the
 * build (scripts/build.mjs) makes beside the compiled code, dist/seeded-db/. A first `npm start` on the
 * embedded database copies it in (tens of ms) instead of migrating and seeding (seconds of CPU at the
 * moment a new user waits). It holds exactly what the seed would write — the same code made it — and is
 * used only
 *   - by that build: running from source, this module looks in src/, where there is none, and seeds;
 *   - while the examples, judges, migrations and PGlite version are those it was made from (its digest,
 *     in seeded-db.json, is checked against them at every use);
 *   - for a directory that holds no database yet, by a server that would seed it (never by a command:
 *     `assay import` into a new directory gets no examples).
 * Timestamps in it (created_at) are those of the build. The admin key is made at start, never copied.
 */

/** dist/seeded-db when this module runs from the build; src/seeded-db (absent) from source. */
export const SEEDED_DIR = join(CODE_DIR, 'seeded-db');
const infoFile = (dir: string) => `${dir}.json`;

/** What the template depends on besides the code: examples, judges, migrations, the PGlite build. */
export function seededTemplateDigest(): string {
  return treeDigest([MIGRATIONS_DIR], [examplesDigest(EXAMPLES_DIR), `pglite ${pgliteVersion()}`]);
}

/** The seeded template's directory when it is there and current; null otherwise (seed as before). */
export function usableSeededTemplate(dir: string = SEEDED_DIR): string | null {
  if (!holdsDatabase(dir) || !existsSync(infoFile(dir))) return null;
  try {
    const info = JSON.parse(readFileSync(infoFile(dir), 'utf8')) as { digest?: string };
    return info.digest === seededTemplateDigest() ? dir : null;
  } catch {
    return null;
  }
}

/** The template for a server about to open `dataDir` and seed it: only when that directory is new. */
export function seededTemplateFor(dataDir: string): string | null {
  return holdsDatabase(dataDir) ? null : usableSeededTemplate();
}

/**
 * Makes the seeded template in `dir`: a new directory from the initdb'd template, migrated, seeded,
 * closed; then renamed into place and its digest written. A use in between finds no digest and seeds.
 */
export async function makeSeededTemplate(dir: string = SEEDED_DIR): Promise<void> {
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  try {
    const database = await openPglite(tmp);
    try {
      await migrateDatabase(database);
      await seedExamples(database);
    } finally {
      await database.close();
    }
    rmSync(infoFile(dir), { force: true });
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
    writeFileSync(infoFile(dir), JSON.stringify({ digest: seededTemplateDigest(), madeAt: new Date().toISOString() }) + '\n');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
