import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';

/**
 * Opens the configured database (PGlite in ASSAY_DATA_DIR, or DATABASE_URL), migrates it, runs `fn`, and
 * closes it. Loaded lazily so commands that never touch the database start fast.
 *
 * `opening`: the database already being opened by openDatabaseEarly, so that the opening (PGlite's is
 * ~0.3 s, much of it reading files and compiling WebAssembly off the main thread) overlaps the command's
 * own module loading. It is then this function's to migrate and close, exactly as if it had opened it.
 * `service`: the command runs until stopped (`assay worker`), so an embedded engine it owns is tuned for
 * that rather than for a command that ends soon (src/db/client.ts, WASM_TIERING).
 *
 * `fn` also gets the configuration read at the start (the job queue's times for a command that starts it).
 *
 * @example
 * await withDatabase(async (database) => listRuns(database));
 */
export interface WithDatabaseOptions {
  opening?: Promise<Database>;
  service?: boolean;
}

export async function withDatabase<T>(fn: (database: Database, config: Config) => Promise<T>, o: WithDatabaseOptions = {}): Promise<T> {
  const { opening } = o;
  const { loadConfig, openConfiguredDatabase } = await import('../config.ts');
  const { migrateDatabase } = await import('../services/schema.ts');
  const config = loadConfig(process.env);
  // Tracing (when an OTLP endpoint is set) spans the command's grading; its buffer is sent before exit.
  const { startTelemetry } = await import('../telemetry.ts');
  const stopTelemetry = await startTelemetry(config);
  let database: Database;
  try {
    database = await (opening ?? openConfiguredDatabase(config, { shortLived: !o.service }));
  } catch (e) {
    await stopTelemetry();
    throw e;
  }
  try {
    await migrateDatabase(database, config.jobs.queue);
    return await fn(database, config);
  } finally {
    await database.close();
    await stopTelemetry();
  }
}

/**
 * Starts opening the configured database now, for withDatabase to use. Call it only once every check of
 * the command's input has passed (opening a new PGlite directory creates it: bad input must change
 * nothing), and hand the promise to withDatabase on every path after it.
 */
export async function openDatabaseEarly(): Promise<{ opening: Promise<Database> }> {
  const { loadConfig, openConfiguredDatabase } = await import('../config.ts');
  const opening = openConfiguredDatabase(loadConfig(process.env), { shortLived: true });
  // Awaited by withDatabase; until then a failure must not surface as an unhandled rejection.
  opening.catch(() => {});
  // In an object: an async function returning the promise itself would wait for the opening.
  return { opening };
}
