import type { ParseArgsConfig } from 'node:util';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

export interface CommandContext {
  /** Parsed flag values (strings/booleans, arrays where `multiple`). */
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  positionals: string[];
  json: boolean;
}

export interface CommandResult {
  /** The document printed with --json. */
  json: unknown;
  /** The readable rendering printed without --json; defaults to pretty JSON. */
  text?: string;
  /** JSON Lines printed as they are, with or without --json (a batch form: one line per input, then the aggregate). */
  jsonLines?: unknown[];
  exitCode?: number;
}

export interface Command {
  /** Words after `assay`, e.g. ['score', 'grid']. */
  path: string[];
  summary: string;
  /** One usage line shown in help, without the leading `assay <path>`. */
  usage: string;
  options: OptionSpec;
  /** Allow positional arguments (default: none). */
  positionals?: boolean;
  /** Long-running commands (serve, worker) manage their own output and lifetime. */
  run(ctx: CommandContext): Promise<CommandResult | void>;
}
