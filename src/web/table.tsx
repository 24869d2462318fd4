import type { Child } from 'hono/jsx';
import { DASH, int, interval, num } from './format.ts';

/**
 * A table as data (what CSV and JSON downloads carry) plus how it reads on the page. Every table on
 * every page is one of these, so the download is always the same data as the page shows.
 */

/**
 * A row as the page and the downloads see it: cells by column key. The services' row types are
 * interfaces, which have no implicit index signature, and TypeScript lets an interface stand for an
 * index-signature type only when its values are `any`; so `any` here, and every cell read below
 * reads it as `unknown`.
 */
export type Row = Record<string, any>;

/** Columns over rows of type R; a Table<R> is a Table (its callbacks only ever see its own rows). */
export interface Column<R extends object = Row> {
  key: string;
  label: string;
  /** num: 3 decimals; int; text (default); ci: the value with [low, high] from `${key}Low`/`${key}High`. */
  kind?: 'num' | 'int' | 'text' | 'ci';
  /** A link target for the cell (same-origin path). */
  href?(row: R): string | null;
  /** Custom rendering (e.g. a bar). */
  render?(row: R): Child;
  /** Short explanation shown as the header's title. */
  help?: string;
}

export interface Table<R extends object = Row> {
  /** Unique on its page: the download links use it (?table=id&format=csv). */
  id: string;
  caption: string;
  columns: Column<R>[];
  rows: R[];
  /** Shown instead of an empty table. */
  empty?: string;
}

/** A cell's text as the page shows it (LaTeX downloads use it too). */
export function cellText(col: Column, row: Row): string {
  const v: unknown = row[col.key];
  switch (col.kind) {
    case 'num':
      return num(v);
    case 'int':
      return int(v);
    case 'ci': {
      const low: unknown = row[`${col.key}Low`];
      const high: unknown = row[`${col.key}High`];
      const ci = interval(low, high);
      return ci ? `${num(v)} ${ci}` : num(v);
    }
    default:
      return v === null || v === undefined || v === '' ? DASH : typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
}

const numeric = (col: Column) => col.kind === 'num' || col.kind === 'int' || col.kind === 'ci';

export function downloadHref(search: URLSearchParams, id: string, format: 'csv' | 'json' | 'latex'): string {
  const q = new URLSearchParams(search);
  q.set('table', id);
  q.set('format', format);
  return `?${q.toString()}`;
}

export function DataTable(props: { table: Table; search: URLSearchParams }) {
  const { table, search } = props;
  return (
    <section class="table-block" aria-labelledby={`t-${table.id}`}>
      <div class="table-head">
        <h3 id={`t-${table.id}`}>{table.caption}</h3>
        <p class="downloads">
          {/* The file is named by the response (page, table and filters: download-name.ts). */}
          Download: <a href={downloadHref(search, table.id, 'csv')} download>CSV</a> <a href={downloadHref(search, table.id, 'json')} download>JSON</a>{' '}
          <a href={downloadHref(search, table.id, 'latex')} download>LaTeX</a>
        </p>
      </div>
      {table.rows.length === 0 ? (
        <p class="empty">{table.empty ?? 'No rows.'}</p>
      ) : (
        <div class="scroll">
          <table id={table.id}>
            <thead>
              <tr>
                {table.columns.map((c) => (
                  <th scope="col" class={numeric(c) ? 'n' : undefined} title={c.help}>
                    {c.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {table.rows.map((row) => (
                <tr>
                  {table.columns.map((c) => {
                    const href = c.href?.(row);
                    const content = c.render ? c.render(row) : cellText(c, row);
                    return <td class={numeric(c) ? 'n' : undefined}>{href ? <a href={href}>{content}</a> : content}</td>;
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
