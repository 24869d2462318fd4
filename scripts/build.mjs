// `npm run build` (and `prepare`, so `npm ci` builds a fresh clone): src/ compiled file by file into
// dist/ with esbuild, the same tree and names (.ts/.tsx → .js), so everything found relative to a
// module (migrations/, judges/, rubrics/, web static files, the thread entry, the command folder)
// resolves from dist/ exactly as from src/. Imports stay imports (node_modules are not bundled); other
// files under src/ (client scripts, CSS) are copied. The build goes to a temporary folder that replaces
// dist/ in one rename, so a process starting meanwhile sees the old build or none, never half of one.
import { build } from 'esbuild';
import { cpSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIST, ROOT, SRC, STAMP_FILE, sourceStamp } from './build-stamp.mjs';

// Taken before compiling: an edit made while the build runs leaves the build stale, not falsely fresh.
const stamp = sourceStamp();
const started = performance.now();
const tmp = `${DIST}.tmp-${process.pid}`;
let built = false;
rmSync(tmp, { recursive: true, force: true });

const code = [];
const other = [];
(function walk(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) code.push(p);
    else if (e.name !== 'README.md') other.push(p);
  }
})(SRC);

/** Every import left as it is, a relative one renamed to the compiled file. */
const perFile = {
  name: 'per-file',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      const path = args.path.startsWith('.') ? args.path.replace(/\.tsx?$/, '.js') : args.path;
      return { path, external: true };
    });
  },
};

try {
  await build({
    entryPoints: code,
    outdir: tmp,
    outbase: SRC,
    bundle: true,
    plugins: [perFile],
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Linked maps cost nothing at run time; `node --enable-source-maps` uses them for stack traces.
    sourcemap: 'linked',
    tsconfig: join(ROOT, 'tsconfig.json'),
    logLevel: 'warning',
  });
  for (const f of other) {
    const to = join(tmp, relative(SRC, f));
    mkdirSync(dirname(to), { recursive: true });
    cpSync(f, to);
  }
  await writeCommandTable(tmp);
  writeFileSync(join(tmp, STAMP_FILE), JSON.stringify({ ...stamp, builtAt: new Date().toISOString() }) + '\n');
  const old = `${DIST}.old-${process.pid}`;
  try {
    renameSync(DIST, old);
  } catch {
    // no previous build
  }
  renameSync(tmp, DIST);
  rmSync(old, { recursive: true, force: true });
  built = true;
  console.log(`assay: built ${code.length} modules into dist/ in ${Math.round(performance.now() - started)} ms`);
} catch (e) {
  failed(e);
}

// The initdb'd directory new PGlite databases are copied from (src/db/pglite-template.ts): made once per
// PGlite version, so only the first build after an install pays for it. Without it, PGlite runs initdb.
if (built) {
  try {
    const t = performance.now();
    const { ensureTemplate } = await import(pathToFileURL(join(DIST, 'db/pglite-template.js')).href);
    const { dir, made } = await ensureTemplate();
    if (made) console.log(`assay: made the PGlite template ${relative(ROOT, dir)} in ${Math.round(performance.now() - t)} ms`);
  } catch (e) {
    console.error(`assay: warning: no PGlite template (a new data directory will run initdb): ${e.message}`);
  }
}

function failed(e) {
  rmSync(tmp, { recursive: true, force: true });
  // As `prepare` (npm ci / npm install) a failed build must not fail the install: bin/assay and
  // npm start then run from source, and say so on a terminal. `npm run build` reports it as a failure.
  const prepare = process.argv.includes('--prepare');
  console.error(`assay: build failed${prepare ? ' (commands will run from source)' : ''}: ${e.message}`);
  if (!prepare) process.exitCode = 1;
}

/** dist/cli/commands.json: every command's table (all but run) and its file, read by registry.ts. */
async function writeCommandTable(out) {
  const registry = await import(pathToFileURL(join(out, 'cli/registry.js')).href);
  const table = (await registry.discoverCommands()).map(({ command, file }) => {
    const { run, ...rest } = command;
    for (const [k, v] of Object.entries(rest)) {
      if (typeof v === 'function') throw new Error(`command '${command.path.join(' ')}' has a function ${k}; commands.json can hold only run-free data`);
    }
    return { ...rest, file };
  });
  writeFileSync(join(out, 'cli', registry.MANIFEST), JSON.stringify(table) + '\n');
}
