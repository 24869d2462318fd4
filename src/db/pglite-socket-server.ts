import { chmodSync, mkdtempSync, realpathSync, rmSync, unlinkSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { ConversationQueue } from './pglite-conversation.ts';
import { OWNER_DIR } from './pglite-owner.ts';

/**
 * The owner's side of a PGlite directory: the embedded engine served over the Postgres wire protocol on
 * a Unix socket (pglite-socket's message handler, our conversation queue). A Unix socket rather than
 * TCP: its directory is 0700 and the socket 0600, so only the owner's user can connect — PGlite has no
 * passwords, and a TCP port on 127.0.0.1 would be open to every local user.
 *
 * The socket is named `.s.PGSQL.5432`, as PostgreSQL names its own, so `psql -h <its directory>` and a
 * libpq-style DATABASE_URL (`postgres://postgres@/postgres?host=<dir>`) reach it too.
 */

export interface SocketServer {
  readonly path: string;
  /** Disconnects every client (their open transactions roll back) and stops listening. */
  stop(): Promise<void>;
}

/** Unix socket paths are limited to 107 bytes (sun_path); PostgreSQL's own limit leaves room. */
const MAX_SOCKET_PATH = 100;
const SOCKET_NAME = '.s.PGSQL.5432';
export const CLIENT_IDLE_MS = 60_000;

export async function serveOverSocket(pg: PGlite, dataDir: string, opts: { idleMs?: number } = {}): Promise<SocketServer> {
  const { PGLiteSocketHandler } = await import('@electric-sql/pglite-socket');
  const { dir, temporary } = socketDir(dataDir);
  const path = join(dir, SOCKET_NAME);
  // A socket file left by an owner that was killed: we hold the lock now, so nobody listens on it.
  try {
    unlinkSync(path);
  } catch {
    // none
  }
  type Handler = InstanceType<typeof PGLiteSocketHandler>;
  const clients = new Map<number, { handler: Handler; socket: Socket }>();
  const queue = new ConversationQueue(pg, { idleMs: opts.idleMs ?? CLIENT_IDLE_MS, onIdle: (id) => clients.get(id)?.socket.destroy() });
  let stopping = false;
  const server = createServer((socket) => {
    if (stopping) return void socket.destroy();
    const handler = new PGLiteSocketHandler({ queryQueue: queue as never, closeOnDetach: true });
    clients.set(handler.handlerId, { handler, socket });
    const forget = () => clients.delete(handler.handlerId);
    handler.addEventListener('close', forget);
    handler.addEventListener('error', forget);
    handler.attach(socket).catch(() => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  chmodSync(path, 0o600);
  return {
    path,
    async stop() {
      stopping = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([...clients.values()].map(({ handler }) => handler.detach(true)));
      clients.clear();
      await closed;
      if (temporary) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The lock directory itself (0700), or a private directory under the system's temp dir when that path is too long. */
function socketDir(dataDir: string): { dir: string; temporary: boolean } {
  const dir = join(realpathSync(dataDir), OWNER_DIR);
  if (join(dir, SOCKET_NAME).length <= MAX_SOCKET_PATH) return { dir, temporary: false };
  return { dir: mkdtempSync(join(tmpdir(), 'assay-')), temporary: true };
}
