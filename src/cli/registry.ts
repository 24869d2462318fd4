import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Command } from './command.ts';

/**
 * The command table is every module in ./commands (default export: a Command or an array of them).
 * Discovery keeps each feature's commands in its own file, so adding one touches no shared list.
 * Command modules keep top-level imports light and load heavy layers (db, api, SDKs) inside run().
 */
export async function loadCommands(): Promise<Command[]> {
  const dir = join(dirname(fileURLToPath(import.meta.url)), 'commands');
  const files = readdirSync(dir)
    .filter((f) => /\.ts$/.test(f) && !f.endsWith('.d.ts') && !f.endsWith('.test.ts'))
    .sort();
  const out: Command[] = [];
  for (const f of files) {
    const mod = (await import(pathToFileURL(join(dir, f)).href)) as { default?: Command | Command[] };
    if (!mod.default) continue;
    out.push(...(Array.isArray(mod.default) ? mod.default : [mod.default]));
  }
  return out.sort((a, b) => a.path.join(' ').localeCompare(b.path.join(' ')));
}

/** Longest command path matching the start of argv. */
export function findCommand(commands: Command[], argv: string[]): { command: Command; rest: string[] } | null {
  let best: Command | null = null;
  for (const c of commands) {
    if (c.path.every((w, i) => argv[i] === w) && (!best || c.path.length > best.path.length)) best = c;
  }
  return best ? { command: best, rest: argv.slice(best.path.length) } : null;
}
