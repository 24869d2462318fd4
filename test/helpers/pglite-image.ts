import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, MIGRATIONS_DIR, openDatabase } from '../../src/db/client.ts';
import { pgliteVersion } from '../../src/db/pglite-template.ts';

/**
 * A migrated in-memory PGlite database, dumped once (PGlite's dumpDataDir) and loaded by every suite
 * that wants a fresh one. An in-memory PGlite runs initdb when it opens: ~1.7 s of CPU here, against
 * ~0.4 s to load the dump, and the suite opens one per describeDb on a CPU-bound 2-core CI machine.
 * The dump depends only on the PGlite build and the migrations, so its file name carries both: a
 * changed migration makes a new one, never a stale schema. Parallel workers may both make it; each
 * writes its own file and renames it into place, so a reader never sees half a file.
 */

let image: Promise<Blob> | undefined;

export function migratedImage(): Promise<Blob> {
  image ??= loadOrMake();
  return image;
}

async function loadOrMake(): Promise<Blob> {
  const path = join(tmpdir(), `assay-test-pglite-${pgliteVersion()}-${migrationsHash()}.tar`);
  try {
    return new Blob([readFileSync(path)]);
  } catch {
    const database = await openDatabase({ memory: true });
    await migrate(database);
    // A checkpoint first, so that loading the dump does not replay the migrations' WAL.
    await database.execute('CHECKPOINT');
    const client = (database.db as unknown as { $client: { dumpDataDir(c: 'none'): Promise<Blob> } }).$client;
    const dumped = await client.dumpDataDir('none');
    await database.close();
    const partial = `${path}.${process.pid}.partial`;
    writeFileSync(partial, Buffer.from(await dumped.arrayBuffer()));
    renameSync(partial, path);
    return dumped;
  }
}

function migrationsHash(): string {
  const hash = createHash('sha256');
  const walk = (dir: string, rel: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.isDirectory()) walk(join(dir, e.name), `${rel}${e.name}/`);
      else hash.update(`${rel}${e.name}\0`).update(readFileSync(join(dir, e.name))).update('\0');
    }
  };
  walk(MIGRATIONS_DIR, '');
  return hash.digest('hex').slice(0, 16);
}
