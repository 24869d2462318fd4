import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openPglite, type Database } from '../../src/db/client.ts';
import { copyTemplateInto } from '../../src/db/pglite-template.ts';
import { seedCompleteFor, examplesDigest } from '../../src/services/seed-marker.ts';
import { EXAMPLES_DIR, seedExamples } from '../../src/services/seed.ts';
import { makeSeededTemplate, seededTemplateFor, usableSeededTemplate } from '../../src/services/seed-template.ts';

/**
 * The seeded template (a first `npm start` copies it instead of seeding) must hold what a seed writes:
 * every row of every table equal to a database seeded the ordinary way, timestamps aside.
 */

/** Not computed from the examples: how long the lexical judge took, and a ledger row's key (its grading session's random id). */
const VOLATILE = ['latency_ms', 'call_key'];

/** Every table of the public schema as sorted JSON rows, without its timestamp and measured columns. */
async function contents(database: Database): Promise<Record<string, string[]>> {
  const cols = await database.execute(
    `select table_name as t, string_agg(quote_ident(column_name), ', ' order by ordinal_position) as c
       from information_schema.columns
      where table_schema = 'public' and data_type not like 'timestamp%' and column_name <> all($1::text[])
      group by table_name order by table_name`,
    [VOLATILE],
  );
  const out: Record<string, string[]> = {};
  for (const { t, c } of cols.rows as Array<{ t: string; c: string }>) {
    const rows = await database.execute(`select ${c} from public.${t}`);
    out[t] = rows.rows.map((r) => JSON.stringify(r)).sort();
  }
  return out;
}

describe('the seeded template', () => {
  const root = mkdtempSync(join(tmpdir(), 'assay-seeded-'));
  const template = join(root, 'seeded-db');
  let seeded: Database;
  beforeAll(async () => {
    await makeSeededTemplate(template);
    seeded = await openPglite(undefined);
    await migrate(seeded);
    await seedExamples(seeded);
  }, 120_000);
  afterAll(async () => {
    await seeded?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('holds exactly the rows an ordinary seed writes, and remembers that its seed is complete', async () => {
    const dir = join(root, 'copy');
    expect(copyTemplateInto(dir, template)).toBe(true);
    const copy = await openPglite(dir);
    try {
      const [a, b] = [await contents(copy), await contents(seeded)];
      expect(Object.keys(a)).toEqual(Object.keys(b));
      expect(a.grades!.length).toBe(128);
      // Compared table by table, reporting the first differing row (a whole table would drown the message).
      for (const t of Object.keys(b)) {
        const differs = a[t]!.findIndex((row, i) => row !== b[t]![i]);
        expect({ t, n: a[t]!.length, first: differs < 0 ? null : [a[t]![differs], b[t]![differs]] }).toEqual({ t, n: b[t]!.length, first: null });
      }
      expect(await seedCompleteFor(copy, examplesDigest(EXAMPLES_DIR))).toBe(true);
      // So the server's seed call on it returns at once, writing nothing.
      expect(await seedExamples(copy)).toMatchObject({ seeded: false, grades: 0, labels: 0, panelGrades: 0 });
    } finally {
      await copy.close();
    }
  });

  it('is used only while its digest is current, and only for a directory without a database', () => {
    expect(usableSeededTemplate(template)).toBe(template);
    // From source (this test), the module's own default location holds none: the server seeds.
    expect(seededTemplateFor(join(root, 'new'))).toBeNull();
    expect(seededTemplateFor(template)).toBeNull();
    writeFileSync(`${template}.json`, JSON.stringify({ digest: 'made from other examples' }));
    expect(usableSeededTemplate(template)).toBeNull();
    rmSync(`${template}.json`);
    expect(usableSeededTemplate(template)).toBeNull();
  });
});
