import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign } from '../../src/services/campaigns/index.ts';
import { createKey } from '../../src/services/keys.ts';
import { startWebFixture, type WebFixture } from './web-fixture.ts';

/**
 * The pages' own links keep working now that every page refuses a query parameter it does not declare
 * (src/web/page-query.ts): from the seeded examples (and a campaign), every link, stylesheet, script and
 * picture a page points at, and every GET form submitted as it stands, answers below 400; every POST
 * form's action and the workspace's save URL (data-query) pass the query check (they may fail for their
 * empty body, never for their query).
 */

let f: WebFixture;
let key: string;
const CAMPAIGN = 'link-crawl';

beforeAll(async () => {
  f = await startWebFixture();
  key = (await createKey(f.database, { scopes: ['admin', 'annotate'], name: 'crawler' })).key;
  await createCampaign(f.database, {
    name: CAMPAIGN,
    answers: { task: 'describe', filter: { rubric: 'farmyard-54' } },
    scales: { binary: { question: 'Does the description match the picture?' }, numeric: { k: 3, anchors: ['poor', 'fair', 'good'] } },
    annotators: ['crawler', 'annotator-a'],
    overlap: 2,
  });
}, 240_000);
afterAll(async () => {
  await f?.close();
});

const unescape = (s: string) => s.replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
const attr = (tag: string, name: string): string | undefined => {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return m ? unescape(m[1]!) : undefined;
};

interface Found {
  gets: string[];
  posts: string[];
  puts: string[];
}

/** Every URL a page points at: links and assets, GET forms as submitted unchanged, POST actions, the workspace's save URL. */
function linksOf(html: string, base: URL): Found {
  const found: Found = { gets: [], posts: [], puts: [] };
  for (const m of html.matchAll(/<(?:a|link)\s[^>]*>/g)) {
    const href = attr(m[0], 'href');
    if (href !== undefined) found.gets.push(href);
  }
  for (const m of html.matchAll(/<(?:img|script|image)\s[^>]*>/g)) {
    const src = attr(m[0], 'src') ?? attr(m[0], 'href');
    if (src !== undefined) found.gets.push(src);
  }
  for (const m of html.matchAll(/<form\s[^>]*>[\s\S]*?<\/form>/g)) {
    const open = /<form\s[^>]*>/.exec(m[0])![0];
    const method = (attr(open, 'method') ?? 'get').toLowerCase();
    const url = new URL(attr(open, 'action') ?? '', base);
    url.hash = '';
    if (method === 'post') {
      found.posts.push(url.pathname + url.search);
      continue;
    }
    const fields = new URLSearchParams();
    for (const t of m[0].matchAll(/<input\s[^>]*>/g)) {
      const name = attr(t[0], 'name');
      const type = attr(t[0], 'type') ?? 'text';
      if (!name || type === 'submit' || ((type === 'checkbox' || type === 'radio') && !/\schecked/.test(t[0]))) continue;
      fields.append(name, attr(t[0], 'value') ?? '');
    }
    for (const s of m[0].matchAll(/<select\s[^>]*>([\s\S]*?)<\/select>/g)) {
      const name = attr(s[0], 'name');
      if (!name) continue;
      const options = [...s[1]!.matchAll(/<option\s[^>]*>/g)].map((o) => o[0]);
      const chosen = options.find((o) => /\sselected/.test(o)) ?? options[0];
      if (chosen !== undefined) fields.append(name, attr(chosen, 'value') ?? '');
    }
    url.search = fields.toString();
    found.gets.push(url.pathname + url.search);
  }
  for (const m of html.matchAll(/\sdata-next="([^"]*)"/g)) found.gets.push(unescape(m[1]!));
  for (const m of html.matchAll(/data-answer="(\d+)"[^>]*data-query="([^"]*)"|data-query="([^"]*)"[^>]*data-answer="(\d+)"/g)) {
    found.puts.push(`/annotate/${m[1] ?? m[4]}/labels${unescape(m[2] ?? m[3] ?? '')}`);
  }
  return found;
}

/** Links of one shape (path with ids collapsed, query names, the table and format asked) are tried a few times, not once per answer. */
function shapeOf(u: URL): string {
  const names = [...new Set(u.searchParams.keys())].sort();
  return `${u.pathname.replace(/\/\d+(?=\/|$)/g, '/:n')}?${names.join('&')}|${u.searchParams.get('table') ?? ''}|${u.searchParams.get('format') ?? ''}`;
}

const send = (method: string, path: string, body?: string) =>
  fetch(f.server.url + path, {
    method,
    headers: { accept: 'text/html', authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': method === 'PUT' ? 'application/json' : 'application/x-www-form-urlencoded' } : {}) },
    redirect: 'manual',
    ...(body !== undefined ? { body } : {}),
  });

describe("the pages' own links", () => {
  it('answer below 400 from the seeded examples, and no form or script URL is refused for its query', async () => {
    const origin = new URL(f.server.url);
    // The navigation starts it; the rest are pages no other page links (reached by hand or from the docs).
    const queue = ['/', '/campaigns', `/annotate?campaign=${CAMPAIGN}`, '/annotate?scale=binary&scale=numeric', '/judges/compare', '/judges/compare?run=farmyard-describe&a=lexical&b=lexical-strict', '/login'];
    const seen = new Set<string>();
    const perShape = new Map<string, number>();
    const broken: string[] = [];
    const refused: string[] = [];
    const posts = new Set<string>();
    const puts = new Set<string>();
    const follow = (hrefs: string[], from: URL) => {
      for (const href of hrefs) {
        if (/^(data|mailto|javascript):/.test(href) || href.startsWith('#')) continue;
        const target = new URL(href, from);
        target.hash = '';
        if (target.origin !== origin.origin) continue;
        const p = target.pathname + target.search;
        if (!seen.has(p)) queue.push(p);
      }
    };
    let visited = 0;
    // Rounds: the GET links, then the POST forms found (empty bodies: each may be refused for its form,
    // never for its query), whose redirects (a campaign's next answer) start the next round.
    for (let round = 0; round < 3 && queue.length > 0; round++) {
      while (queue.length > 0 && visited < 2000) {
        const path = queue.shift()!;
        if (seen.has(path)) continue;
        seen.add(path);
        const u = new URL(path, origin);
        const shape = shapeOf(u);
        if ((perShape.get(shape) ?? 0) >= 3) continue;
        perShape.set(shape, (perShape.get(shape) ?? 0) + 1);
        visited++;
        const r = await send('GET', path);
        if (r.status >= 400) {
          broken.push(`${r.status} ${path}: ${(await r.text()).match(/<div class="error" role="alert"><p>([^<]*)/)?.[1] ?? ''}`);
          continue;
        }
        const location = r.headers.get('location');
        const next: string[] = location ? [location] : [];
        if ((r.headers.get('content-type') ?? '').includes('text/html')) {
          const found = linksOf(await r.text(), u);
          next.push(...found.gets);
          found.posts.forEach((p) => posts.add(p));
          found.puts.forEach((p) => puts.add(p));
        } else await r.arrayBuffer();
        follow(next, u);
      }
      for (const p of posts) {
        if (p === '/logout' || p === '/login' || seen.has(`POST ${p}`)) continue;
        seen.add(`POST ${p}`);
        const r = await send('POST', p, '');
        const text = await r.text();
        if (r.status >= 500 || /query parameter/.test(text)) refused.push(`${r.status} POST ${p}`);
        const location = r.headers.get('location');
        if (location) follow([location], new URL(p, origin));
      }
    }
    expect(broken).toEqual([]);
    // The crawl reached every kind of page.
    for (const p of ['/calibration', '/describe-then-solve', '/benchmarks', '/answers', '/annotate', '/campaigns', `/campaigns/${CAMPAIGN}`]) {
      expect([...seen].some((s) => s === p || s.startsWith(`${p}?`)), p).toBe(true);
    }
    for (const re of [/^\/answers\/\d+$/, /^\/annotate\/\d+\?campaign=/, /^\/annotate\/\d+\?scale=binary&scale=numeric$/, /[?&]table=[^&]+&format=csv/, /^\/campaigns\/[^/]+\/export\?format=json$/, /^\/judges\/compare\?/, /^\/calibration\?.*panel=/, /^POST \/annotate\/next\?campaign=/]) {
      expect([...seen].some((s) => re.test(s)), String(re)).toBe(true);
    }
    expect(posts.size).toBeGreaterThan(2);
    expect(puts.size).toBeGreaterThan(1);
    for (const p of puts) {
      const r = await send('PUT', p, '{}');
      const text = await r.text();
      if (r.status !== 400 || /query parameter/.test(text)) refused.push(`${r.status} PUT ${p}: ${text.slice(0, 200)}`);
    }
    expect(refused).toEqual([]);
  }, 600_000);
});
