import { existsSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Where the project's files are, whether this code runs from src/ (tsx) or from the bundled build in
 * dist/. A module cannot find files relative to itself in the build: esbuild moves shared code into
 * chunks (dist/chunks/), so `new URL('../../migrations', import.meta.url)` would point elsewhere from
 * there. Everything is found from the project root instead, the folder holding package.json and
 * migrations/ above this module wherever it landed.
 */

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'migrations'))) return dir;
    if (dirname(dir) === dir) throw new Error(`assay: no project root (package.json beside migrations/) above ${from}`);
  }
}

const here = fileURLToPath(import.meta.url);
export const ROOT = findRoot(dirname(here));
/** The top folder of the running code: src/, or the build's (dist/, or the folder a build is written to). */
export const CODE_DIR = join(ROOT, relative(ROOT, here).split(sep)[0]!);
/** True when this process runs the compiled build, false from the TypeScript source. */
export const FROM_BUILD = CODE_DIR !== join(ROOT, 'src');

/** A file of the project by its path from the root (data files: migrations/, judges/, rubrics/, src/web/static/). */
export const projectPath = (...parts: string[]): string => join(ROOT, ...parts);

/**
 * The file URL of one of assay's own modules, by its path under src/ without extension ('threads/worker'):
 * the .ts source, or the build's .js entry (scripts/build.mjs makes every such module an entry point).
 */
export const ownModuleUrl = (path: string): URL => pathToFileURL(join(CODE_DIR, `${path}${FROM_BUILD ? '.js' : '.ts'}`));
