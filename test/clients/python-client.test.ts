import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.ts';

/**
 * The Python client's own unittest suite (clients/python/tests), run here so CI (`npm test`) runs it:
 * it starts a real server and a worker (`bin/launch.mjs`, the build in CI) on a fresh data directory
 * and drives the main flows through assay_client. Skipped, saying so, only where python3 is missing.
 */
const python = spawnSync('python3', ['--version'], { encoding: 'utf8' });
const hasPython = python.status === 0;

const name = `python3 -m unittest discover -s clients/python/tests passes against a started server${hasPython ? '' : ' (skipped: python3 not found)'}`;
it.skipIf(!hasPython)(name, () => {
  const r = spawnSync('python3', ['-m', 'unittest', 'discover', '-s', 'clients/python/tests', '-v'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, ASSAY_NODE: process.execPath, ASSAY_ROOT: ROOT, PYTHONDONTWRITEBYTECODE: '1' },
    timeout: 280_000,
  });
  expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
  // unittest reports on stderr: every test ran, none skipped.
  expect(r.stderr).toMatch(/^Ran 8 tests in /m);
  expect(r.stderr).toMatch(/^OK$/m);
}, 300_000);

