import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { answerClientErrors } from './api/client-error.ts';
import { type Config, providerKeys } from './config.ts';
import type { Database } from './db/client.ts';
import { defaultJudge } from './services/grading/default-judge.ts';
import type { GradingQueue } from './services/grading/queue.ts';

/**
 * Startup shared by `npm start` and `assay serve`: migrate, seed the bundled examples into an empty
 * database, make sure an admin key exists (printing a new one once), then listen.
 */

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Listens with the real Node adapter (body limits and chunked uploads behave as in production). */
export async function listen(fetch: (req: Request) => Response | Promise<Response>, host: string, port: number): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch, hostname: host, port }, (info: AddressInfo) => {
      const shownHost = host.includes(':') ? `[${host}]` : host;
      resolve({
        url: `http://${shownHost}:${info.port}`,
        port: info.port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            // Idle keep-alive sockets would hold close() open; in-flight requests still finish.
            (server as { closeIdleConnections?: () => void }).closeIdleConnections?.();
          }),
      });
    });
    // Requests Node's parser rejects (malformed Content-Length…) get the JSON envelope too.
    answerClientErrors(server);
    server.once('error', reject);
  });
}

export interface StartedService {
  server: RunningServer;
  database: Database;
  /** The admin key created on this start, if there was none (shown once, never stored in clear). */
  adminKey: string | null;
  seeded: boolean;
  /** The grading queue of the API's /api/runs and /api/jobs routes (stopped by stop()). */
  queue: GradingQueue;
  stop(): Promise<void>;
}

export async function startService(config: Config, opts: { seed?: boolean } = {}): Promise<StartedService> {
  const { openConfiguredDatabase } = await import('./config.ts');
  const { describeOwner } = await import('./db/pglite-owner.ts');
  // A new embedded database that would be seeded starts as a copy of the build's seeded one (seed-template.ts).
  const seedFrom = opts.seed === false || config.databaseUrl ? null : (await import('./services/seed-template.ts')).seededTemplateFor(config.dataDir);
  // The database opens (PGlite compiles its WebAssembly on background threads) while the app's modules
  // load. A short command owning the directory (an import) is waited for: leaning on it, the server
  // would lose its database when the command ends.
  const opening = openConfiguredDatabase(config, {
    waitForShortLivedOwner: (o) => process.stderr.write(`assay: waiting for ${describeOwner(o)} to finish with ${config.dataDir}…\n`),
    ...(seedFrom ? { template: seedFrom } : {}),
  });
  const modules = Promise.all([import('./services/schema.ts'), import('./app.ts'), import('./services/keys.ts'), import('./services/grading/queue.ts')]);
  // Awaited together: a failed open is reported even while the modules load (and the other way round).
  const [database, [{ migrateDatabase }, { createApp }, { createKey, hasActiveAdminKey }, { gradingQueue }]] = await Promise.all([opening, modules]).catch(async (e: unknown) => {
    await opening.then((d) => d.close(), () => {});
    throw e;
  });
  try {
    await migrateDatabase(database, config.jobs.queue);
    const seeded = opts.seed === false ? false : (await seedIfEmpty(database)) || seedFrom !== null;
    const adminKey = (await hasActiveAdminKey(database))
      ? null
      : (await createKey(database, { scopes: ['admin'], name: 'initial admin key (created by npm start)' })).key;
    // The server only enqueues (workers grade): pg-boss starts on the first queue request, with no
    // maintenance of its own, and stops with the server.
    const queue = gradingQueue(database, { ...config.jobs.queue, supervise: false });
    const app = createApp({ database, config, queue });
    const server = await listen(app.fetch, config.host, config.port);
    return {
      server,
      database,
      queue,
      adminKey,
      seeded,
      stop: async () => {
        await server.close();
        await queue.stop();
        await database.close();
      },
    };
  } catch (e) {
    await database.close();
    throw e;
  }
}

/** Loads the bundled examples when the database holds no rubrics, puzzles or runs yet. */
async function seedIfEmpty(database: Database): Promise<boolean> {
  const { seedExamples } = await import('./services/seed.ts');
  return (await seedExamples(database)).seeded;
}

/**
 * Prints the banner, then serves until SIGINT/SIGTERM, closing the server and the database. Also stops
 * when npm, if it started us, is gone (see parent-watch.ts), and when the process owning the PGlite
 * directory this server reaches through it stops (exit 1: restarted, this process becomes the owner).
 */
export async function runUntilSignal(config: Config, out: (line: string) => void = (l) => process.stdout.write(l + '\n')): Promise<void> {
  // Tracing (when an OTLP endpoint is set) before the service, so the seed's and the queue's grading is traced.
  const { startTelemetry } = await import('./telemetry.ts');
  const stopTelemetry = await startTelemetry(config);
  const svc = await startService(config);
  const { startedByNpm, watchAncestors } = await import('./parent-watch.ts');
  // Handlers go in before the banner: a supervisor that signals as soon as it reads "listening" must
  // get a clean shutdown, not the default SIGTERM death.
  let unwatch = () => {};
  const stopped = new Promise<void>((resolve) => {
    let once = false;
    const stop = (why?: string) => {
      if (once) return;
      once = true;
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      unwatch();
      out(why ? `Shutting down: ${why}…` : 'Shutting down…');
      svc.stop().then(stopTelemetry, stopTelemetry).then(resolve, resolve);
    };
    const onSignal = () => stop();
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    if (startedByNpm()) unwatch = watchAncestors((why) => stop(why));
    svc.database.owner?.lost.then(() => {
      process.exitCode = 1;
      stop(`the process owning ${config.dataDir} (pid ${svc.database.owner!.info.pid}) stopped; start this server again`);
    });
  });
  if (svc.seeded) out('Loaded the bundled examples into the empty database.');
  if (svc.adminKey) {
    out('Created an admin API key. It is shown only now; store it somewhere safe:');
    out(`  ${svc.adminKey}`);
    out('(more keys: assay keys create --scope read|write|admin|annotate)');
  }
  out(`Database: ${databaseLine(svc.database, config)}`);
  out(`Judge: ${defaultJudge(providerKeys(config)).description}`);
  out(`assay listening on ${svc.server.url}  (API docs: ${svc.server.url}/docs)`);
  await stopped;
}

function databaseLine(database: Database, config: Config): string {
  if (database.kind === 'postgres' && !database.owner) return 'PostgreSQL (DATABASE_URL)';
  if (database.owner) return `embedded PGlite in ${config.dataDir}, reached through the process that owns it (pid ${database.owner.info.pid})`;
  return `embedded PGlite in ${config.dataDir} (pid ${process.pid} owns it; other assay commands reach it through this process)`;
}
