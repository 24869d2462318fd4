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

// Packages left to node's own resolution: files found beside the package at run time (PGlite's wasm and
// data, swagger-ui's assets), the optional tracing SDK, and vega (loaded only by report threads).
const UNVENDORED = /^(node:|@electric-sql\/|swagger-ui-dist|vega|vega-lite|@opentelemetry\/(?!api$)|playwright|tsx|esbuild)/;
/** Bare imports of src/ that go to dist/vendor/ (spec → file name there). */
const vendored = new Map();
const vendorFile = (spec) => `${spec.replace(/^@/, '').replace(/\//g, '__')}.js`;

/**
 * Every import of our own files left as it is, a relative one renamed to the compiled file. A package
 * import goes to dist/vendor/: the packages src/ uses, bundled by one esbuild build with shared chunks.
 * Loading a package as its hundreds of files (openai 154, drizzle-orm 106, zod 95 for `assay run`) was
 * most of a cold start; one build keeps one copy of each module (hono and its jsx runtime, zod under
 * @hono/zod-openapi), so instanceof and module state behave as unbundled.
 */
const perFile = {
  name: 'per-file',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      if (args.path.startsWith('.')) return { path: args.path.replace(/\.tsx?$/, '.js'), external: true };
      if (UNVENDORED.test(args.path) || !vendorAll) return { path: args.path, external: true };
      vendored.set(args.path, vendorFile(args.path));
      const fromDir = dirname(join(tmp, relative(SRC, args.importer)));
      let rel = relative(fromDir, join(tmp, 'vendor', vendorFile(args.path))).replace(/\\/g, '/');
      if (!rel.startsWith('.')) rel = `./${rel}`;
      return { path: rel, external: true };
    });
  },
};
// ASSAY_BUILD_VENDOR=0 leaves packages to node (to compare start-up, or to debug a package).
const vendorAll = process.env.ASSAY_BUILD_VENDOR !== '0';

/** dist/vendor/: every package src/ imports, as ESM with shared chunks; CommonJS packages get a require. */
async function buildVendor(out) {
  if (vendored.size === 0) return;
  // Each entry re-exports by name what node's own import of the package gives (for a CommonJS package,
  // the names its lexer finds): an esbuild entry that is CommonJS would export only a default.
  const names = new Map();
  for (const spec of vendored.keys()) names.set(spec, Object.keys(await import(spec)));
  const entries = {
    name: 'vendor-entries',
    setup(b) {
      b.onResolve({ filter: /^vendor-entry:/ }, (args) => ({ path: args.path.slice('vendor-entry:'.length), namespace: 'vendor-entry' }));
      b.onLoad({ filter: /.*/, namespace: 'vendor-entry' }, (args) => {
        const spec = JSON.stringify(args.path);
        const own = names.get(args.path).filter((n) => n !== 'default' && /^[A-Za-z_$][\w$]*$/.test(n));
        const lines = [own.length ? `export { ${own.join(', ')} } from ${spec};` : `export {} from ${spec};`];
        if (names.get(args.path).includes('default')) lines.push(`export { default } from ${spec};`);
        return { contents: lines.join('\n'), resolveDir: ROOT, loader: 'js' };
      });
    },
  };
  await build({
    entryPoints: Object.fromEntries([...vendored].map(([spec, file]) => [file.replace(/\.js$/, ''), `vendor-entry:${spec}`])),
    plugins: [entries],
    outdir: join(out, 'vendor'),
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    chunkNames: 'chunks/[name]-[hash]',
    // The unvendored packages stay imports here too (drizzle's PGlite driver imports PGlite), and so do
    // optional peers a package requires in a try (pg's native binding, its Cloudflare socket).
    external: ['@electric-sql/*', 'swagger-ui-dist', 'vega', 'vega-lite', '@opentelemetry/sdk-*', '@opentelemetry/exporter-*', '@opentelemetry/resources', 'pg-native', 'cloudflare:sockets'],
    banner: { js: "import { createRequire as __assayRequire } from 'node:module'; const require = __assayRequire(import.meta.url);" },
    absWorkingDir: ROOT,
    logLevel: 'error',
  });
}

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
  await buildVendor(tmp);
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
  console.log(`assay: built ${code.length} modules and ${vendored.size} package entries into dist/ in ${Math.round(performance.now() - started)} ms`);
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
