// Start-up of short commands (issue 15): each command spawned `runs` times, its fastest wall time taken
// (the least disturbed by other work on the machine), next to `node -e 0` measured the same way.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export function fastest(cmd: string, args: string[], runs = 15): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const r = spawnSync(cmd, args, { cwd: ROOT, env: { ...process.env, ASSAY_RUN_FROM: process.env.ASSAY_RUN_FROM ?? 'build' }, stdio: 'ignore' });
    const ms = performance.now() - t;
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}`);
    best = Math.min(best, ms);
  }
  return best;
}
