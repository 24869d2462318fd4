import { spawnSync } from 'node:child_process';
import { beforeAll, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { ROOT } from '../helpers/cli.ts';

/**
 * The Python client's TypedDicts (clients/python/assay_client/types.py) against the live OpenAPI
 * document: for each response in its RESPONSES table, every reachable TypedDict has exactly the
 * schema's property names, the same required ones, and the same JSON types (nullability included),
 * recursively through lists, maps, tuples and $refs. `python3 clients/python/tests/describe_types.py`
 * dumps the Python side.
 */

type Py =
  | { kind: 'typed'; name: string }
  | { kind: 'list' | 'dict'; of: Py }
  | { kind: 'tuple' | 'union'; of: Py[] }
  | { kind: 'literal'; values: unknown[] }
  | { kind: 'prim'; name: 'str' | 'int' | 'float' | 'bool' | 'None' }
  | { kind: 'any' };
interface PyDump {
  responses: { method: string; path: string; status: string; type: Py }[];
  types: Record<string, Record<string, { required: boolean; type: Py }>>;
  defined: string[];
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Schema = Record<string, any>;

const PRIM_JSON = { str: 'string', int: 'integer', float: 'number', bool: 'boolean', None: 'null' } as const;

/** Compares Python types with JSON Schemas of one document; each mismatch is one line naming where. */
export function comparer(doc: Schema, py: PyDump) {
  const problems: string[] = [];
  const ref = (s: Schema): Schema => {
    while (s?.$ref) s = doc.components.schemas[String(s.$ref).replace('#/components/schemas/', '')];
    if (!s?.allOf) return s;
    // allOf of objects (a schema extended with more fields): one object with every property.
    const parts = (s.allOf as Schema[]).map(ref);
    return { type: 'object', properties: Object.assign({}, ...parts.map((p) => p.properties ?? {})), required: parts.flatMap((p) => p.required ?? []) };
  };
  const alternatives = (s: Schema): Schema[] => {
    s = ref(s);
    if (s.anyOf ?? s.oneOf) return ((s.anyOf ?? s.oneOf) as Schema[]).flatMap(alternatives);
    if (Array.isArray(s.type)) return (s.type as string[]).map((type) => ({ ...s, type }));
    return [s];
  };
  const isNull = (s: Schema) => s.type === 'null';
  const jsonType = (s: Schema): string | undefined => s.type ?? (s.properties ? 'object' : s.enum ? typeof s.enum.find((v: unknown) => v !== null) : undefined);

  function compare(p: Py, schema: Schema | undefined, where: string): void {
    if (p.kind === 'any') return;
    if (!schema) return void problems.push(`${where}: no schema in the document`);
    const alts = alternatives(schema);
    const pyAlts = p.kind === 'union' ? p.of : [p];
    const pyNull = pyAlts.some((a) => a.kind === 'prim' && a.name === 'None');
    const docNull = alts.some(isNull) || alts.some((a) => Array.isArray(a.enum) && a.enum.includes(null));
    if (pyNull !== docNull) problems.push(`${where}: ${pyNull ? 'Optional in Python, not nullable in the document' : 'nullable in the document, not Optional in Python'}`);
    const pyRest = pyAlts.filter((a) => !(a.kind === 'prim' && a.name === 'None'));
    const docRest = alts.filter((a) => !isNull(a));
    if (pyRest.length !== 1 || docRest.length !== 1) {
      // A union of scalars (e.g. str | float): the same set of JSON types on both sides.
      const pyTypes = pyRest.map((a) => (a.kind === 'prim' ? PRIM_JSON[a.name] : a.kind)).sort();
      const docTypes = docRest.map((a) => jsonType(a) ?? 'untyped').sort();
      if (pyTypes.join('|') !== docTypes.join('|')) problems.push(`${where}: Python ${pyTypes.join('|')}, document ${docTypes.join('|')}`);
      return;
    }
    const [a, s] = [pyRest[0]!, docRest[0]!];
    const t = jsonType(s);
    switch (a.kind) {
      case 'typed': {
        if (t !== 'object' || !s.properties) return void problems.push(`${where}: ${a.name} in Python, ${t ?? 'untyped'} in the document`);
        const fields = py.types[a.name]!;
        const required = new Set<string>(s.required ?? []);
        for (const k of Object.keys(s.properties)) if (!(k in fields)) problems.push(`${where}: ${a.name} lacks the field '${k}'`);
        for (const [k, f] of Object.entries(fields)) {
          if (!(k in s.properties)) problems.push(`${where}: ${a.name}.${k} is not in the document`);
          else {
            if (f.required !== required.has(k)) problems.push(`${where}: ${a.name}.${k} is ${f.required ? 'required' : 'NotRequired'} in Python, ${required.has(k) ? 'required' : 'optional'} in the document`);
            compare(f.type, s.properties[k], `${where}.${k}`);
          }
        }
        return;
      }
      case 'list':
        if (t !== 'array' || !s.items) return void problems.push(`${where}: list in Python, ${t ?? 'untyped'} in the document`);
        return compare(a.of, s.items, `${where}[]`);
      case 'tuple':
        if (t !== 'array' || s.prefixItems?.length !== a.of.length) return void problems.push(`${where}: a ${a.of.length}-tuple in Python, not in the document`);
        return a.of.forEach((x, i) => compare(x, s.prefixItems[i], `${where}[${i}]`));
      case 'dict':
        if (t !== 'object' || s.additionalProperties === undefined) return void problems.push(`${where}: dict in Python, ${t ?? 'untyped'} in the document`);
        return compare(a.of, s.additionalProperties === true ? {} : s.additionalProperties, `${where}{}`);
      case 'literal': {
        const want = [...a.values].map(String).sort().join('|');
        const have = ((s.enum ?? []) as unknown[]).filter((v) => v !== null).map(String).sort().join('|');
        if (want !== have) problems.push(`${where}: Literal[${want}] in Python, enum [${have}] in the document`);
        return;
      }
      case 'prim':
        if (PRIM_JSON[a.name] !== t) problems.push(`${where}: ${a.name} in Python, ${t ?? 'untyped'} in the document`);
        return;
      default:
        problems.push(`${where}: ${a.kind} in Python, cannot compare`);
    }
  }

  for (const r of py.responses) {
    const schema = doc.paths[r.path]?.[r.method]?.responses?.[r.status]?.content?.['application/json']?.schema;
    compare(r.type, schema, `${r.method.toUpperCase()} ${r.path} ${r.status}`);
  }
  return problems;
}

const hasPython = spawnSync('python3', ['--version']).status === 0;
let doc: Schema;
let py: PyDump;
beforeAll(async () => {
  const app = createApp({ database: {} as never, config: loadConfig({}), log: () => {} });
  doc = (await (await app.request('/openapi.json')).json()) as Schema;
  if (!hasPython) return;
  const r = spawnSync('python3', ['-B', 'clients/python/tests/describe_types.py'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  py = JSON.parse(r.stdout) as PyDump;
}, 60_000);

it.skipIf(!hasPython)(`the TypedDicts match the OpenAPI document's response schemas${hasPython ? '' : ' (skipped: python3 not found)'}`, () => {
  expect(comparer(doc, py)).toEqual([]);
  // Every TypedDict of the module is reached from RESPONSES, so none escapes the check.
  expect(Object.keys(py.types).sort()).toEqual(py.defined);
  expect(py.responses.length).toBeGreaterThanOrEqual(13);
});

it.skipIf(!hasPython)('the comparison finds a renamed field, a flipped required flag, a lost Optional and a wrong scalar', () => {
  const broken = structuredClone(py);
  const grade = broken.types.Grade!;
  grade.gradeID = grade.gradeId!;
  delete grade.gradeId;
  broken.types.GradeJudge!.note!.required = true;
  broken.types.Grade!.f1!.type = { kind: 'prim', name: 'float' };
  broken.types.GradingProgress!.total!.type = { kind: 'prim', name: 'str' };
  // Grade is reached from several responses; one of them is enough to read.
  const found = comparer(doc, broken).filter((p) => p.startsWith('POST /api/grades 200') || p.startsWith('GET /api/runs/'));
  expect(found).toEqual([
    "POST /api/grades 200: Grade lacks the field 'gradeId'",
    'POST /api/grades 200.f1: nullable in the document, not Optional in Python',
    'POST /api/grades 200.judge: GradeJudge.note is required in Python, optional in the document',
    'POST /api/grades 200: Grade.gradeID is not in the document',
    'GET /api/runs/{id}/progress 200.total: str in Python, integer in the document',
  ]);
});
