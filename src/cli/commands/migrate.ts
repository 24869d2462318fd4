import type { Command } from '../command.ts';
import { keyValues } from '../table.ts';

/** `assay migrate`: applies migrations/ to the configured database (DATABASE_URL, else PGlite in ASSAY_DATA_DIR). */
const migrate: Command = {
  path: ['migrate'],
  summary: 'Apply the database migrations (PostgreSQL via DATABASE_URL, else embedded PGlite in ASSAY_DATA_DIR)',
  usage: '',
  options: {},
  async run() {
    const { loadConfig, openConfiguredDatabase } = await import('../../config.ts');
    const { appliedMigrations } = await import('../../db/client.ts');
    const { migrateDatabase: apply } = await import('../../services/schema.ts');
    const config = loadConfig(process.env);
    const database = await openConfiguredDatabase(config);
    try {
      const before = await appliedMigrations(database);
      await apply(database, config.jobs.queue);
      const after = await appliedMigrations(database);
      const doc = {
        // A PGlite directory reached through its owner's socket is still PGlite.
        engine: database.pgliteDir ? 'pglite' : database.kind,
        database: database.kind === 'postgres' && !database.pgliteDir ? redact(config.databaseUrl!) : config.dataDir,
        applied: after - before,
        total: after,
      };
      return { json: doc, text: keyValues(Object.entries(doc)) };
    } finally {
      await database.close();
    }
  },
};

/** Never print a password from DATABASE_URL. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://…';
  }
}

export default migrate;
