import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { createKey } from '../../src/services/keys.ts';
import { seedExamples } from '../../src/services/seed.ts';
import { downloadName } from '../../src/web/download-name.ts';
import { MODEL_PALETTE, modelColours } from '../../src/web/model-colours.ts';
import { migratedImage } from '../helpers/pglite-image.ts';

/**
 * Issue 14 §5 on the bundled data (the seed alone): one colour per model on every chart, dots and
 * intervals per size bucket with no "unknown" bucket, small-n cells, downloads of whole tables named
 * for the page and filter, and a message (HTTP 400) for every unreadable query parameter.
 */

let database: Database;
let app: ReturnType<typeof createApp>;
let readKey: string;

beforeAll(async () => {
  database = await openDatabase({ memory: true, image: await migratedImage() });
  await seedExamples(database);
  readKey = (await createKey(database, { scopes: ['read'], name: 'reader' })).key;
  app = createApp({ database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 100_000 }, log: () => {} });
}, 120_000);
afterAll(() => database?.close());

const get = (path: string, headers: Record<string, string> = { accept: 'text/html' }) => app.request(`http://127.0.0.1${path}`, { headers });
const html = async (path: string) => {
  const res = await get(path);
  expect(res.status, path).toBe(200);
  return res.text();
};
const svgs = (page: string) => page.match(/<svg[\s\S]*?<\/svg>/g) ?? [];
/** [model, colour] of every dot: the colour is its fill, or its stroke for a hollow (small-n) dot. */
const dots = (svg: string) =>
  [...svg.matchAll(/<path aria-label="[^"]*model: ([^"]*)" role="graphics-symbol" aria-roledescription="point"[^>]*>/g)].map((m) => {
    const colour = /fill="(#[0-9a-f]{6})"/.exec(m[0])?.[1] ?? /stroke="(#[0-9a-f]{6})"/.exec(m[0])![1]!;
    return [m[1]!, colour] as const;
  });
const cell = (page: string, table: string, rowStart: string, col: number) => {
  const t = new RegExp(`<table id="${table}">([\\s\\S]*?)</table>`).exec(page)![1]!;
  const rows = [...t.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((r) => [...r[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => c[1]!.replace(/<[^>]+>/g, '')));
  return rows.filter((r) => r.join('|').startsWith(rowStart)).map((r) => r[col]);
};

describe('one colour per model', () => {
  it('every chart of the leaderboard and describe-then-solve draws a model in the same colour, and two models never share one', async () => {
    const pages = [await html('/'), await html('/describe-then-solve')];
    const all = pages.flatMap((p) => svgs(p).flatMap(dots));
    expect(svgs(pages[0]!)).toHaveLength(4);
    expect(svgs(pages[1]!)).toHaveLength(1);
    const byModel = new Map<string, Set<string>>();
    for (const [m, c] of all) byModel.set(m, (byModel.get(m) ?? new Set()).add(c));
    // The bundled runs: five models plus IIW-P5B, and the baseline series.
    expect([...byModel.keys()].sort()).toEqual(['IIW-P5B', 'example', 'model-a', 'model-b', 'model-c', 'model-d', 'random arrangement']);
    for (const [m, cs] of byModel) expect([...cs], m).toHaveLength(1);
    const colours = [...byModel.values()].map((s) => [...s][0]);
    expect(new Set(colours).size).toBe(colours.length);
    // The colours are those of the map over every stored model (what each page draws from).
    const map = modelColours(['IIW-P5B', 'example', 'model-a', 'model-b', 'model-c', 'model-d']);
    for (const [m, cs] of byModel) if (m !== 'random arrangement') expect([...cs][0], m).toBe(map.get(m));
    expect([...byModel.get('random arrangement')!][0]).toBe('#8c8c8c');
  });

  it('the map depends on the set of models only: order of arrival changes nothing, and a new model moves only models it collides with', () => {
    const a = modelColours(['m1', 'm2', 'm3', 'm4']);
    expect(modelColours(['m4', 'm3', 'm2', 'm1'])).toEqual(a);
    const b = modelColours(['m1', 'm2', 'm3', 'm4', 'zz-new']);
    for (const m of ['m1', 'm2', 'm3', 'm4']) expect(b.get(m)).toBe(a.get(m));
    // Up to the palette's size, every model its own colour.
    const many = modelColours(Array.from({ length: MODEL_PALETTE.length }, (_, i) => `model-${i}`));
    expect(new Set(many.values()).size).toBe(MODEL_PALETTE.length);
  });
});

describe('size buckets', () => {
  it('dots and intervals, no line across buckets; descriptions of no puzzle are "no puzzle", first, never "unknown"', async () => {
    const page = await html('/');
    for (const svg of svgs(page)) expect(svg).not.toContain('line mark');
    expect(page).not.toMatch(/>unknown</);
    expect(page).not.toContain('sizeBucket: unknown');
    // The F1 chart's categories in order: no puzzle, ~50, all.
    const f1 = svgs(page)[0]!;
    const labels = [...f1.matchAll(/<text[^>]*>(no puzzle|~\d+|all)<\/text>/g)].map((m) => m[1]);
    expect(labels).toEqual(['no puzzle', '~50', 'all']);
    expect(cell(page, 'leaderboard', 'IIW-P5B|no puzzle', 2)).toEqual(['100']);
    expect(page).toContain('descriptions of pictures not cut into a puzzle');
  });
});

describe('small-n cells', () => {
  it('an n = 1 cell shows its value and "n = 1", never a zero-width interval; n ≥ 5 keeps its interval; the rule is on the page', async () => {
    const page = await html('/');
    // model-d has one graded description on ~50: F1 0.8219…
    expect(cell(page, 'leaderboard', 'model-d|~50', 3)).toEqual(['0.822 n = 1']);
    expect(page).not.toContain('0.822 [0.822, 0.822]');
    // IIW-P5B: 100 descriptions, the interval stays.
    expect(cell(page, 'leaderboard', 'IIW-P5B|no puzzle', 3)[0]).toMatch(/^0\.257 \[0\.2\d\d, 0\.30\d\]$/);
    expect(page).toContain('Cells marked “n = k” rest on fewer than 5 observations');
    // The download keeps the numbers as computed.
    const rows = ((await (await get('/?table=leaderboard&format=json')).json()) as { rows: Array<Record<string, unknown>> }).rows;
    expect(rows.find((r) => r.model === 'model-d' && r.sizeBucket === '~50')).toMatchObject({ descriptions: 1, f1: 0.8219178082191781 });
    for (const p of ['/benchmarks', '/describe-then-solve']) expect(await html(p)).toContain('n = 1');
  });
});

describe('downloads', () => {
  it('name the page, the table and the filters', async () => {
    const res = await get('/calibration?scale=verdict&table=judges&format=csv');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="calibration_judges_scale-verdict.csv"');
    const lb = await get('/?table=leaderboard&format=json');
    expect(lb.headers.get('content-disposition')).toBe('attachment; filename="leaderboard.json"');
    expect(downloadName('/describe-then-solve', new URLSearchParams('metric=direct&threshold=0.6&table=describe-then-solve&format=csv'), 'describe-then-solve', 'csv')).toBe(
      'describe-then-solve_metric-direct_threshold-0.6.csv',
    );
    expect(downloadName('/judges/compare', new URLSearchParams('run=r 1&a=x/../y&b='), 'kappas', 'json')).toBe('judges-compare_kappas_run-r-1_a-x-..-y.json');
  });

  it('hold the whole table, not the page on screen', async () => {
    const page = await html('/answers?run=IIW-P5B&offset=50');
    expect((page.match(/<tr>/g) ?? []).length - 1).toBe(50);
    const res = await get('/answers?run=IIW-P5B&offset=50&table=answers&format=json');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="answers_run-IIW-P5B.json"');
    const doc = (await res.json()) as { caption: string; rows: unknown[] };
    expect(doc.rows).toHaveLength(100);
    expect(doc.caption).toBe('Answers (all 100; F1 by judge lexical)');
    const csv = await (await get('/?table=runs&format=csv')).text();
    expect(csv.split('\r\n').length - 2).toBe(10);
  });
});

describe('query parameters', () => {
  it.each([
    ['/describe-then-solve?threshold=abc', "threshold: must be a number from -1 to 1, got 'abc'"],
    ['/describe-then-solve?threshold=2', "threshold: must be a number from -1 to 1, got '2'"],
    ['/describe-then-solve?metric=speed', "metric: must be one of neighbour, direct, proximity, adjacency, exactMatch, got 'speed'"],
    ['/describe-then-solve?perception=vibes', "perception: must be one of f1, label, got 'vibes'"],
    ['/calibration?scale=likert', "scale: must be one of verdict, binary, numeric, got 'likert'"],
    ['/?treshold=0.5', "unknown query parameter 'treshold' (this page takes judge, unverifiable, table, format)"],
    ['/?unverifiable=drop', "unverifiable: must be one of count, exclude, got 'drop'"],
    ['/describe-then-solve?unverifiable=drop', "unverifiable: must be one of count, exclude, got 'drop'"],
    ['/describe-then-solve?metrics=x', "unknown query parameter 'metrics' (this page takes metric, perception, threshold, judge, unverifiable, table, format)"],
    ['/benchmarks?tags=x', "unknown query parameter 'tags' (this page takes tag, unverifiable, table, format)"],
    ['/judges/compare?run=r&a=x&c=y', "unknown query parameter 'c' (this page takes run, a, b, table, format)"],
    ['/answers?offset=1.5', "offset: must be a whole number from 0 to 2147483647, got '1.5'"],
    ['/answers?task=paint', "task: must be one of describe, assemble, describe-then-solve, choice, got 'paint'"],
  ])('%s → 400 with the message, as a page and as the envelope', async (path, message) => {
    const page = await get(path);
    expect(page.status).toBe(400);
    expect(await page.text()).toContain(message.replaceAll("'", '&#39;'));
    const api = await get(path, {});
    expect(api.status).toBe(400);
    expect(await api.json()).toEqual({ error: { code: 'bad_input', message } });
  });

  it('valid and blank values are read, not refused', async () => {
    expect((await get('/describe-then-solve?threshold=0.6&metric=direct&perception=')).status).toBe(200);
    expect((await get('/answers?task=&offset=0')).status).toBe(200);
    // The F1 pages say the unverifiable-claims policy of their F1 (services/report-policy.ts).
    expect(await (await get('/?unverifiable=exclude')).text()).toContain('unverifiable claims <strong>excluded from</strong> correctness');
    expect(await (await get('/benchmarks')).text()).toContain('unverifiable claims <strong>counted in</strong> correctness');
    expect(await (await get('/describe-then-solve?unverifiable=exclude')).text()).toContain('unverifiable claims <strong>excluded from</strong> correctness');
  });

  it('the API equivalents answer 400 too', async () => {
    const auth = { authorization: `Bearer ${readKey}` };
    for (const q of ['threshold=abc', 'threshold=2', 'metric=speed']) {
      const res = await get(`/api/reports/describe-then-solve?${q}`, auth);
      expect(res.status, q).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('bad_input');
    }
    expect((await get('/api/reports/calibration?scale=likert', auth)).status).toBe(400);
  });
});

describe('within human range on the page', () => {
  it('states the definition and shows each annotator against the others', async () => {
    const page = await html('/calibration');
    expect(page).toContain('Within human range: human level = the median, over annotators, of each annotator against the majority of the other annotators (leave one annotator out)');
    expect(page).toContain('<table id="leave-one-out">');
    expect(cell(page, 'leave-one-out', 'annotator-1', 0)).toEqual(['annotator-1']);
  });
});
