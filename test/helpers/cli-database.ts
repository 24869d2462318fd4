import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { runCli } from './cli.ts';
import { cliDatabaseEnv } from './db.ts';

const SLOW = 300_000;

export interface CliDatabase {
  /** The environment bin/assay is given: its database (a PGlite directory or a PostgreSQL URL). Read inside tests. */
  readonly env: NodeJS.ProcessEnv;
  /** A temporary directory of the suite's own, removed afterwards. */
  readonly tmp: string;
}

/**
 * A CLI suite's database on `engine`, made in beforeAll with the farmyard rubric imported through the binary,
 * dropped and its directory removed in afterAll. Call inside a describe.
 * @example
 *   for (const engine of ENGINES) describe(`… [${engine}]`, () => {
 *     const db = useCliRubricDatabase(engine, 'assay-x-');
 *     it('…', () => expect(runCli(['import', 'answers', F], { env: db.env }).code).toBe(0));
 *   });
 */
export function useCliRubricDatabase(engine: 'pglite' | 'postgres', prefix: string): CliDatabase {
  const tmp = mkdtempSync(join(tmpdir(), prefix));
  let env: NodeJS.ProcessEnv = {};
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ env, drop } = await cliDatabaseEnv(engine, tmp));
    expect(runCli(['import', 'rubrics', 'rubrics/farmyard.yaml'], { env }).code).toBe(0);
  }, SLOW);
  afterAll(async () => {
    await drop?.().catch(() => {});
    rmSync(tmp, { recursive: true, force: true });
  });
  return {
    get env() {
      return env;
    },
    tmp,
  };
}
