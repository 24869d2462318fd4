import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/**
 * One owner per PGlite data directory (design §5). Two processes opening the same directory would each
 * run their own Postgres on the same files: writes of one are invisible to the other and the directory
 * can be corrupted. The owner holds a lock file; every other assay process reaches the database through
 * the owner's socket, or stops.
 *
 * The lock is a generation file `<dataDir>/assay-owner/<n>.json`; the highest generation is the
 * owner's, if its process lives. Claiming writes the whole file under a temporary name and links it
 * to the next generation: `link` fails when the name exists, so of two processes taking over the same
 * stale lock exactly one gets the generation. A claimer then lists again and steps back if a higher
 * generation appeared (possible only when a slow claimer's listing predates a cleanup), so no two live
 * processes ever both hold the top generation.
 */

export const OWNER_DIR = 'assay-owner';

export interface OwnerInfo {
  generation: number;
  pid: number;
  /** Linux: the process's start time in clock ticks after boot, so a reused pid is not taken for the owner. */
  startTicks: number | null;
  host: string;
  startedAt: string;
  /** What the owner runs, for the message a blocked process prints. */
  command: string;
  /** The Unix socket the owner serves the database on; null while it is starting. */
  socket: string | null;
  token: string;
}

export interface OwnerLock {
  readonly info: OwnerInfo;
  /** Records the socket once it listens (atomically: readers see the old or the new file). */
  publish(socket: string): void;
  release(): void;
}

export type Claim = { owned: true; lock: OwnerLock } | { owned: false; owner: OwnerInfo };

/** Tokens of the locks this process holds: a lock naming our own pid is live only if it is one of them. */
const heldHere = new Map<string, () => void>();
let exitHook = false;

export function claimOwnership(dataDir: string, command = describeProcess()): Claim {
  return claimLock(join(dataDir, OWNER_DIR), command);
}

/**
 * The same claim on any lock directory: also the cross-process named locks of `withExclusive` on PGlite
 * (an advisory lock cannot be one there, since every client shares the owner's single session).
 */
export function claimLock(dir: string, command = describeProcess()): Claim {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 100; attempt++) {
    const top = generations(dir)[0];
    if (top !== undefined) {
      const info = readOwner(dir, top);
      if (!info) continue; // removed while we looked: list again
      if (isLive(info)) return { owned: false, owner: info };
    }
    const generation = (top ?? 0) + 1;
    const info: OwnerInfo = {
      generation,
      pid: process.pid,
      startTicks: startTicksOf(process.pid),
      host: hostname(),
      startedAt: new Date().toISOString(),
      command,
      socket: null,
      token: randomBytes(12).toString('hex'),
    };
    if (!writeExclusive(dir, generation, info)) continue;
    if ((generations(dir)[0] ?? 0) > generation) {
      removeQuietly(fileOf(dir, generation));
      continue;
    }
    // Lower generations are stale by construction (their owners were dead when we claimed).
    for (const g of generations(dir)) if (g < generation) removeQuietly(fileOf(dir, g));
    return { owned: true, lock: holdLock(dir, info) };
  }
  throw new Error(`could not claim ${dir}: its lock files keep changing`);
}

/** The current owner of a directory, if a live one holds it. */
export function currentOwner(dataDir: string): OwnerInfo | null {
  const dir = join(dataDir, OWNER_DIR);
  const top = safeGenerations(dir)[0];
  if (top === undefined) return null;
  const info = readOwner(dir, top);
  return info && isLive(info) ? info : null;
}

/**
 * Servers, workers and grading runs stay a while; any other command is done soon (a server would rather
 * wait for it than lean on it and stop with it).
 */
export function isLongRunning(o: OwnerInfo): boolean {
  return /^(npm start|assay (serve|server|worker|run))\b/.test(o.command);
}

/** One line naming an owner, for messages. */
export function describeOwner(o: OwnerInfo): string {
  const where = o.host === hostname() ? '' : ` on ${o.host}`;
  return `pid ${o.pid}${where} (${o.command}, since ${o.startedAt}${o.socket ? `, socket ${o.socket}` : ', still starting'})`;
}

export function isLive(info: OwnerInfo): boolean {
  // Another machine sharing the directory: its pids mean nothing here, so assume it is running.
  if (info.host !== hostname()) return true;
  if (info.pid === process.pid) return heldHere.has(info.token);
  try {
    process.kill(info.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const ticks = startTicksOf(info.pid);
  return info.startTicks === null || ticks === null || ticks === info.startTicks;
}

function holdLock(dir: string, first: OwnerInfo): OwnerLock {
  let info = first;
  const file = fileOf(dir, info.generation);
  const release = () => {
    heldHere.delete(info.token);
    // Only our own file: never one a later owner wrote (it cannot exist while we hold, but be sure).
    if (readOwner(dir, info.generation)?.token === info.token) removeQuietly(file);
  };
  heldHere.set(info.token, release);
  if (!exitHook) {
    exitHook = true;
    // A normal exit that skipped close() still frees the directory.
    process.once('exit', () => {
      for (const r of [...heldHere.values()]) r();
    });
  }
  return {
    get info() {
      return info;
    },
    publish(socket) {
      info = { ...info, socket };
      const tmp = join(dir, `.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
      writeFileSync(tmp, JSON.stringify(info, null, 2) + '\n', { mode: 0o600 });
      renameSync(tmp, file);
    },
    release,
  };
}

function writeExclusive(dir: string, generation: number, info: OwnerInfo): boolean {
  const tmp = join(dir, `.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
  writeFileSync(tmp, JSON.stringify(info, null, 2) + '\n', { mode: 0o600 });
  try {
    linkSync(tmp, fileOf(dir, generation));
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  } finally {
    removeQuietly(tmp);
  }
}

const fileOf = (dir: string, generation: number) => join(dir, `${generation}.json`);

/** Generation numbers present, highest first. */
function generations(dir: string): number[] {
  return readdirSync(dir)
    .map((f) => /^(\d+)\.json$/.exec(f)?.[1])
    .filter((g): g is string => g !== undefined)
    .map(Number)
    .sort((a, b) => b - a);
}

function safeGenerations(dir: string): number[] {
  try {
    return generations(dir);
  } catch {
    return [];
  }
}

function readOwner(dir: string, generation: number): OwnerInfo | null {
  try {
    const o = JSON.parse(readFileSync(fileOf(dir, generation), 'utf8')) as OwnerInfo;
    return typeof o.pid === 'number' && typeof o.token === 'string' ? { ...o, generation } : null;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    // Written whole through link/rename, so unreadable means edited by hand: treat it as a live owner
    // we cannot name rather than overwrite it.
    return { generation, pid: -1, startTicks: null, host: `unreadable lock ${fileOf(dir, generation)}`, startedAt: '?', command: '?', socket: null, token: '' };
  }
}

function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}

/** Field 22 of /proc/<pid>/stat (start time); null where there is no /proc. */
export function startTicksOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const t = Number(fields[19]);
    return Number.isFinite(t) ? t : null;
  } catch {
    return null;
  }
}

function describeProcess(): string {
  const script = process.argv[1] ?? '';
  // From source (src/…/main.ts) or from the build (dist/…/main.js).
  if (/cli[/\\]main\.[jt]s$/.test(script)) {
    const args = process.argv.slice(2);
    const firstFlag = args.findIndex((a) => a.startsWith('-'));
    return `assay ${args.slice(0, firstFlag < 0 ? 2 : Math.min(firstFlag, 2)).join(' ')}`.trim();
  }
  // npm_lifecycle_event leaks into everything below npm and npx, so it only names the server itself.
  if (/(src|dist)[/\\]main\.[jt]s$/.test(script)) return process.env.npm_lifecycle_event === 'start' ? 'npm start' : 'assay server';
  return script ? `node ${script}` : 'node';
}
