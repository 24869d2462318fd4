import type { Context } from 'hono';

/**
 * RFC 4180 CSV for list endpoints (Accept: text/csv): CRLF line ends, a header row, fields quoted when
 * they hold a comma, quote, CR or LF (quotes doubled). Nested values are written as JSON strings and
 * null as an empty field, so every row has the same columns. An empty string is a quoted empty field ("")
 * as PostgreSQL's COPY writes it: unquoted, an answer with text '' read back as one without text (null).
 */
export function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = v instanceof Date ? v.toISOString() : typeof v === 'object' ? JSON.stringify(v) : String(v);
  return s === '' || /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

export function toCsv(rows: readonly Record<string, unknown>[], columns?: readonly string[]): string {
  const cols = columns ?? [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const lines = [cols.map(csvField).join(','), ...rows.map((r) => cols.map((c) => csvField(r[c])).join(','))];
  return lines.join('\r\n') + '\r\n';
}

export const wantsCsv = (c: Context): boolean => /\btext\/csv\b/i.test(c.req.header('accept') ?? '');

export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}

/** A list's page schema (schemas.ts pageOf): its items' object schema names the columns. */
export interface PageSchemaLike {
  shape: { items: { element: unknown } };
}
/** A table report's schema: its rows' object schema names the columns. */
export interface RowsSchemaLike {
  shape: { rows: { element: unknown } };
}

const fieldsOf = (element: unknown): string[] => {
  const shape = (element as { shape?: Record<string, unknown> }).shape;
  return shape ? Object.keys(shape) : [];
};

/**
 * The header of a page without rows: its item schema's fields. A page with rows keeps the union of its
 * rows' keys (a field added to a view before the schema describes it is a column too); without this an
 * empty page was one blank line, no header, which a CSV reader takes for a file of no columns.
 */
export function emptyPageColumns(schema: PageSchemaLike): string[] {
  return fieldsOf(schema.shape.items.element);
}

/** JSON page, or the page's items as CSV (totals in X-Total-Count) when the client asks for CSV; schema: the page's, for the header of an empty page. */
export function respondList<T extends object>(c: Context, page: Page<T>, schema?: PageSchemaLike): Response {
  if (wantsCsv(c)) {
    const columns = page.items.length === 0 && schema ? emptyPageColumns(schema) : undefined;
    return c.body(toCsv(page.items as unknown as Record<string, unknown>[], columns), 200, {
      'Content-Type': 'text/csv; charset=utf-8',
      'X-Total-Count': String(page.total),
    });
  }
  return c.json(page, 200);
}

/** Rows that are not paginated (reports) in the same two representations; schema: the report's, for the header when it has no rows. */
export function respondRows<T extends object>(c: Context, body: { rows: T[] }, columns?: readonly string[] | RowsSchemaLike): Response {
  if (wantsCsv(c)) {
    const cols = columns === undefined || Array.isArray(columns) ? (columns as readonly string[] | undefined) : body.rows.length === 0 ? fieldsOf((columns as RowsSchemaLike).shape.rows.element) : undefined;
    return c.body(toCsv(body.rows as unknown as Record<string, unknown>[], cols), 200, { 'Content-Type': 'text/csv; charset=utf-8' });
  }
  return c.json(body, 200);
}
