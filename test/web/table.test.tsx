import { describe, expect, it } from 'vitest';
import { DataTable, type Table } from '../../src/web/table.tsx';

/** A row type as the services write them: an interface, which has no implicit index signature. */
interface ScoreRow {
  id: number;
  model: string;
  f1: number | null;
  f1Low: number | null;
  f1High: number | null;
  tags: string[];
}

const rows: ScoreRow[] = [
  { id: 7, model: 'm-a', f1: 0.5, f1Low: 0.25, f1High: 0.75, tags: ['x', 'y'] },
  { id: 9, model: 'm&b', f1: null, f1Low: null, f1High: null, tags: [] },
];

const render = async (table: Table) => String(await (<DataTable table={table} search={new URLSearchParams('run=r1')} />).toString());
const cells = (html: string) => [...html.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((m) => m[1]);

describe('DataTable over interface-typed rows (no cast)', () => {
  it('a Table<ScoreRow> gives its callbacks typed rows and is a Table for the page', async () => {
    const typed: Table<ScoreRow> = {
      id: 'scores',
      caption: 'Scores',
      columns: [
        { key: 'model', label: 'Model', href: (r) => `/answers/${r.id.toFixed(0)}` },
        { key: 'f1', label: 'F1', kind: 'ci' },
        { key: 'tags', label: 'Tags', render: (r) => r.tags.join(', ') || 'plain' },
      ],
      rows,
    };
    const tables: Table[] = [typed];
    const html = await render(tables[0]!);
    expect(cells(html)).toEqual([
      '<a href="/answers/7">m-a</a>',
      '0.500 [0.250, 0.750]',
      'x, y',
      '<a href="/answers/9">m&amp;b</a>',
      '—',
      'plain',
    ]);
    expect(html).toContain('href="?run=r1&amp;table=scores&amp;format=csv"');
  });

  it('an untyped Table takes the same rows as they are, and an empty one shows its note', async () => {
    const plain: Table = { id: 'plain', caption: 'Plain', columns: [{ key: 'id', label: 'Id', kind: 'int' }, { key: 'model', label: 'Model' }], rows };
    expect(cells(await render(plain))).toEqual(['7', 'm-a', '9', 'm&amp;b']);
    const empty: Table = { ...plain, rows: [], empty: 'Nothing yet.' };
    expect(await render(empty)).toContain('<p class="empty">Nothing yet.</p>');
  });
});
