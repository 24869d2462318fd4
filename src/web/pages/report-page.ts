import type { Context } from 'hono';
import { Fragment, jsx } from 'hono/jsx';
import { raw } from 'hono/html';
import type { Database } from '../../db/client.ts';
import { badInput } from '../../domain/errors.ts';
import { readDecimal } from '../../domain/limit-values.ts';
import { cachedReport, cachedResponse, reportKey } from '../../services/report-cache.ts';
import { GRADED_TABLES, REPORT_TABLES, type ReportTable } from '../../services/report-inputs.ts';
import type { Web } from '../index.tsx';
import type { PageParams, QueryDecl } from '../page-query.ts';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { respondPage, SECURITY_HEADERS, type PageSpec } from '../respond.tsx';

/**
 * A GET page over stored data: readable without a key on loopback, with a read key otherwise. Without a
 * login session every visitor sees the same frame, so the whole response (page, or a table download) is
 * kept per version of the tables it reads (PAGE_INPUTS), path and query: a warm request then costs a version check and a write, and a
 * crowd of readers cannot queue the event loop up behind page renders (issue 11, finding 10).
 */
/**
 * The tables a page reads, by path and by cachedPage name (services/report-cache.ts): a write to any other
 * table leaves the kept page standing. The leaderboard and benchmarks pages read graded answers, runs and
 * scores but no labels, so an annotator's label does not re-render them; a page not named here is kept
 * against every report table.
 */
const PAGE_INPUTS: Record<string, readonly ReportTable[]> = {
  '/': GRADED_TABLES,
  leaderboard: GRADED_TABLES,
  '/benchmarks': GRADED_TABLES,
  benchmarks: GRADED_TABLES,
};
const inputsOf = (name: string) => PAGE_INPUTS[name] ?? REPORT_TABLES;

export function reportPage(web: Web, path: string, query: QueryDecl, build: (c: Context, q: PageParams) => Promise<PageSpec>): void {
  web.page('GET', path, web.readScope, query, async (c, q) => {
    const frame = await web.frame(c);
    if (frame.user !== null) return respondPage(c, frame, await build(c, q));
    const kept = await cachedResponse(web.api.deps.database, reportKey(`response:${c.req.path}`, q.toString()), async () => {
      const res = await respondPage(c, frame, await build(c, q));
      return { status: res.status, type: res.headers.get('Content-Type'), disposition: res.headers.get('Content-Disposition'), body: await res.text() };
    }, inputsOf(path));
    const headers: Record<string, string> = { ...SECURITY_HEADERS };
    if (kept.type) headers['Content-Type'] = kept.type;
    if (kept.disposition) headers['Content-Disposition'] = kept.disposition;
    return c.body(kept.body, kept.status as ContentfulStatusCode, headers);
  });
}

/**
 * A report page cached per version of the tables it reads (PAGE_INPUTS) and query string (services/report-cache.ts): `load` reads
 * the page's data, `view` turns it into tables and a body. The data and the body's HTML are kept, so a
 * request over unchanged data renders nothing but the frame; `view` runs again on the cached data for
 * the tables (cheap, and their render functions cannot be cached as data). The body depends on the
 * data and the query only, never on the visitor: the frame (session, CSRF token) is added per request.
 */
export async function cachedPage<D>(database: Database, name: string, q: URLSearchParams, load: () => Promise<D>, view: (data: D) => PageSpec): Promise<PageSpec> {
  const cached = await cachedReport(database, reportKey(`page:${name}`, q.toString()), async () => {
    const data = await load();
    const body = await view(data).body();
    return { data, html: String(await jsx(Fragment, {}, body).toString()) };
  }, inputsOf(name));
  return { ...view(cached.data), body: () => raw(cached.html) };
}

/*
 * Query parameters of the report pages. Which names a page takes is its declaration (page-query.ts,
 * checked before the handler runs); a value that cannot be read is bad input (HTTP 400; browsers get
 * the message as a page, other clients the API's envelope), never replaced by the default: a page that
 * silently shows τ = 0.5 for ?threshold=abc looks like an answer to a question nobody asked. An empty
 * value (a blank form field) means "not given".
 */

/** A query parameter, trimmed; undefined when blank (so empty form fields mean "no filter"). */
export function param(q: URLSearchParams, name: string): string | undefined {
  const v = q.get(name)?.trim();
  return v ? v.slice(0, 200) : undefined;
}

const shown = (v: string) => (v.length > 40 ? `${v.slice(0, 40)}…` : v);

/** One of `allowed`, or `fallback` when not given; any other value is bad input. */
export function oneOf<T extends string>(q: URLSearchParams, name: string, allowed: readonly T[], fallback: T): T {
  const v = param(q, name);
  if (v === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(v)) throw badInput(`${name}: must be one of ${allowed.join(', ')}, got '${shown(v)}'`);
  return v as T;
}

/** A finite number in [min, max], or `fallback` when not given; anything else is bad input. */
export function numberIn(q: URLSearchParams, name: string, min: number, max: number, fallback: number, o: { integer?: boolean } = {}): number {
  const v = param(q, name);
  if (v === undefined) return fallback;
  // The API's rule (domain/limit-values.ts readDecimal): a whole number in digits, so 1e1 is refused as on /api.
  const r = readDecimal(v, o);
  const x = typeof r === 'number' ? r : NaN;
  const what = o.integer ? 'a whole number' : 'a number';
  if (!Number.isFinite(x) || x < min || x > max || (o.integer && !Number.isInteger(x))) throw badInput(`${name}: must be ${what} from ${min} to ${max}, got '${shown(v)}'`);
  return x;
}
