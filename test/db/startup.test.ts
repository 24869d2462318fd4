import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openPglite, schemaIsCurrent, type Database } from '../../src/db/client.ts';
import { copyTemplateInto, ensureTemplate, templateDir } from '../../src/db/pglite-template.ts';

/** Opening the embedded database cheaply: the migration version check and the initdb template. */

describe('schemaIsCurrent (migrate skips a database already at the journal)', () => {
  let database: Database;
  beforeAll(async () => {
    database = await openPglite(undefined);
  });
  afterAll(() => database.close());

  it('false before the first migration, true after, false again once a recorded migration is missing', async () => {
    expect(await schemaIsCurrent(database)).toBe(false);
    await migrate(database);
    expect(await schemaIsCurrent(database)).toBe(true);
    await database.execute('delete from drizzle.__drizzle_migrations where created_at = (select max(created_at) from drizzle.__drizzle_migrations)');
    expect(await schemaIsCurrent(database)).toBe(false);
  });

  it('the shared_buffers setting reaches the engine', async () => {
    const r = await database.execute('show shared_buffers');
    expect(r.rows[0].shared_buffers).toBe('16MB');
  });
});

describe('PGlite template', () => {
  const root = mkdtempSync(join(tmpdir(), 'assay-template-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('an empty directory is filled from it (marker last) and opens as a database; a database is left alone', async () => {
    await ensureTemplate();
    const dir = join(root, 'data');
    expect(copyTemplateInto(dir)).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(readdirSync(templateDir()).sort());
    expect(copyTemplateInto(dir)).toBe(false);
    const database = await openPglite(dir);
    try {
      await migrate(database);
      expect(await schemaIsCurrent(database)).toBe(true);
    } finally {
      await database.close();
    }
  });
});
