import type { Database } from '../db/client.ts';

/**
 * Opens the configured database (PGlite in ASSAY_DATA_DIR, or DATABASE_URL), migrates it, runs `fn`, and
 * closes it. Loaded lazily so commands that never touch the database start fast.
 */
export async function withDatabase<T>(fn: (database: Database) => Promise<T>): Promise<T> {
  const { loadConfig, openConfiguredDatabase } = await import('../config.ts');
  const { migrateDatabase } = await import('../services/schema.ts');
  const config = loadConfig(process.env);
  // Tracing (when an OTLP endpoint is set) spans the command's grading; its buffer is sent before exit.
  const { startTelemetry } = await import('../telemetry.ts');
  const stopTelemetry = await startTelemetry(config);
  const database = await openConfiguredDatabase(config);
  try {
    await migrateDatabase(database);
    return await fn(database);
  } finally {
    await database.close();
    await stopTelemetry();
  }
}
