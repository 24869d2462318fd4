import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { duplicateKey } from '../../src/domain/json-check.ts';
import { importAnswersJsonl } from '../../src/services/answers.ts';
import { listKeys } from '../../src/services/keys.ts';
import { listLabels } from '../../src/services/labels.ts';
import { importRubrics } from '../../src/services/rubrics.ts';
import { FIXTURES } from '../helpers/cli.ts';
import { describeDb, rowCounts } from '../helpers/db.ts';
import { useApi } from './app-fixture.ts';

/**
 * A JSON body naming one key twice is refused at the edge (input-guard.ts), naming the key's path:
 * JSON.parse keeps the last value silently, so {"scopes":["read"],"scopes":["admin"]} created an admin
 * key with 201 and {"label":"correct","label":"incorrect"} saved 'incorrect' — one of the two values the
 * client sent, dropped without a word.
 */

type ErrorBody = { error: { code: string; message: string } };

it('duplicateKey finds the first key given twice, with its path, through escapes, nesting and strings', () => {
  expect(duplicateKey('{"a":1,"b":{"c":[1,{"d":2,"e":3}]}}')).toBeNull();
  expect(duplicateKey('{"a":1,"a":2}')).toEqual({ path: ['a'] });
  expect(duplicateKey('{"a":1,"\\u0061":2}')).toEqual({ path: ['a'] });
  expect(duplicateKey('{"x":[{"k":1},{"k":1,"k":2}]}')).toEqual({ path: ['x', 1, 'k'] });
  expect(duplicateKey('[{"a":"{\\"a\\":1,","b":[]},{"a":1}]')).toBeNull();
  expect(duplicateKey('{"a":{"b":1},"c":{"b":2}}')).toBeNull();
  expect(duplicateKey('{"s":"\\"","s":1}')).toEqual({ path: ['s'] });
  expect(duplicateKey('"a"')).toBeNull();
});

describeDb('duplicate keys in a JSON body', (ctx) => {
  const api = useApi(ctx);
  let answerId = 0;
  beforeAll(async () => {
    await importRubrics(ctx.database, [{ path: 'farmyard.yaml', content: readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8') }]);
    const text = 'A red barn stands on the left. A fence runs across.';
    answerId = (await importAnswersJsonl(ctx.database, { path: 'a.jsonl', content: JSON.stringify({ id: 'd1', run: 'r1', model: 'm', task: 'describe', rubric: 'farmyard-54', text }) })).answerIds[0]!;
  });

  it.each([
    ['POST /api/keys', 'admin', '/api/keys', '{"scopes":["read"],"name":"ci","scopes":["admin"]}', 'body.scopes'],
    ['POST /api/annotations', 'annotate', '/api/annotations', '{"answerId":ANSWER,"item":"barn","label":"correct","label":"incorrect"}', 'body.label'],
    ['POST /api/rubrics', 'write', '/api/rubrics', '{"id":"r2","title":"T","reference":"R","items":[{"id":"i1","text":"x","weight":1,"weight":5}]}', 'body.items[0].weight'],
  ] as const)('%s: 400 naming the key, nothing written', async (_route, scope, path, body, at) => {
    const before = await rowCounts(ctx.database);
    const keysBefore = (await listKeys(ctx.database)).length;
    const res = await api.call(api.keys[scope], 'POST', path, { body: body.replace('ANSWER', String(answerId)) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).error).toEqual({ code: 'bad_input', message: `${at}: key given twice (JSON keeps only one of the values; give it once)` });
    expect(await rowCounts(ctx.database)).toEqual(before);
    expect((await listKeys(ctx.database)).length).toBe(keysBefore);
    expect((await listLabels(ctx.database, { answerIds: [answerId] })).total).toBe(0);
  });
});
