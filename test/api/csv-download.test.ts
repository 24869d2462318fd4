import { beforeAll, expect, it } from 'vitest';
import { describeDb } from '../helpers/db.ts';
import { ANSWERS, seedRun, TEXT } from '../services/export-fixture.ts';
import { useApi } from './app-fixture.ts';

/**
 * The CSV downloads of the API (Accept: text/csv) hold exactly the rows and fields of the JSON answer:
 * text with quotes, commas, CR/LF, unicode and a leading '=' as written (no formula escaping alters it),
 * and an empty string told apart from null ("" against an empty field, as PostgreSQL's COPY writes them).
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** RFC 4180, keeping the difference between an empty quoted field ('') and an empty field (null). */
function parseCsv(text: string): Array<Array<string | null>> {
  const rows: Array<Array<string | null>> = [];
  let row: Array<string | null> = [];
  let i = 0;
  while (i < text.length) {
    let field: string | null;
    if (text[i] === '"') {
      let s = '';
      i++;
      for (;;) {
        if (text[i] === '"' && text[i + 1] === '"') (s += '"'), (i += 2);
        else if (text[i] === '"') break;
        else s += text[i++];
      }
      i++;
      field = s;
    } else {
      let j = i;
      while (j < text.length && text[j] !== ',' && text[j] !== '\r') j++;
      field = j === i ? null : text.slice(i, j);
      i = j;
    }
    row.push(field);
    if (text[i] === ',') i++;
    else if (text.startsWith('\r\n', i)) (rows.push(row), (row = []), (i += 2));
    else if (i < text.length) throw new Error(`bad CSV at ${i}`);
  }
  return rows;
}

/** A JSON value as the CSV writes it: null stays null, objects as JSON, the rest as strings. */
const asCsv = (v: unknown): string | null => (v === null || v === undefined ? null : typeof v === 'object' ? JSON.stringify(v) : String(v));

describeDb('API CSV downloads', (ctx) => {
  const api = useApi(ctx);
  beforeAll(async () => {
    await seedRun(ctx.database);
  }, 60_000);

  const both = async (path: string): Promise<{ json: Json; csv: Array<Array<string | null>> }> => {
    const json = (await (await api.call(api.keys.read, 'GET', path)).json()) as Json;
    const res = await api.call(api.keys.read, 'GET', path, { headers: { accept: 'text/csv' } });
    expect(res.status).toBe(200);
    return { json, csv: parseCsv(await res.text()) };
  };

  it('GET /api/answers as CSV: every field of the JSON page, "" apart from null', async () => {
    const { json, csv } = await both('/api/answers?run=rt-run&limit=10');
    const [header, ...rows] = csv;
    expect(rows).toHaveLength(ANSWERS.length);
    expect(rows).toEqual(json.items.map((a: Json) => header!.map((c) => asCsv(a[c!]))));
    const text = header!.indexOf('text');
    expect(rows.map((r) => r[text])).toEqual([TEXT, '', 'x'.repeat(200_000), null]);
  });

  it('GET /api/grades as CSV, page by page: every grade of the JSON walk once, "" apart from null', async () => {
    const walk = async (csv: boolean) => {
      const out: unknown[] = [];
      let cursor: string | null = null;
      do {
        const path = `/api/grades?run=rt-run&limit=1${cursor ? `&cursor=${cursor}` : ''}`;
        if (csv) {
          const res = await api.call(api.keys.read, 'GET', path, { headers: { accept: 'text/csv' } });
          const [header, ...rows] = parseCsv(await res.text());
          out.push(...rows.map((r) => Object.fromEntries(header!.map((c, i) => [c, r[i]]))));
          cursor = res.headers.get('x-next-cursor');
        } else {
          const page = (await (await api.call(api.keys.read, 'GET', path)).json()) as Json;
          out.push(...page.items.map((g: Json) => Object.fromEntries(Object.entries(g).map(([k, v]) => [k, asCsv(v)]))));
          cursor = page.nextCursor;
        }
      } while (cursor);
      return out;
    };
    const csv = await walk(true);
    expect(csv).toHaveLength(4);
    expect(csv).toEqual(await walk(false));
  });
});
