import { isAssayError, isOutsideFailure } from '../domain/errors.ts';

/**
 * What a failed command prints and its exit status (design §3): 2 and one line for anything the user
 * can fix — bad flags, files, values, an unreachable or misconfigured database — and 1 with the stack
 * for our own failures. Messages are flattened to one line: a line break inside a library's message
 * must not turn one error into several lines a script has to parse.
 */

export interface Failure {
  exitCode: 1 | 2;
  /** Printed after "assay <command>: ". */
  message: string;
}

export const oneLine = (s: string): string => s.replace(/\s*[\r\n]+\s*/g, ' ').trim();

const CONNECT_ERRNO = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']);
/** PostgreSQL: invalid password / authorization, unknown database or role. */
const CONNECT_SQLSTATE = new Set(['28P01', '28000', '3D000']);
/** Data-directory problems from creating or opening ASSAY_DATA_DIR. */
const DATA_DIR_ERRNO = new Set(['EEXIST', 'ENOTDIR', 'EACCES', 'EPERM', 'EROFS']);

interface Errish {
  code?: unknown;
  errno?: unknown;
  syscall?: unknown;
  path?: unknown;
  message?: unknown;
  cause?: unknown;
}

/** The error and its causes (drizzle wraps the driver's error as `cause`). */
function chain(e: unknown): Errish[] {
  const out: Errish[] = [];
  for (let x: unknown = e, i = 0; x && typeof x === 'object' && i < 5; x = (x as Errish).cause, i++) out.push(x as Errish);
  return out;
}

const firstLine = (m: unknown) => String(m ?? '').split('\n')[0]!.trim();

/** postgres.js when the server (or the PGlite owner we reached it through) went away mid-command. */
const CLOSED_CODES = new Set(['CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED']);

export function classify(e: unknown): Failure {
  if (isAssayError(e) && e.code !== 'internal') return { exitCode: 2, message: oneLine(e.message) };
  // A provider refusing or failing a batch call is no bug of ours, nor bad input (intents may be written):
  // the work did not succeed (exit 1), in one line saying what to check.
  if (isOutsideFailure(e)) return { exitCode: 1, message: oneLine(e.describe()) };
  for (const x of chain(e)) {
    const code = typeof x.code === 'string' ? x.code : '';
    // The database going away mid-command is neither the user's input nor a bug of ours: one line,
    // exit 1, so a script retries rather than fixes its arguments.
    if (CLOSED_CODES.has(code)) {
      return { exitCode: 1, message: 'database: the connection closed while the command ran (the database server, or the process owning the PGlite directory, stopped); run the command again' };
    }
    if (CONNECT_ERRNO.has(code) || CONNECT_SQLSTATE.has(code)) {
      return { exitCode: 2, message: `database: cannot connect (${code}: ${oneLine(firstLine(x.message))}); check DATABASE_URL` };
    }
    if (DATA_DIR_ERRNO.has(code) && x.syscall === 'mkdir') {
      return { exitCode: 2, message: `ASSAY_DATA_DIR ${String(x.path)}: cannot be used as the data directory (${code})` };
    }
    // SQLSTATE class 22 (data exception: a malformed uuid, an integer out of range, a NUL byte) is a
    // value the user gave that no check caught before the database: still bad input, and the
    // statement failed, so nothing was written by it.
    if (/^22[0-9A-Z]{3}$/.test(code)) return { exitCode: 2, message: `value refused by the database: ${oneLine(firstLine(x.message))}` };
  }
  return { exitCode: 1, message: `internal error: ${String((e as Error)?.stack ?? e)}` };
}
