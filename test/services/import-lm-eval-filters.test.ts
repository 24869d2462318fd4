import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONVERTERS } from '../../src/services/import-formats/index.ts';

/**
 * lm-evaluation-harness logs one line per document and filter (lm_eval/evaluator.py: `for filter_key in
 * task.instances[0].filtered_resps` around the document loop, so the file is filter-major), each with that
 * filter's `filtered_resps` and the metrics computed on them. gsm8k has two filters: `strict-match` reads
 * "#### N" (else "[invalid]"), `flexible-extract` the last number. The importer took the first filter of the
 * file, exit 0: doc 0 stored as "[invalid]" scored 0 where flexible-extract read "5" and scored 1.
 * Older harness versions wrote the same lines without the `filter` field.
 */

const PATH = 'test/fixtures/import-formats/lm-eval-gsm8k-two-filters.jsonl';
const file = { path: PATH, content: readFileSync(PATH, 'utf8') };
const convert = (filter?: string, f = file) => CONVERTERS['lm-eval'](f, { model: 'm', ...(filter === undefined ? {} : { filter }) });
const lines = file.content.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
const jsonl = (rows: object[]) => ({ path: 's.jsonl', content: rows.map((r) => `${JSON.stringify(r)}\n`).join('') });

describe('lm-eval filters', () => {
  it('a file with several filters and no --filter is refused naming them (none is picked silently)', () => {
    expect(() => convert()).toThrow(`${PATH}: holds the samples of 2 filters (strict-match, flexible-extract), each with its own response text and metrics; choose one with --filter NAME`);
  });

  it("--filter flexible-extract imports that filter's text and metric, named with the filter as lm-eval names it (exact_match,flexible-extract)", () => {
    const c = convert('flexible-extract');
    expect(c.rows.map((r) => [r.row.id, r.row.text, r.loc.line, r.scores.map((s) => [s.scorer, s.value])])).toEqual([
      ['0', '5', 4, [['exact_match,flexible-extract', 1]]],
      ['1', '10', 5, [['exact_match,flexible-extract', 1]]],
      ['2', '9', 6, [['exact_match,flexible-extract', 0]]],
    ]);
    expect(c.rows.map((r) => (r.row.meta as { source: { filter: string } }).source.filter)).toEqual(['flexible-extract', 'flexible-extract', 'flexible-extract']);
    expect(c.skipped).toEqual([{ where: PATH, reason: "filter 'strict-match': 3 lines (from line 1) not imported: --filter flexible-extract" }]);
  });

  it('--filter strict-match imports its own text, "[invalid]" where its regex found no "#### N"', () => {
    const c = convert('strict-match');
    expect(c.rows.map((r) => [r.row.id, r.row.text, r.scores.map((s) => s.value)])).toEqual([
      ['0', '[invalid]', [0]],
      ['1', '10', [1]],
      ['2', '[invalid]', [0]],
    ]);
  });

  it('an unknown --filter is refused naming the filters of the file', () => {
    expect(() => convert('flexible')).toThrow(`${PATH}: --filter 'flexible': no such filter in the file (it holds strict-match, flexible-extract)`);
  });

  it('a file of one filter needs no --filter, and --filter none is accepted for it', () => {
    const one = jsonl(lines.slice(3));
    expect(convert(undefined, one).rows.map((r) => r.row.text)).toEqual(['5', '10', '9']);
    const none = jsonl(lines.slice(0, 3).map((l) => ({ ...l, filter: 'none', filtered_resps: [(l.resps as string[][])[0]![0]] })));
    const c = convert('none', none);
    expect(c.rows.map((r) => [r.row.text, r.scores.map((s) => s.scorer)])).toEqual([
      ['She has 3 + 2 = 5 barns.\nThe answer is 5.', ['exact_match']],
      ['4 + 6 = 10 animals.\n#### 10', ['exact_match']],
      ['It crows 3 times a day, so 3 * 3 = 9 times.', ['exact_match']],
    ]);
  });

  it('a document twice under one filter (an appended file) is refused, not imported twice nor replaced', () => {
    const twice = jsonl([...lines.slice(3), { ...lines[4]!, filtered_resps: ['11'], exact_match: 0 }]);
    expect(() => convert(undefined, twice)).toThrow("s.jsonl:4: doc_id: document 1 of filter 'flexible-extract' is on line 2 too");
  });

  it('lines without filter names (an older harness) holding a document twice are refused: which is which filter cannot be told', () => {
    const unnamed = jsonl(lines.map(({ filter: _f, ...l }) => l));
    expect(() => convert(undefined, unnamed)).toThrow('s.jsonl:4: doc_id: document 0 is on line 1 too, and the lines name no filter');
    expect(convert(undefined, jsonl(lines.slice(3).map(({ filter: _f, ...l }) => l))).rows.map((r) => r.row.text)).toEqual(['5', '10', '9']);
    expect(() => convert('strict-match', unnamed)).toThrow("s.jsonl: --filter 'strict-match': the lines of this file name no filter (no \"filter\" field)");
  });
});
