import { parseArgs } from 'node:util';
import { AssayError, isAssayError } from '../domain/errors.ts';
import type { Command } from './command.ts';
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
    });
  } catch (e) {
    process.stderr.write(`assay ${command.path.join(' ')}: ${(e as Error).message}\n`);
    return 2;
  }
  const json = parsed.values.json === true;
  try {
    const result = await command.run({ values: parsed.values, positionals: parsed.positionals, json });
    if (result) {
      const out = json || result.text === undefined ? JSON.stringify(result.json, null, json ? 0 : 2) : result.text;
      process.stdout.write(out + '\n');
      return result.exitCode ?? 0;
    }
    return 0;
  } catch (e) {
    if (isAssayError(e) && e.code !== 'internal') {
      process.stderr.write(`assay ${command.path.join(' ')}: ${e.message}\n`);
      return 2;
    }
    const err = e as Error;
    process.stderr.write(`assay ${command.path.join(' ')}: internal error: ${err?.stack ?? String(e)}\n`);
    return 1;
  }
}

const isEntry = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isEntry) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`assay: internal error: ${e instanceof AssayError ? e.message : String((e as Error)?.stack ?? e)}\n`);
      process.exitCode = 1;
    },
  );
}
