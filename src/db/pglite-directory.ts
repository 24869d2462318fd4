import { mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
import { AssayError } from '../domain/errors.ts';
import { openPglite, openPostgres, type Database } from './client.ts';
import { claimOwnership, describeOwner, isLive, isLongRunning, type OwnerInfo, type OwnerLock } from './pglite-owner.ts';
import { serveOverSocket } from './pglite-socket-server.ts';

/**
 * Opening a PGlite data directory: become its owner (lock, engine, socket), or reach the owner that
 * holds it through its socket, or fail with one line naming the owner. Never a second engine on the
 * same files: that is how a write could be "done" in one process and absent from the other.
 */

export interface DirectoryOptions {
  /** How long to wait for an owner that is still starting (no socket published yet). */
  waitMs?: number;
  /** A socket client holding a transaction this long without a message is disconnected. */
  idleMs?: number;
  /**
   * Given: an owner that is a short-lived command (an import, `keys create`) is waited for, so that this
   * process — a server — owns the directory rather than lose it when that command ends. Called once.
   */
  waitForShortLivedOwner?: (owner: OwnerInfo) => void;
  /** The template a new directory starts as a copy of, when this process becomes its owner. */
  template?: string;
  /** This process is a command that ends soon (client.ts, WASM_TIERING), when it becomes the owner. */
  shortLived?: boolean;
}

/** An owner that published its socket gets this many probes (100 ms apart) before it counts as unreachable. */
const PROBES = 10;

export async function openPgliteDirectory(dataDir: string, o: DirectoryOptions = {}): Promise<Database> {
  mkdirSync(dataDir, { recursive: true });
  const deadline = Date.now() + (o.waitMs ?? 30_000);
  let misses = 0;
  let token = '';
  let waitedFor = '';
  for (;;) {
    const claim = claimOwnership(dataDir);
    if (claim.owned) return openAsOwner(dataDir, claim.lock, o);
    const owner = claim.owner;
    if (o.waitForShortLivedOwner && !isLongRunning(owner)) {
      if (owner.token !== waitedFor) o.waitForShortLivedOwner(owner);
      waitedFor = owner.token;
      await new Promise((r) => setTimeout(r, 250));
      continue;
    }
    if (owner.token !== token) misses = 0;
    token = owner.token;
    if (owner.socket && (await answers(owner.socket))) {
      try {
        return await openThroughOwner(dataDir, owner);
      } catch {
        // The owner stopped between the probe and the connection: look again.
      }
    }
    if (owner.socket) misses++;
    if (misses >= PROBES || Date.now() > deadline) throw unreachable(dataDir, owner);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function unreachable(dataDir: string, owner: OwnerInfo): AssayError {
  return new AssayError(
    'unavailable',
    `the PGlite directory ${dataDir} is in use by assay ${describeOwner(owner)}, which does not answer: nothing was done. ` +
      'Stop that process (or wait for it), or use the running server through its API, or use PostgreSQL (DATABASE_URL)',
  );
}

async function openAsOwner(dataDir: string, lock: OwnerLock, o: DirectoryOptions): Promise<Database> {
  let engine: Database | undefined;
  try {
    engine = await openPglite(dataDir, { ...(o.template ? { template: o.template } : {}), ...(o.shortLived ? { shortLived: true } : {}) });
    const pg = (engine.db as unknown as { $client: PGlite }).$client;
    const server = await serveOverSocket(pg, dataDir, { ...(o.idleMs !== undefined ? { idleMs: o.idleMs } : {}) });
    lock.publish(server.path);
    const inner = engine;
    let closing: Promise<void> | undefined;
    return {
      ...inner,
      pgliteDir: dataDir,
      close: () =>
        (closing ??= (async () => {
          try {
            // Clients first: their open transactions roll back before the engine closes.
            await server.stop();
            await inner.close();
          } finally {
            lock.release();
          }
        })()),
    };
  } catch (e) {
    await engine?.close().catch(() => {});
    lock.release();
    throw e;
  }
}

async function openThroughOwner(dataDir: string, owner: OwnerInfo): Promise<Database> {
  // One connection, as the owner runs one statement at a time anyway; the user and database names are
  // PGlite's defaults (it has no authentication).
  const database = await openPostgres('postgres://postgres@localhost/postgres', 1, { path: owner.socket!, prepare: false });
  try {
    await database.execute('select 1');
  } catch (e) {
    await database.close().catch(() => {});
    throw e;
  }
  let timer: NodeJS.Timeout | undefined;
  const lost = new Promise<void>((resolve) => {
    timer = setInterval(() => {
      if (isLive(owner)) return;
      clearInterval(timer);
      resolve();
    }, 1000);
    timer.unref();
  });
  return {
    ...database,
    pgliteDir: dataDir,
    owner: { info: owner, lost },
    close: async () => {
      clearInterval(timer);
      await database.close();
    },
  };
}

/** Whether something accepts connections on the socket (a killed owner leaves the file behind). */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
