import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebFixture, type WebFixture } from './web-fixture.ts';

/**
 * The workspace's saves over HTTP are conditional: the JSON save and the no-script form say what the page
 * showed, and a save over labels changed since (another tab) is a 409 conflict that writes nothing.
 */
let f: WebFixture;
beforeAll(async () => {
  f = await startWebFixture();
}, 240_000);
afterAll(async () => {
  await f?.close();
});

const bearer = () => ({ authorization: `Bearer ${f.keys.annotate2}` });
const put = (body: unknown) =>
  fetch(`${f.server.url}/annotate/${f.ids.unlabelled}/labels`, { method: 'PUT', headers: { ...bearer(), 'content-type': 'application/json' }, body: JSON.stringify(body) });
const mine = async () => (await (await fetch(`${f.server.url}/annotate/${f.ids.unlabelled}/labels`, { headers: bearer() })).json()) as { items: Record<string, string> };

describe('stale saves', () => {
  it('two saves from the same rendered state: the second is 409 and the first stays', async () => {
    const page = await (await fetch(`${f.server.url}/annotate/${f.ids.unlabelled}`, { headers: { ...bearer(), accept: 'text/html' } })).text();
    const seen = /name="_seen" value="([^"]*)"/.exec(page)![1]!.replace(/&quot;/g, '"').replace(/&#34;/g, '"');
    expect(JSON.parse(seen)).toEqual({});
    expect((await put({ item: 'barn', label: 'correct', prev: null })).status).toBe(200);
    const stale = await put({ item: 'barn', label: 'missing', prev: null });
    expect(stale.status).toBe(409);
    const e = (await stale.json()) as { error: { code: string; message: string } };
    expect(e.error.code).toBe('conflict');
    expect(e.error.message).toMatch(/item 'barn' is now 'correct'/);
    expect((await mine()).items.barn).toBe('correct');
    // The no-script form rendered before the first save is refused as well, writing nothing.
    const form = await fetch(`${f.server.url}/annotate/${f.ids.unlabelled}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...bearer(), 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: new URLSearchParams({ _seen: seen, 'item:barn': 'partial', 'item:farmer': 'partial' }),
    });
    expect(form.status).toBe(409);
    expect((await mine()).items).toMatchObject({ barn: 'correct' });
    expect((await mine()).items.farmer).toBeUndefined();
    // A unit nobody changed, and a save from a page that saw the first, go through.
    expect((await put({ item: 'farmer', label: 'partial', prev: null })).status).toBe(200);
    expect((await put({ item: 'barn', label: 'missing', prev: 'correct' })).status).toBe(200);
    expect((await put({ item: 'barn', label: 'partial' })).status).toBe(200);
    expect((await mine()).items).toMatchObject({ barn: 'partial', farmer: 'partial' });
  });
});
