// Starts an assay entry point (`cli/main` for bin/assay, `main` for `npm start`) from the compiled
// build in dist/ when it is fresh, else from the TypeScript in src/ through tsx. Fresh means
// dist/.build-stamp matches src/ now (scripts/build-stamp.mjs: newest mtime and file count). Running
// from source is correct, only slower to start; on a terminal it says so in one line. Scripts and tests
// that read stderr never see that line: a command's stderr stays its own (one line for bad input).
// ASSAY_RUN_FROM=source runs from source without the check (debugging with tsx); ASSAY_RUN_FROM=build
// runs dist/ without it (benches in a tree being edited; fails if there is no build).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildState, DIST, ROOT, SRC } from '../scripts/build-stamp.mjs';

const entry = process.argv[2];
if (!entry || !existsSync(join(SRC, `${entry}.ts`))) {
  process.stderr.write(`assay: launch.mjs needs an entry under src/ (cli/main or main), got '${entry ?? ''}'\n`);
  process.exit(1);
}
const forced = { source: 'skipped', build: 'fresh' }[process.env.ASSAY_RUN_FROM ?? ''];
const state = forced ?? buildState(ROOT, DIST);
let file;
if (state === 'fresh') {
  file = join(DIST, `${entry}.js`);
  if (!existsSync(file)) {
    process.stderr.write(`assay: ASSAY_RUN_FROM=build but there is no ${file} (run \`npm run build\`)\n`);
    process.exit(1);
  }
} else {
  if (state !== 'skipped' && process.stderr.isTTY) {
    const why = state === 'missing' ? 'no build in dist/' : 'dist/ is older than src/';
    process.stderr.write(`assay: running from source (${why}; \`npm run build\` makes start-up fast)\n`);
  }
  // tsx takes the tsconfig.json it finds from the cwd, and applies it only to files that config's
  // `include` matches relative to where it was found: started elsewhere (or from a directory of symlinks
  // to this tree), src/ got none, so .tsx compiled to React.createElement and every page was a 500.
  // Always this project's; worker threads inherit the variable (src/threads/entry.mjs names it too).
  process.env.TSX_TSCONFIG_PATH = join(ROOT, 'tsconfig.json');
  await import('tsx');
  file = join(SRC, `${entry}.ts`);
}
// The entry sees itself as the script node was started with, as it would without this launcher.
process.argv.splice(1, 2, file);
await import(pathToFileURL(file).href);
