import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { toCsv } from '../api/csv.ts';
import { STATUS_OF } from '../api/errors.ts';
import { AssayError, badInput } from '../domain/errors.ts';
import { downloadName } from './download-name.ts';
import { tableToLatex } from './latex.ts';
import { Layout } from './layout.tsx';
import type { Table } from './table.tsx';

/**
 * Responses of the pages: HTML under a strict Content-Security-Policy (no inline script, everything
 * from this origin), or one of the page's tables as CSV (RFC 4180, the API's encoder) or JSON.
 */

export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
};

export interface PageFrame {
  path: string;
  judge: string;
  /** admin: the key holds the admin scope (the navigation then links the admin pages). */
  user: { name: string; csrf: string; admin?: boolean } | null;
}

export interface PageSpec {
  title: string;
  tables: Table[];
  /** Rendered only for HTML (charts are not computed for downloads). */
  body: () => Child | Promise<Child>;
  status?: ContentfulStatusCode;
}

export async function renderHtml(c: Context, frame: PageFrame, title: string, body: Child, status: ContentfulStatusCode = 200): Promise<Response> {
  const html = '<!doctype html>' + (await (<Layout title={title} {...frame}>{body}</Layout>).toString());
  return c.body(html, status, { ...SECURITY_HEADERS, 'Content-Type': 'text/html; charset=utf-8' });
}

/** ?table=<id>&format=csv|json → that table; otherwise the page. */
export async function respondPage(c: Context, frame: PageFrame, spec: PageSpec): Promise<Response> {
  const format = c.req.query('format');
  const tableId = c.req.query('table');
  if (format !== undefined || tableId !== undefined) {
    if (format !== 'csv' && format !== 'json' && format !== 'latex') throw badInput(`format: must be csv, json or latex, got '${format ?? ''}'`);
    const table = spec.tables.find((t) => t.id === tableId);
    if (!table) throw new AssayError('not_found', `table '${tableId ?? ''}' is not on this page (tables: ${spec.tables.map((t) => t.id).join(', ') || 'none'})`);
    const name = downloadName(c.req.path, new URL(c.req.url).searchParams, table.id, format);
    const headers = { ...SECURITY_HEADERS, 'Content-Disposition': `attachment; filename="${name}"` };
    if (format === 'latex') {
      const tex = await tableToLatex(table, `tab:${name.replace(/\.tex$/, '')}`);
      return c.body(tex, 200, { ...headers, 'Content-Type': 'application/x-tex; charset=utf-8' });
    }
    if (format === 'json') return c.body(JSON.stringify({ table: table.id, caption: table.caption, rows: table.rows }, null, 2), 200, { ...headers, 'Content-Type': 'application/json; charset=utf-8' });
    return c.body(toCsv(table.rows, rawColumns(table)), 200, {
      ...headers,
      'Content-Type': 'text/csv; charset=utf-8',
    });
  }
  return renderHtml(c, frame, spec.title, await spec.body(), spec.status ?? 200);
}

/** Every key of the rows (intervals included), shown columns first; an empty table keeps its header. */
function rawColumns(t: Table): string[] {
  const keys = new Set<string>();
  for (const col of t.columns) if (t.rows.length === 0 || t.rows.some((r) => col.key in r)) keys.add(col.key);
  for (const r of t.rows) for (const k of Object.keys(r)) keys.add(k);
  return [...keys];
}

/** Errors on pages: an HTML page for browsers, the API's envelope for everyone else. */
export async function pageError(c: Context, frame: PageFrame, err: unknown): Promise<Response | null> {
  if (!(err instanceof AssayError) || err.code === 'internal') return null;
  if (!/\btext\/html\b/i.test(c.req.header('accept') ?? '')) return null;
  const status = STATUS_OF[err.code];
  const body = (
    <div class="error" role="alert">
      <p>{err.message}</p>
      {err.code === 'forbidden' || err.code === 'unauthorized' ? (
        <p>
          <a href={`/login?next=${encodeURIComponent(frame.path)}`}>Log in with another key</a>
        </p>
      ) : null}
    </div>
  );
  return renderHtml(c, frame, status === 404 ? 'Not found' : status === 403 ? 'Not allowed' : 'Something is wrong with this request', body, status);
}
