import type { Context } from 'hono';
import type { Web } from '../index.tsx';
import { respondPage, type PageSpec } from '../respond.tsx';

/** A GET page over stored data: readable without a key on loopback, with a read key otherwise. */
export function reportPage(web: Web, path: string, build: (c: Context, q: URLSearchParams) => Promise<PageSpec>): void {
  web.page('GET', path, web.readScope, async (c) => respondPage(c, await web.frame(c), await build(c, new URL(c.req.url).searchParams)));
}

/** A query parameter, trimmed; undefined when blank (so empty form fields mean "no filter"). */
export function param(q: URLSearchParams, name: string): string | undefined {
  const v = q.get(name)?.trim();
  return v ? v.slice(0, 200) : undefined;
}

export function oneOf<T extends string>(q: URLSearchParams, name: string, allowed: readonly T[], fallback: T): T {
  const v = q.get(name);
  return v !== null && (allowed as readonly string[]).includes(v) ? (v as T) : fallback;
}
