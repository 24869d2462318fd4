import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latexEscape } from '../../src/web/latex.ts';
import { startWebFixture, type WebFixture } from './web-fixture.ts';

/**
 * LaTeX downloads of the published tables (leaderboard, benchmarks: orientation, ablation, effort;
 * calibration): well formed without compiling (environments paired, braces balanced, specials escaped,
 * one cell per column on every row) and the same cells as the page's HTML table.
 */

const decode = (s: string) => s.replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'");
const text = (html: string) => decode(html.replace(/<[^>]*>/g, '')).replace(/\s+/g, ' ').trim();

/** The header and body cells of <table id=…> in a page, as the browser shows their text. */
function htmlTable(html: string, id: string): { header: string[]; rows: string[][] } {
  const m = new RegExp(`<table id="${id}">([\\s\\S]*?)</table>`).exec(html);
  if (!m) throw new Error(`no table ${id}`);
  const cells = (row: string, tag: string) => [...row.matchAll(new RegExp(`<${tag}[^>]*>([\\s\\S]*?)</${tag}>`, 'g'))].map((c) => text(c[1]!));
  const rows = [...m[1]!.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((r) => r[1]!);
  return { header: cells(rows[0]!, 'th'), rows: rows.slice(1).map((r) => cells(r, 'td')) };
}

/** Splits a tabular row at unescaped &, dropping the trailing \\. */
const cellsOf = (line: string) => line.replace(/ \\\\$/, '').split(/(?<!\\) & /);

function wellFormed(tex: string, columns: number): void {
  const unescaped = tex.replace(/\\[{}&%$#_\\]/g, '');
  expect([...unescaped].filter((c) => c === '{').length).toBe([...unescaped].filter((c) => c === '}').length);
  expect(unescaped).not.toMatch(/[%#]|(?<!\$)\$(?!\\)/);
  const begins = [...tex.matchAll(/\\begin\{(\w+)\}/g)].map((m) => m[1]);
  const ends = [...tex.matchAll(/\\end\{(\w+)\}/g)].map((m) => m[1]);
  expect(ends.reverse()).toEqual(begins);
  const body = tex.slice(tex.indexOf('\\toprule'), tex.indexOf('\\bottomrule')).split('\n').filter((l) => l.endsWith('\\\\'));
  for (const l of body) if (!l.startsWith('\\multicolumn')) expect(cellsOf(l)).toHaveLength(columns);
}

describe('LaTeX table downloads', () => {
  let f: WebFixture;
  beforeAll(async () => {
    f = await startWebFixture();
  }, 180_000);
  afterAll(async () => f?.close());

  it('escape every special character once', () => {
    expect(latexEscape('a_b & 50% {x} #1 $2 ~ ^ \\ κ ≥ 0.5 — n')).toBe('a\\_b \\& 50\\% \\{x\\} \\#1 \\$2 \\textasciitilde{} \\textasciicircum{} \\textbackslash{} $\\kappa$ $\\geq$ 0.5 --- n');
  });

  for (const page of ['/', '/benchmarks', '/calibration']) {
    it(`${page}: every table as booktabs LaTeX with the page's cells`, async () => {
      const html = await (await fetch(`${f.server.url}${page}`)).text();
      const ids = [...html.matchAll(/<table id="([^"]+)">/g)].map((m) => m[1]!);
      expect(ids.length, page).toBeGreaterThan(0);
      for (const id of ids) {
        const res = await fetch(`${f.server.url}${page}?table=${id}&format=latex`);
        expect(res.status, id).toBe(200);
        expect(res.headers.get('content-type')).toBe('application/x-tex; charset=utf-8');
        expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="[A-Za-z0-9._-]+\.tex"$/);
        const tex = await res.text();
        const shown = htmlTable(html, id);
        wellFormed(tex, shown.header.length);
        const lines = tex.split('\n');
        const top = lines.indexOf('\\toprule');
        expect(lines[top + 1], id).toBe(`${shown.header.map(latexEscape).join(' & ')} \\\\`);
        const body = lines.slice(lines.indexOf('\\midrule') + 1, lines.indexOf('\\bottomrule'));
        expect(body, id).toEqual(shown.rows.map((r) => `${r.map(latexEscape).join(' & ')} \\\\`));
      }
    }, 120_000);
  }
});
