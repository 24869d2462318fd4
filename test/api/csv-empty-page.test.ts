import { beforeAll, expect, it } from 'vitest';
import { seedExamples } from '../../src/services/seed.ts';
import { describeDb } from '../helpers/db.ts';
import { useApi } from './app-fixture.ts';

/**
 * A list's CSV (Accept: text/csv) has its header row also when the page is empty (a filter matching no
 * rows, an offset past the last row), the same columns as a page with rows: docs/http-api.md promises a
 * header row. Before, the header was the union of the rows' keys, so an empty page was one blank line
 * ("\r\n"), which CSV readers take for a file without columns, or for one row of one empty field.
 */

describeDb('CSV of an empty page', (ctx) => {
  const api = useApi(ctx);
  const csv = async (path: string, key: 'read' | 'annotate' = 'read') => {
    const res = await api.call(api.keys[key], 'GET', path, { headers: { accept: 'text/csv' } });
    const text = await res.text();
    expect([path, res.status]).toEqual([path, 200]);
    return text.split('\r\n');
  };
  beforeAll(async () => {
    await seedExamples(ctx.database);
  }, 180_000);

  it('has the header of a full page, and no row', async () => {
    const lists: Array<[string, string, 'read' | 'annotate']> = [
      ['/api/answers?limit=1', '/api/answers?offset=100000', 'read'],
      ['/api/assemblies?limit=1', '/api/assemblies?offset=100000', 'read'],
      ['/api/rubrics?limit=1', '/api/rubrics?offset=100000', 'read'],
      ['/api/puzzles?limit=1', '/api/puzzles?offset=100000', 'read'],
      ['/api/runs?limit=1', '/api/runs?offset=100000', 'read'],
      ['/api/labels?limit=1', '/api/labels?offset=100000', 'read'],
      ['/api/annotations/queue?limit=1', '/api/annotations/queue?offset=100000', 'annotate'],
      ['/api/grades?limit=1', '/api/grades?status=parse_failure', 'read'],
    ];
    for (const [full, empty, key] of lists) {
      const [header, row] = await csv(full, key);
      expect(header, full).toMatch(/^[A-Za-z][A-Za-z0-9]*(,[A-Za-z][A-Za-z0-9]*)+$/);
      expect(row, full).not.toBe('');
      // The columns of the item schema (its order; a page with rows has its rows' key order).
      const [emptyHeader, ...rest] = await csv(empty, key);
      expect([emptyHeader!.split(',').sort(), rest], empty).toEqual([header!.split(',').sort(), ['']]);
    }
  });
});
