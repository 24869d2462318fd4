import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../api/context.ts';
import { checkQueryNames } from '../api/query-guard.ts';

/**
 * The query parameters of a page. Every page route (Web.page) is registered with one declaration: the
 * door refuses any other name, and a one-value name given twice, before the handler runs (HTTP 400; an
 * HTML page naming it and listing the declared ones for browsers, the API's envelope for other clients),
 * as the API's operations do (api/query-guard.ts). Without it `/calibration?judeg=x` showed the
 * unfiltered report as if it were the filtered one. The handler reads its query through the same
 * declaration (PageParams), so reading a name it does not declare fails loudly instead of drifting.
 */

export interface QueryDecl {
  /** Every name the page reads, in the order the refusal lists them. */
  readonly names: readonly string[];
  /** The names that may be given more than once (read with getAll); the rest take one value. */
  readonly repeatable: readonly string[];
}

/** One of the page's tables as a download (respond.tsx respondPage: ?table=<id>&format=csv|json|latex). */
export const DOWNLOAD_PARAMS = ['table', 'format'] as const;

/** A declaration; `downloads` for a page whose tables download (respondPage), adding table and format. */
export function declareQuery(names: readonly string[], o: { downloads?: boolean; repeatable?: readonly string[] } = {}): QueryDecl {
  const all = [...names, ...(o.downloads ? DOWNLOAD_PARAMS : [])];
  if (new Set(all).size !== all.length) throw new Error(`query declaration names a parameter twice: ${all.join(', ')}`);
  const repeatable = o.repeatable ?? [];
  for (const r of repeatable) if (!all.includes(r)) throw new Error(`repeatable query parameter '${r}' is not declared`);
  return Object.freeze({ names: Object.freeze(all), repeatable: Object.freeze([...repeatable]) });
}

/** A page that reads no query parameter (a stylesheet, a picture, a form's POST target). */
export const NO_QUERY: QueryDecl = declareQuery([]);

const takesOf = (d: QueryDecl) => (d.names.length ? `this page takes ${d.names.join(', ')}` : 'this page takes no query parameters');

/** The door: runs after the page guard (as the API's check runs after authentication). */
export function pageQueryCheck(d: QueryDecl): MiddlewareHandler<AppEnv> {
  const takes = takesOf(d);
  return async (c, next) => {
    checkQueryNames(c.req.url, d.names, d.repeatable, takes);
    await next();
  };
}

/**
 * The query as the handler sees it: a URLSearchParams that answers only for declared names. Reading an
 * undeclared one is a bug in the page (the door refuses it, so the handler would always see nothing): it
 * throws, and the page is a 500 in every test that opens it rather than a filter that never applies.
 * Iterating (copying into links, naming downloads) is unrestricted: every name in it was declared.
 */
export class PageParams extends URLSearchParams {
  readonly #declared: ReadonlySet<string>;
  readonly #route: string;
  constructor(search: string, d: QueryDecl, route: string) {
    super(search);
    this.#declared = new Set(d.names);
    this.#route = route;
  }
  #check(name: string): void {
    if (!this.#declared.has(name)) throw new Error(`page ${this.#route} reads query parameter '${name}', which its declaration does not name (declareQuery)`);
  }
  override get(name: string): string | null {
    this.#check(name);
    return super.get(name);
  }
  override getAll(name: string): string[] {
    this.#check(name);
    return super.getAll(name);
  }
  override has(name: string, value?: string): boolean {
    this.#check(name);
    return value === undefined ? super.has(name) : super.has(name, value);
  }
}

export function pageParams(url: string, d: QueryDecl, route: string): PageParams {
  const q = url.indexOf('?');
  return new PageParams(q < 0 ? '' : url.slice(q + 1).split('#')[0]!, d, route);
}

const registries = new WeakMap<object, Map<string, QueryDecl>>();

/** The declaration of every page route of an app, by "METHOD /path" (as the route registry keys them). */
export function pageQueries(app: object): Map<string, QueryDecl> {
  let r = registries.get(app);
  if (!r) registries.set(app, (r = new Map()));
  return r;
}
