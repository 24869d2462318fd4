import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.ts';

/**
 * clients/typescript/schema.d.ts is what `npm run client:generate` writes from the live document now:
 * a route, parameter or schema that changed without regenerating fails here (and the typed callers
 * then fail at tsc against the regenerated file).
 */
it('the committed schema.d.ts equals the generator output for the current /openapi.json', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/client-generate.ts', '--stdout'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });
  expect(r.status, r.stderr).toBe(0);
  const committed = readFileSync(`${ROOT}/clients/typescript/schema.d.ts`, 'utf8');
  // One line, not a 6,000-line diff: the fix is always the same command.
  expect(r.stdout === committed, 'clients/typescript/schema.d.ts is stale: run `npm run client:generate`').toBe(true);
  expect(committed).toContain('"/api/runs/{id}/grade"');
}, 120_000);
