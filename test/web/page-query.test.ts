import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../src/api/app.ts';
import { routeRegistry } from '../../src/api/define-route.ts';
import { createApp } from '../../src/app.ts';
import { createCampaign } from '../../src/services/campaigns/index.ts';
import { createKey } from '../../src/services/keys.ts';
import { startWebFixture, type WebFixture } from './web-fixture.ts';

/**
 * The query parameters of the pages: each page declares the ones it reads (src/web/page-query.ts), and
 * an undeclared name (`/calibration?judeg=x`) or a one-value name given twice is a 400 naming it and
 * listing the declared ones — a page, not the unfiltered report passing for the filtered one. A declared
 * name with a value naming nothing (an unknown run, judge, tag, campaign) is a 404, not an empty page.
 */

let f: WebFixture;
let key: string;
const CAMPAIGN = 'query-check';

beforeAll(async () => {
  f = await startWebFixture();
  // One key for every page: admin (reports, campaigns) and annotate (the queue, the workspace).
  key = (await createKey(f.database, { scopes: ['admin', 'annotate'], name: 'query-checker' })).key;
  await createCampaign(f.database, {
    name: CAMPAIGN,
    answers: { task: 'describe', filter: { rubric: 'farmyard-54' } },
    scales: { binary: { question: 'Does the description match the picture?' } },
    annotators: ['query-checker', 'annotator-a'],
    overlap: 2,
  });
}, 240_000);
afterAll(async () => {
  await f?.close();
});

const send = (method: string, path: string, accept = 'text/html') =>
  fetch(f.server.url + path, { method, headers: { accept, authorization: `Bearer ${key}` }, redirect: 'manual' });
const unescape = (s: string) => s.replaceAll('&#39;', "'").replaceAll('&quot;', '"').replaceAll('&amp;', '&');
const messageOf = async (r: Response) => unescape(/<div class="error" role="alert"><p>([^<]*)<\/p>/.exec(await r.text())?.[1] ?? '(no error page)');

/** A concrete path for a route pattern of the fixture. */
function concrete(path: string): string {
  return path
    .replace(':id', String(f.ids.farmyard))
    .replace(':ref', CAMPAIGN)
    .replace(':file', 'style.css')
    .replace(':puzzle', 'farmyard-6x9');
}

describe('undeclared query parameters on the pages', () => {
  it.each([
    ['/calibration?judeg=x', 'judeg', 'scale, judge, humans, unverifiable, panel, run, table, format'],
    ['/?rn=IIW-P5B', 'rn', 'judge, unverifiable, table, format'],
    ['/answers?rn=IIW-P5B', 'rn', 'run, model, task, judge, unverifiable, offset, table, format'],
    ['/annotate?campaing=x', 'campaing', 'campaign, scale, finished, table, format'],
    ['/campaigns?x=1', 'x', 'table, format'],
    ['/login?nxt=/', 'nxt', 'next'],
  ])('%s → 400 naming %s and what the page takes', async (path, name, takes) => {
    const page = await send('GET', path);
    expect(page.status).toBe(400);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await messageOf(page)).toBe(`unknown query parameter '${name}' (this page takes ${takes})`);
    const json = await send('GET', path, 'application/json');
    expect(json.status).toBe(400);
    expect(await json.json()).toEqual({ error: { code: 'bad_input', message: `unknown query parameter '${name}' (this page takes ${takes})` } });
  });

  it('pages that take no query parameter say so', async () => {
    for (const path of [`/annotate/${f.ids.farmyard}/picture?v=2`, '/static/style.css?v=2', '/pictures/farmyard-6x9?v=2']) {
      const r = await send('GET', path, 'application/json');
      expect(r.status, path).toBe(400);
      expect(await r.json(), path).toEqual({ error: { code: 'bad_input', message: "unknown query parameter 'v' (this page takes no query parameters)" } });
    }
  });

  it('a one-value parameter given twice is refused; a repeatable one is not', async () => {
    for (const path of ['/calibration?judge=lexical&judge=x', '/?judge=lexical&judge=lexical', '/answers?run=a&run=b', '/?table=runs&format=csv&format=json', '/login?next=/&next=/answers']) {
      const r = await send('GET', path);
      expect(r.status, path).toBe(400);
      const name = /[?&](\w+)=[^&]*&(?:.*&)?\1=/.exec(path)![1]!;
      expect(await messageOf(r), path).toBe(`query parameter '${name}' is given more than once; it takes one value`);
    }
    expect((await send('GET', '/annotate?scale=binary&scale=numeric')).status).toBe(200);
  });

  it('every page route declares its query, and refuses a name outside it', async () => {
    const { pageQueries } = await import('../../src/web/page-query.ts');
    const deps = { database: f.database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 100_000 }, log: () => {} };
    const app = createApp(deps);
    const apiOnly = new Set(routeRegistry(createApi(deps)).keys());
    const pages = [...routeRegistry(app).keys()].filter((k) => !apiOnly.has(k));
    expect(pages.length).toBeGreaterThan(15);
    const declared = pageQueries(app);
    expect(pages.filter((k) => !declared.has(k)), 'page routes without a query declaration').toEqual([]);
    for (const k of pages) {
      const [method, path] = k.split(' ') as [string, string];
      const names = declared.get(k)!.names;
      const r = await send(method, `${concrete(path)}?zz-undeclared=1`, 'application/json');
      expect(r.status, k).toBe(400);
      const takes = names.length ? `this page takes ${names.join(', ')}` : 'this page takes no query parameters';
      expect(await r.json(), k).toEqual({ error: { code: 'bad_input', message: `unknown query parameter 'zz-undeclared' (${takes})` } });
    }
  });
});

describe('declared parameters with a value that names nothing', () => {
  it.each([
    ['/answers?run=no-such-run', 404, "run 'no-such-run' not found"],
    ['/answers?model=no-such-model', 404, "model 'no-such-model' not found: no run is of that model"],
    ['/answers?offset=abc', 400, "offset: must be a whole number from 0 to 2147483647, got 'abc'"],
    // One rule with the API's ?offset= (domain/limit-values.ts readDecimal): before, the page read 1e1 as offset 10.
    ['/answers?offset=1e1', 400, "offset: must be a whole number from 0 to 2147483647, got '1e1'"],
    ['/answers?offset=0x10', 400, "offset: must be a whole number from 0 to 2147483647, got '0x10'"],
    ['/calibration?judge=no-such-judge', 404, "judge 'no-such-judge' not found"],
    ['/calibration?panel=no-such-panel', 404, "judge 'no-such-panel' not found"],
    ['/calibration?run=no-such-run', 404, "run 'no-such-run' not found"],
    ['/benchmarks?tag=no-such-tag', 404, "tag: no run has the condition tag 'no-such-tag'"],
    ['/?judge=no-such-judge', 404, "judge 'no-such-judge' not found"],
    ['/judges/compare?run=no-such-run&a=lexical&b=lexical-strict', 404, null],
    ['/annotate?campaign=no-such-campaign', 404, "campaign 'no-such-campaign' not found"],
    [`/annotate/${0}?campaign=x`, 400, null],
    ['/campaigns/no-such-campaign', 404, "campaign 'no-such-campaign' not found"],
    [`/campaigns/${CAMPAIGN}/export?format=xml`, 400, "format: must be csv or json, got 'xml'"],
  ])('%s → %i', async (path, status, message) => {
    const page = await send('GET', path);
    expect(page.status).toBe(status);
    const text = await messageOf(page);
    if (message !== null) expect(text.startsWith(message), text).toBe(true);
  });

  it('values that name something still show the page', async () => {
    for (const path of ['/answers?run=IIW-P5B', '/answers?model=example', '/calibration?judge=lexical', '/benchmarks?tag=tagged', `/annotate?campaign=${CAMPAIGN}`, '/benchmarks']) {
      const r = await send('GET', path);
      expect(r.status, path).toBe(200);
    }
  });
});
