import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CODE_DIR, FROM_BUILD } from '../paths.ts';
import type { Command } from './command.ts';

/**
 * The command table is every module in ./commands (default export: a Command or an array of them).
 * Discovery keeps each feature's commands in its own file, so adding one touches no shared list.
 * Command modules keep top-level imports light and load heavy layers (db, api, SDKs) inside run().
 *
 * The build (scripts/build.mjs) writes the table without run() to commands.json beside this file, so
 * a compiled `assay --help` loads no command module and `assay stats wilson` loads only stats.js.
 */
export const MANIFEST = 'commands.json';
export type CommandTable = Omit<Command, 'run'> & { file: string };

// cli/ of the running code (not this module's folder: in the build it may sit in a shared chunk).
const cliDir = join(CODE_DIR, 'cli');
const dir = join(cliDir, 'commands');

export async function loadCommands(): Promise<Command[]> {
  let table: CommandTable[];
  try {
    table = JSON.parse(readFileSync(join(cliDir, MANIFEST), 'utf8')) as CommandTable[];
  } catch {
    return (await discoverCommands()).map((d) => d.command);
  }
  return table.map(({ file, ...c }) => ({
    ...c,
    async run(ctx) {
      const own = (await commandsIn(file)).find((m) => m.path.join(' ') === c.path.join(' '));
      if (!own) throw new Error(`${MANIFEST} names '${c.path.join(' ')}' in ${file}, which does not define it (rebuild)`);
      return own.run(ctx);
    },
  }));
}

/** Every command module's commands, each with the file that defines it. */
export async function discoverCommands(): Promise<{ command: Command; file: string }[]> {
  // .ts from source, .js in the build (dist/ also holds .js.map files, which this skips).
  const ext = FROM_BUILD ? '.js' : '.ts';
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(ext) && !f.endsWith('.d.ts') && !f.endsWith(`.test${ext}`))
    .sort();
  const out: { command: Command; file: string }[] = [];
  for (const file of files) out.push(...(await commandsIn(file)).map((command) => ({ command, file })));
  return out.sort((a, b) => a.command.path.join(' ').localeCompare(b.command.path.join(' ')));
}

async function commandsIn(file: string): Promise<Command[]> {
  const mod = (await import(pathToFileURL(join(dir, file)).href)) as { default?: Command | Command[] };
  if (!mod.default) return [];
  return Array.isArray(mod.default) ? mod.default : [mod.default];
}

/** Longest command path matching the start of argv. */
export function findCommand(commands: Command[], argv: string[]): { command: Command; rest: string[] } | null {
  let best: Command | null = null;
  for (const c of commands) {
    if (c.path.every((w, i) => argv[i] === w) && (!best || c.path.length > best.path.length)) best = c;
  }
  return best ? { command: best, rest: argv.slice(best.path.length) } : null;
}
