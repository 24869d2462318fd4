import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript module (scripts/ runs before anything is compiled)
import { buildState, sourceStamp, STAMP_FILE } from '../../scripts/build-stamp.mjs';
import { ROOT } from '../helpers/cli.ts';

/** The launcher's freshness check (scripts/build-stamp.mjs) on a scratch tree with fixed mtimes. */

const root = mkdtempSync(join(tmpdir(), 'assay-stamp-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const T0 = new Date('2025-01-01T00:00:00Z');
const at = (file: string, when: Date) => utimesSync(join(root, file), when, when);

function put(file: string, when = T0) {
  mkdirSync(join(root, file, '..'), { recursive: true });
  writeFileSync(join(root, file), 'x');
  at(file, when);
}
for (const f of ['src/a.ts', 'src/sub/b.ts', 'scripts/build.mjs', 'scripts/build-stamp.mjs', 'tsconfig.json']) put(f);
const dist = join(root, 'dist');
const stampNow = () => {
  mkdirSync(dist, { recursive: true });
  writeFileSync(join(dist, STAMP_FILE), JSON.stringify(sourceStamp(root)));
};

describe('build stamp', () => {
  it('counts the files of src/ and takes the newest mtime, build inputs included', () => {
    expect(sourceStamp(root)).toEqual({ files: 2, newest: T0.getTime() });
    at('tsconfig.json', new Date(T0.getTime() + 5_000));
    expect(sourceStamp(root)).toEqual({ files: 2, newest: T0.getTime() + 5_000 });
    at('tsconfig.json', T0);
  });

  it('missing without a build; fresh right after one; stale after an edit, an added or a removed file', () => {
    expect(buildState(root, dist)).toBe('missing');
    stampNow();
    expect(buildState(root, dist)).toBe('fresh');
    at('src/sub/b.ts', new Date(T0.getTime() + 1));
    expect(buildState(root, dist)).toBe('stale');
    stampNow();
    put('src/sub/c.ts'); // same mtime as the rest: only the count tells
    expect(buildState(root, dist)).toBe('stale');
    stampNow();
    unlinkSync(join(root, 'src/sub/c.ts'));
    expect(buildState(root, dist)).toBe('stale');
    stampNow();
    at('scripts/build.mjs', new Date(T0.getTime() + 10)); // later than every source file, as an edit now is
    expect(buildState(root, dist)).toBe('stale');
  });
});

describe('the compiled tree', () => {
  // CI builds on `npm ci` (prepare) and sets ASSAY_RUN_FROM=build, so every CLI test there runs dist/.
  it.runIf(process.env.ASSAY_RUN_FROM === 'build')('is there, and lists every command without loading one', () => {
    const table = JSON.parse(readFileSync(join(ROOT, 'dist/cli/commands.json'), 'utf8')) as { path: string[]; file: string }[];
    expect(table.map((c) => c.path.join(' '))).toContain('stats wilson');
    expect(table.find((c) => c.path.join(' ') === 'stats wilson')?.file).toBe('stats.js');
  });

  it.runIf(process.env.ASSAY_RUN_FROM === 'build')('bundles pg-boss without pg and cron-parser (stand-ins that fail loudly if ever reached)', () => {
    const chunks = join(ROOT, 'dist/chunks');
    const boss = readdirSync(chunks).filter((f) => f.endsWith('.js') && readFileSync(join(chunks, f), 'utf8').includes('// node_modules/pg-boss/src/index.js'));
    expect(boss).toHaveLength(1);
    const text = readFileSync(join(chunks, boss[0]!), 'utf8');
    for (const pkg of ['pg', 'pg-pool', 'pg-protocol', 'cron-parser', 'luxon']) expect(text).not.toContain(`// node_modules/${pkg}/`);
    // In their place, stand-ins that say why they are never called (src/jobs/boss.ts passes `db`, schedule off).
    expect(text).toContain('pg-boss was about to open its own pg pool');
    expect(text).toContain('pg-boss schedules are off');
  });

  it.runIf(process.env.ASSAY_RUN_FROM === 'build')("bundles zod's English messages only (the one locale assay uses)", () => {
    const chunks = join(ROOT, 'dist/chunks');
    const all = readdirSync(chunks).filter((f) => f.endsWith('.js')).map((f) => readFileSync(join(chunks, f), 'utf8')).join('\n');
    expect(all).toContain('// node_modules/zod/v4/locales/en.js');
    for (const other of ['de', 'fr', 'ja', 'zh-CN']) expect(all).not.toContain(`// node_modules/zod/v4/locales/${other}.js`);
  });

  it('an unknown entry is refused in one line', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'bin/launch.mjs'), 'nope'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe("assay: launch.mjs needs an entry under src/ (cli/main or main), got 'nope'\n");
  });
});
