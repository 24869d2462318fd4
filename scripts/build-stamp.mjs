// What a build of src/ was made from, cheap enough to check at every start (one stat per file).
// The build writes it into dist/.build-stamp; bin/launch.mjs compares it with src/ now. A file edited,
// added or removed (or a change to the build script) makes the newest mtime or the count differ, so the
// launcher runs from source instead of a stale build. Content hashes would also catch an edit that keeps
// an older mtime, but cost a read of every file at every start; editors and git set mtime to now.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SRC = join(ROOT, 'src');
export const DIST = join(ROOT, 'dist');
export const STAMP_FILE = '.build-stamp';
/** Files outside src/ whose change alters the output. */
const BUILD_INPUTS = ['scripts/build.mjs', 'scripts/build-stamp.mjs', 'tsconfig.json'];

/** { files, newest } over src/ and the build's own inputs: newest is the largest mtime in ms. */
export function sourceStamp(root = ROOT) {
  let files = 0;
  let newest = 0;
  const visit = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) visit(p);
      else {
        files++;
        newest = Math.max(newest, statSync(p).mtimeMs);
      }
    }
  };
  visit(join(root, 'src'));
  for (const f of BUILD_INPUTS) newest = Math.max(newest, statSync(join(root, f)).mtimeMs);
  return { files, newest };
}

/** 'fresh', 'missing' (no build) or 'stale' (src/ changed since the build). */
export function buildState(root = ROOT, dist = join(root, 'dist')) {
  let built;
  try {
    built = JSON.parse(readFileSync(join(dist, STAMP_FILE), 'utf8'));
  } catch {
    return 'missing';
  }
  const now = sourceStamp(root);
  return built.files === now.files && built.newest === now.newest ? 'fresh' : 'stale';
}
