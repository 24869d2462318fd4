import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseGivenIds, parseGridTruth } from '../../src/domain/grid.ts';
import { importPuzzles } from '../../src/services/puzzles.ts';
import { runCli } from '../helpers/cli.ts';
import { describeDb } from '../helpers/db.ts';
import { badInputMessage } from '../helpers/errors.ts';
import { useApi } from '../api/app-fixture.ts';

/**
 * A truth's piece id written as a JSON (or YAML) number beyond 2^53 − 1 is not the number the parser
 * returns: 9007199254740993 reads as 9007199254740992 and 12345678901234567891 as 12345678901234567000.
 * The truth was stored under ids it never gave (exit 0 / HTTP 200), so an answer writing the real id as
 * text scored it unknown, and two ids could be one. Refused wherever a truth or clue ids enter (CLI,
 * import, API), nothing stored; as strings they are kept exactly, and 2^53 − 1 is still a number id.
 */

const BIG = '9007199254740993';
const refused = /is a number beyond 9007199254740991.*write the id as a string/;

describe('grid truth ids JSON numbers cannot hold exactly', () => {
  it('parseGridTruth refuses them, names the cell; strings and safe numbers kept', () => {
    expect(badInputMessage(() => parseGridTruth(JSON.parse(`{"rows":1,"cols":2,"layout":[["a",${BIG}]]}`), 'T.json'))).toMatch(/^T\.json: layout\[0\]\[1\]: piece id .*beyond 9007199254740991/);
    expect(parseGridTruth({ rows: 1, cols: 2, layout: [['a', BIG]] }, 'T').layout).toEqual([['a', BIG]]);
    expect(parseGridTruth({ rows: 1, cols: 2, layout: [['a', 9007199254740991]] }, 'T').layout).toEqual([['a', '9007199254740991']]);
  });

  it('clue ids (given) too', () => {
    const t = parseGridTruth({ rows: 1, cols: 2, layout: [['9007199254740992', 'b']] }, 'T');
    // Read as 9007199254740992, the number named the other piece of the truth.
    expect(badInputMessage(() => parseGivenIds(JSON.parse(`[${BIG}]`), t, 'G.json'))).toMatch(/^G\.json: \[0\]: .*beyond 9007199254740991/);
  });

  it('assay score grid --truth: exit 2, one line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'assay-bigid-'));
    writeFileSync(join(dir, 'T.json'), `{"rows":1,"cols":2,"layout":[[1,${BIG}]]}`);
    writeFileSync(join(dir, 'A.txt'), `1 ${BIG}\n`);
    const r = runCli(['score', 'grid', '--truth', join(dir, 'T.json'), '--answer', join(dir, 'A.txt'), '--json']);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(refused);
    expect(r.code).toBe(2);
  });
});

describeDb('puzzle import refuses truth ids beyond 2^53', (ctx) => {
  const api = useApi(ctx);

  it('import (JSONL and YAML): refused, nothing stored', async () => {
    const jsonl = { path: 'p.jsonl', content: `{"id":"p-ok","rows":1,"cols":1,"layout":[["x"]]}\n{"id":"p-big","rows":1,"cols":2,"layout":[[1,${BIG}]]}\n` };
    await expect(importPuzzles(ctx.database, [jsonl])).rejects.toThrow(/p\.jsonl:2: layout\[0\]\[1\]: piece id .*beyond 9007199254740991/);
    const yaml = { path: 'p-yaml.yaml', content: `rows: 1\ncols: 2\nlayout:\n  - [1, 12345678901234567891]\n` };
    await expect(importPuzzles(ctx.database, [yaml])).rejects.toThrow(refused);
    const r = await ctx.database.execute(`select count(*)::int as n from puzzles where slug in ('p-ok', 'p-big', 'p-yaml')`);
    expect(Number(r.rows[0]!.n)).toBe(0);
  });

  it('POST /api/puzzles: 400 envelope, nothing stored', async () => {
    const res = await api.call(api.keys.write, 'POST', '/api/puzzles', {
      body: `{"id":"api-big","rows":1,"cols":2,"layout":[["a",${BIG}]]}\n`,
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('bad_input');
    expect(body.error.message).toMatch(refused);
    expect((await api.call(api.keys.read, 'GET', '/api/puzzles/api-big')).status).toBe(404);
  });

  it('POST /api/assemblies with given ids beyond 2^53: 400, nothing stored', async () => {
    await importPuzzles(ctx.database, [{ path: 'q.jsonl', content: '{"id":"q-big","rows":1,"cols":3,"layout":[["9007199254740992","b","c"]]}\n' }]);
    const res = await api.call(api.keys.write, 'POST', '/api/assemblies', {
      body: `{"run":"r-big","model":"m","puzzle":"q-big","answer":"9007199254740992 b c","given":[${BIG}]}`,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/beyond 9007199254740991/);
    const r = await ctx.database.execute(`select count(*)::int as n from answers a join runs r on r.id = a.run_id where r.name = 'r-big'`);
    expect(Number(r.rows[0]!.n)).toBe(0);
  });

  it('imported answers with meta.given beyond 2^53: refused, nothing stored', async () => {
    const { importAnswersJsonl } = await import('../../src/services/answers.ts');
    const line = `{"id":"x","run":"r-big2","model":"m","task":"assemble","puzzle":"q-big","text":"9007199254740992 b c","meta":{"given":[${BIG}]}}\n`;
    await expect(importAnswersJsonl(ctx.database, { path: 'a.jsonl', content: line }, {})).rejects.toThrow(/beyond 9007199254740991/);
    const r = await ctx.database.execute(`select count(*)::int as n from runs where name = 'r-big2'`);
    expect(Number(r.rows[0]!.n)).toBe(0);
  });
});
