import { constants, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * A new PGlite data directory starts as a copy of one made earlier by initdb. PGlite's own first open
 * runs initdb in a second WebAssembly instance: seconds of CPU and hundreds of MB at the worst moment
 * (a user's first `npm start`). initdb's output depends only on the PGlite build, so `npm ci` (the
 * prepare script, through scripts/build.mjs) makes it once per PGlite version, in node_modules/.cache/
 * assay/, and opening an empty directory copies those files in (a plain file copy, tens of ms). Every
 * database made from it shares one system identifier, which matters only to physical replication;
 * PGlite has none. Without a template (install without scripts), PGlite runs initdb as before.
 */

function pglitePackage(): { dir: string; version: string } {
  // The package exports no package.json; its entry point is in <package>/dist/.
  const dir = dirname(dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')));
  return { dir, version: (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version };
}

/** The installed PGlite version (what its data directory format depends on). */
export const pgliteVersion = (): string => pglitePackage().version;

/** Where the initdb'd directory of the installed PGlite version lives. */
export function templateDir(): string {
  const { dir, version } = pglitePackage();
  return join(dir, '..', '..', '.cache', 'assay', `pglite-${version}`);
}

/** PGlite's marker of an initialised data directory. */
export const MARKER = 'PG_VERSION';

/** True when `dataDir` holds a database (initialised, or copied in full). */
export const holdsDatabase = (dataDir: string): boolean => existsSync(join(dataDir, MARKER));

/**
 * Fills `dataDir` from a template (default: the initdb'd one; `from`: another closed PGlite directory,
 * e.g. the seeded one of services/seed-template.ts) when it holds no database yet; false when there is
 * no template. The marker is copied last: a copy cut short leaves no marker, so the next open copies again.
 */
export function copyTemplateInto(dataDir: string, from: string = templateDir()): boolean {
  if (holdsDatabase(dataDir)) return false;
  if (!holdsDatabase(from)) return false;
  copyTree(from, dataDir, (name) => name !== MARKER);
  copyFileSync(join(from, MARKER), join(dataDir, MARKER));
  return true;
}

/** About a thousand small files: a plain walk with copyFileSync is 2–3 times faster than cpSync here. */
function copyTree(from: string, to: string, keep: (name: string) => boolean = () => true): void {
  mkdirSync(to, { recursive: true });
  for (const e of readdirSync(from, { withFileTypes: true })) {
    if (!keep(e.name)) continue;
    if (e.isDirectory()) copyTree(join(from, e.name), join(to, e.name));
    else copyFileSync(join(from, e.name), join(to, e.name), constants.COPYFILE_FICLONE);
  }
}

/** Makes the template if the installed PGlite version has none (a temporary directory, then one rename). */
export async function ensureTemplate(): Promise<{ dir: string; made: boolean }> {
  const dir = templateDir();
  if (existsSync(join(dir, MARKER))) return { dir, made: false };
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    const { PGlite } = await import('@electric-sql/pglite');
    const pg = new PGlite(tmp);
    await pg.waitReady;
    await pg.close();
    try {
      renameSync(tmp, dir);
    } catch (e) {
      // Another install made it meanwhile: theirs is as good as ours.
      if (!existsSync(join(dir, MARKER))) throw e;
    }
    return { dir, made: true };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
