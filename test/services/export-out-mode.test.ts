import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exportRun } from '../../src/services/export/write-export.ts';
import { describeDb } from '../helpers/db.ts';
import { seedRun } from './export-fixture.ts';

/**
 * The export is written in a directory beside --out and renamed into place (write-export.ts). That
 * directory came from mkdtemp, which makes it 0700 whatever the umask: a new --out was readable by its
 * owner only (drwx------ where mkdir gives drwxr-xr-x), and an empty --out the user had made (say 0750,
 * shared with a group) was replaced by a 0700 one, exit 0. --out now has the mode mkdir gives, or keeps its own.
 */

const dir = mkdtempSync(join(tmpdir(), 'assay-export-mode-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const modeOf = (p: string) => statSync(p).mode & 0o7777;

describeDb('run export directory mode', (ctx) => {
  beforeAll(async () => {
    await seedRun(ctx.database);
  }, 120_000);

  it('a new --out has the mode mkdir gives it; an existing empty one keeps its mode', async () => {
    const probe = join(dir, `probe-${Math.random().toString(36).slice(2)}`);
    mkdirSync(probe);
    const fresh = join(dir, `new-${Math.random().toString(36).slice(2)}`);
    await exportRun(ctx.database, { run: 'rt-run', out: fresh, format: 'jsonl' });
    expect(modeOf(fresh).toString(8)).toBe(modeOf(probe).toString(8));
    const mine = join(dir, `mine-${Math.random().toString(36).slice(2)}`);
    mkdirSync(mine);
    chmodSync(mine, 0o750);
    await exportRun(ctx.database, { run: 'rt-run', out: mine, format: 'jsonl' });
    expect(modeOf(mine).toString(8)).toBe('750');
  });
});
