// `npm run build` (and `prepare`, so `npm ci` builds a fresh clone): src/ bundled into dist/ by esbuild,
// with the packages it imports, as ES modules with shared chunks (dist/chunks/). Each module another
// process or thread starts by path is an entry point at its own place in the tree (.ts/.tsx → .js): the
// two entries (main, cli/main), every command module (cli/registry.ts loads one by file), the thread's
// worker and its task modules, and what this script imports afterwards. Loading a few bundles instead
// of ~470 files (openai 154, drizzle-orm 106, zod 95 for `assay run`) is most of a cold start. Code
// finds data files from the project root (src/paths.ts), never beside itself: in a chunk it is elsewhere.
// The build goes to a temporary folder that replaces dist/ in one rename, so a process starting
// meanwhile sees the old build or none, never half of one.
import { build } from 'esbuild';
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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
(function walk(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) code.push(p);
  }
})(SRC);

// A task module is named by its caller, `taskModule('report-tasks', import.meta.url)`, and lives beside
// it; dist/threads/tasks.json tells the build's pool.ts where each one's entry is.
const TASK_CALL = /taskModule\('([\w-]+)',\s*import\.meta\.url\)/g;
const tasks = {};
for (const file of code) {
  for (const m of readFileSync(file, 'utf8').matchAll(TASK_CALL)) {
    const path = relative(SRC, join(dirname(file), m[1])).replace(/\\/g, '/');
    if (tasks[m[1]] && tasks[m[1]] !== path) throw new Error(`task module '${m[1]}' names two files: ${tasks[m[1]]} and ${path}`);
    tasks[m[1]] = path;
  }
}
const fromSrc = (p) => join(SRC, `${p}.ts`);
const entries = [
  'main',
  'cli/main',
  'cli/registry',
  'threads/worker',
  // Imported by this script once the bundle is written.
  'db/pglite-template',
  'services/seed-template',
  ...readdirSync(join(SRC, 'cli/commands')).filter((f) => f.endsWith('.ts')).map((f) => `cli/commands/${f.replace(/\.ts$/, '')}`),
  ...Object.values(tasks),
].map(fromSrc);

// Packages left to node's own resolution: files found beside the package at run time (PGlite's wasm and
// data, swagger-ui's assets), vega (loaded only by report threads, and large), OpenTelemetry, and
// optional peers a package requires in a try (pg's native binding, its Cloudflare socket). OpenTelemetry
// must be node's one copy: the tracing SDK registers its provider through @opentelemetry/api, and a
// tracer the bundled Anthropic SDK took from a second copy before that would never reach it.
const EXTERNAL = ['@electric-sql/*', 'swagger-ui-dist', 'vega', 'vega-lite', '@opentelemetry/*', 'pg-native', 'cloudflare:sockets'];

// pg-boss requires `pg` (its own pool) and `cron-parser` (schedules, with luxon) at load. assay always
// hands it its connection (src/jobs/boss.ts, `db`) and starts it with `schedule: false`, so neither is
// ever called, yet together they are ~470 KB to compile and run at every start of a queue. In the bundle
// pg-boss gets stand-ins that fail loudly if that ever changes; source mode loads the real ones.
const UNUSED_BY_PG_BOSS = {
  pg: "module.exports = { Pool: class { constructor() { throw new Error('assay: pg-boss was about to open its own pg pool; assay passes it the database (src/jobs/boss.ts)'); } } };",
  'cron-parser': "module.exports = { parseExpression() { throw new Error('assay: pg-boss schedules are off (schedule: false); cron-parser is not bundled'); } };",
};
// zod re-exports all of its ~50 message locales (360 KB) from one index; assay uses its default, English,
// which zod configures from en.js directly. The index keeps that one.
const ZOD_LOCALES = /[\\/]node_modules[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/;
const standIns = {
  name: 'assay-stand-ins',
  setup(b) {
    b.onResolve({ filter: /^(pg|cron-parser)$/ }, (args) =>
      /[\\/]node_modules[\\/]pg-boss[\\/]/.test(args.importer) ? { path: args.path, namespace: 'assay-stand-in' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'assay-stand-in' }, (args) => ({ contents: UNUSED_BY_PG_BOSS[args.path], loader: 'js' }));
    b.onLoad({ filter: ZOD_LOCALES }, () => ({ contents: 'export { default as en } from "./en.js";\n', loader: 'js' }));
  },
};

try {
  await build({
    plugins: [standIns],
    entryPoints: [...new Set(entries)],
    outdir: tmp,
    outbase: SRC,
    bundle: true,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    external: EXTERNAL,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // A CommonJS package bundled into ES modules calls require for node's own modules.
    banner: { js: "import { createRequire as __assayRequire } from 'node:module'; const require = __assayRequire(import.meta.url);" },
    // Linked maps cost nothing at run time; `node --enable-source-maps` uses them for stack traces.
    sourcemap: 'linked',
    tsconfig: join(ROOT, 'tsconfig.json'),
    logLevel: 'warning',
  });
  writeFileSync(join(tmp, 'threads', 'tasks.json'), JSON.stringify(tasks, null, 2) + '\n');
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
  console.log(`assay: bundled ${code.length} modules into ${new Set(entries).size} entries in dist/ in ${Math.round(performance.now() - started)} ms`);
} catch (e) {
  failed(e);
}

if (built) {
  try {
    const t = performance.now();
    const { ensureTemplate } = await import(pathToFileURL(join(DIST, 'db/pglite-template.js')).href);
    const { dir, made } = await ensureTemplate();
    if (made) console.log(`assay: made the PGlite template ${relative(ROOT, dir)} in ${Math.round(performance.now() - t)} ms`);
  } catch (e) {
    console.error(`assay: warning: no PGlite template (a new data directory will run initdb): ${e.message}`);
  }
  // dist/seeded-db: the embedded database a first `npm start` copies instead of migrating and seeding
  // (src/services/seed-template.ts). Made by the build's own code, so it is what that code would seed.
  try {
    const t = performance.now();
    const { makeSeededTemplate } = await import(pathToFileURL(join(DIST, 'services/seed-template.js')).href);
    await makeSeededTemplate();
    console.log(`assay: made the seeded database dist/seeded-db in ${Math.round(performance.now() - t)} ms`);
  } catch (e) {
    console.error(`assay: warning: no seeded database (a first npm start will seed the examples itself): ${e.message}`);
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
