import { parseArgs } from 'node:util';
import { AssayError } from '../domain/errors.ts';
import type { Command } from './command.ts';
import { classify, oneLine } from './errors.ts';
import { findCommand, loadCommands } from './registry.ts';

/**
 * bin/assay entry. Exit codes are the contract of design §3: 0 success, 2 bad input (one line on
 * stderr, nothing written), 1 internal failure.
 */

function helpText(commands: Command[]): string {
  const w = Math.max(...commands.map((c) => c.path.join(' ').length));
  const lines = commands.map((c) => `  ${c.path.join(' ').padEnd(w)}  ${c.summary}`);
  return [
    'assay — grade the answers of vision models',
    '',
    'Usage: assay <command> [options] [--json]',
    '',
    'Commands:',
    ...lines,
    '',
    'Every command takes --json (one JSON document on stdout) and --help.',
    'Exit status: 0 success, 2 bad input, 1 internal failure.',
  ].join('\n');
}

function commandHelp(c: Command): string {
  const opts = Object.entries(c.options).map(([name, o]) => {
    const arg = o.type === 'string' ? ` <${name}>` : '';
    return `  --${name}${arg}${o.multiple ? ' (repeatable)' : ''}`;
  });
  return [`Usage: assay ${c.path.join(' ')} ${c.usage}`.trimEnd(), '', c.summary, '', 'Options:', ...opts, '  --json', '  --help'].join(
    '\n',
  );
}

export async function main(argv: string[]): Promise<number> {
  const commands = await loadCommands();
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    process.stdout.write(helpText(commands) + '\n');
    return 0;
  }
  const found = findCommand(commands, argv);
  if (!found) {
    process.stderr.write(`assay: unknown command '${argv.filter((a) => !a.startsWith('-')).join(' ')}' (see assay --help)\n`);
    return 2;
  }
  const { command, rest } = found;
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(commandHelp(command) + '\n');
    return 0;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      options: { ...command.options, json: { type: 'boolean' } },
      allowPositionals: command.positionals ?? false,
      strict: true,
      tokens: true,
    });
    // parseArgs keeps the last of a repeated single-value flag: the first would be dropped silently.
    const seen = new Set<string>();
    for (const t of parsed.tokens ?? []) {
      if (t.kind !== 'option' || t.name === 'json' || command.options[t.name]?.multiple || command.options[t.name]?.type === 'boolean') continue;
      if (seen.has(t.name)) throw new Error(`--${t.name} given more than once (it takes one value)`);
      seen.add(t.name);
    }
    // A flag given empty (`--run "$RUN"` with RUN unset) is never the flag left out: read as absent, it took
    // the default in its place (another run, the rubric's own image, the configured host), exit 0.
    for (const t of parsed.tokens ?? []) {
      if (t.kind === 'option' && (t.value as string | undefined) === '') throw new Error(`--${t.name}: must not be empty (leave the flag out for the default)`);
    }
  } catch (e) {
    process.stderr.write(`assay ${command.path.join(' ')}: ${argsProblem(e as Error, rest)}\n`);
    return 2;
  }
  const json = parsed.values.json === true;
  try {
    const result = await command.run({ values: parsed.values, positionals: parsed.positionals, json });
    if (result?.jsonLines) {
      process.stdout.write(result.jsonLines.map((l) => JSON.stringify(l)).join('\n') + '\n');
      return result.exitCode ?? 0;
    }
    if (result) {
      const out = json || result.text === undefined ? JSON.stringify(result.json, null, json ? 0 : 2) : result.text;
      process.stdout.write(out + '\n');
      return result.exitCode ?? 0;
    }
    return 0;
  } catch (e) {
    const f = classify(e);
    process.stderr.write(`assay ${command.path.join(' ')}: ${f.message}\n`);
    return f.exitCode;
  }
}

/**
 * node:util parseArgs explains a value that starts with '-' in three lines; users get one, with the
 * spelling that works (`--concurrency=-3`, which is then checked like any other value).
 */
function argsProblem(e: Error, args: string[]): string {
  const m = /^Option '(--[^' ]+)[^']*' argument is ambiguous/.exec(e.message);
  if (m) {
    const i = args.indexOf(m[1]!);
    const value = i >= 0 ? args[i + 1] : undefined;
    return `${m[1]}: a value starting with '-' must be written ${m[1]}=${value ?? '-…'}`;
  }
  return oneLine(e.message);
}

/**
 * Every command releases what it started (queue, database, timers) before it returns, so the process
 * ends by itself. Should something still hold it open, this unref'd timer (it cannot keep the process
 * alive) ends it anyway and says so: a defect to fix, never a process left hanging.
 */
export const EXIT_GRACE_MS = 5_000;
function exitBackstop(code: number): void {
  setTimeout(() => {
    // Output still flowing to a slow reader is not a leak: wait for it rather than cut it short.
    if (process.stdout.writableLength > 0 || process.stderr.writableLength > 0) return exitBackstop(code);
    process.stderr.write(`assay: internal error: still running ${EXIT_GRACE_MS / 1000} s after the command finished (something it started was not released); exiting\n`);
    process.exit(code === 0 ? 1 : code);
  }, EXIT_GRACE_MS).unref();
}

/**
 * A reader that stops early (`assay … | head`) closes the pipe. That is the reader's choice, not a
 * failure of the command: the rest of the output is discarded and the command still finishes what it
 * started (a run keeps grading, an import still commits), ending with its own exit status. Without
 * this, Node reports the EPIPE as an unhandled error and the process dies mid-command.
 */
export function discardOutputOnBrokenPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    stream.write = (() => true) as typeof stream.write;
  });
}

const isEntry = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isEntry) {
  discardOutputOnBrokenPipe(process.stdout);
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
      exitBackstop(code);
    },
    (e: unknown) => {
      process.stderr.write(`assay: internal error: ${e instanceof AssayError ? e.message : String((e as Error)?.stack ?? e)}\n`);
      process.exitCode = 1;
      exitBackstop(1);
    },
  );
}
