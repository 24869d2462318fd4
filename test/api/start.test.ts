import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.ts';

/** `npm start` and `assay keys` as a user runs them: real processes on a fresh PGlite data directory. */

const dataDir = mkdtempSync(join(tmpdir(), 'assay-start-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const env = { ASSAY_DATA_DIR: dataDir, DATABASE_URL: '', ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', OPENAI_BASE_URL: '' };

/** Starts the service on port 0 and resolves with its stdout once it prints the URL. */
function start(): Promise<{ out: string; url: string; stop: () => Promise<number | null> }> {
  return new Promise((resolve, reject) => {
    // What `npm start` runs: the build in dist/ when fresh (always in CI), else the source.
    const child = spawn(process.execPath, ['bin/launch.mjs', 'main'], { cwd: ROOT, env: { ...process.env, ...env, PORT: '0' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        resolve({
          out,
          url: m[1]!,
          stop: () =>
            new Promise((done) => {
              child.once('exit', (code) => done(code));
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('exit', (code) => reject(new Error(`exited ${code} before listening: ${err}${out}`)));
  });
}

describe('npm start on an empty database', () => {
  it('migrates, seeds the examples, prints an admin key once and the judge, serves, and stops on SIGTERM', async () => {
    const first = await start();
    expect(first.out).toContain('Judge: lexical baseline judge (offline, not an LLM)');
    const key = /^\s+(assay_[0-9a-f]{8}_[A-Za-z0-9_-]{43})$/m.exec(first.out)?.[1];
    expect(key).toBeDefined();
    const rubrics = await fetch(`${first.url}/api/rubrics`, { headers: { authorization: `Bearer ${key}` } });
    expect(rubrics.status).toBe(200);
    expect(((await rubrics.json()) as { total: number }).total).toBeGreaterThan(0);
    const docs = await fetch(`${first.url}/docs`);
    expect(await docs.text()).toContain('swagger-ui-bundle.js');
    expect(await first.stop()).toBe(0);

    // Second start: the key exists, so none is printed, and the examples are not loaded again.
    const second = await start();
    expect(second.out).not.toMatch(/assay_[0-9a-f]{8}_/);
    expect(second.out).not.toContain('Loaded the bundled examples');
    expect(await second.stop()).toBe(0);

    // assay keys: create prints the key once, list shows prefixes only, revoke by prefix.
    const created = runCli(['keys', 'create', '--scope', 'read', '--name', 'ci', '--json'], { env });
    expect(created.code).toBe(0);
    const k = created.json<{ key: string; prefix: string; scopes: string[] }>();
    expect(k.scopes).toEqual(['read']);
    const listed = runCli(['keys', 'list', '--json'], { env });
    expect(listed.stdout).toContain(k.prefix);
    expect(listed.stdout).not.toContain(k.key);
    expect(listed.stdout).not.toContain(key!);
    expect(runCli(['keys', 'revoke', k.prefix, '--json'], { env }).json<{ revokedAt: string | null }>().revokedAt).not.toBeNull();
    const bad = runCli(['keys', 'create', '--scope', 'superuser'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe("assay keys create: scope: must be one of read|write|admin|annotate, got 'superuser'");
    expect(runCli(['keys', 'revoke', 'ffffffff'], { env }).code).toBe(2);
  }, 240_000);
});
