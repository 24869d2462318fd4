/**
 * Walks over the OpenAPI document for test/api/openapi.test.ts: $refs resolved against the document,
 * schemas that say nothing (`{}`), and the fields of a real response its schema does not describe.
 */

export type Schema = Record<string, unknown>;
export interface OpenApiDoc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}
export interface Operation {
  operationId?: string;
  requestBody?: { content: Record<string, { schema?: Schema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema?: Schema }> }>;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

export function operations(doc: OpenApiDoc): Array<{ method: string; path: string; op: Operation }> {
  return Object.entries(doc.paths).flatMap(([path, item]) => HTTP_METHODS.filter((m) => item[m]).map((m) => ({ method: m.toUpperCase(), path, op: item[m]! })));
}

/** The schema a $ref names (a chain of them), or the schema itself. */
export function resolve(doc: OpenApiDoc, s: Schema): Schema {
  let cur = s;
  for (let hops = 0; typeof cur.$ref === 'string'; hops++) {
    if (hops > 20) throw new Error(`$ref cycle at ${String(s.$ref)}`);
    const name = /^#\/components\/schemas\/(.+)$/.exec(cur.$ref)?.[1];
    const next = name === undefined ? undefined : doc.components.schemas[name];
    if (!next) throw new Error(`unresolved $ref ${cur.$ref}`);
    cur = next;
  }
  return cur;
}

/** A schema with no constraint at all: `{}` or one holding only annotations. */
const ANNOTATIONS = new Set(['description', 'title', 'example', 'examples', 'default', 'deprecated', 'readOnly', 'writeOnly']);
export const saysNothing = (s: Schema): boolean => Object.keys(s).every((k) => ANNOTATIONS.has(k));

const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const;

/**
 * Where inside `s` a schema says nothing, as JSON-pointer-like paths. A free-form JSON object
 * (`additionalProperties: {}`, e.g. an answer's meta) is allowed: its values are any JSON by design.
 * Each named schema is entered once.
 */
export function emptySpots(doc: OpenApiDoc, s: Schema, at = '', seen = new Set<string>()): string[] {
  if (typeof s.$ref === 'string') {
    if (seen.has(s.$ref)) return [];
    seen.add(s.$ref);
    return emptySpots(doc, resolve(doc, s), `${at}(${s.$ref})`, seen);
  }
  if (saysNothing(s)) return [at || '/'];
  const out: string[] = [];
  for (const [k, v] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) out.push(...emptySpots(doc, v, `${at}/${k}`, seen));
  if (s.items && typeof s.items === 'object') out.push(...emptySpots(doc, s.items as Schema, `${at}/[]`, seen));
  for (const list of SUBSCHEMA_LISTS) {
    ((s[list] ?? []) as Schema[]).forEach((v, i) => {
      // A named schema with its description overridden is allOf [$ref, {description}]: the second part annotates.
      if (list === 'allOf' && saysNothing(v)) return;
      out.push(...emptySpots(doc, v, `${at}/${list}[${i}]`, seen));
    });
  }
  const extra = s.additionalProperties;
  if (extra && typeof extra === 'object' && !saysNothing(extra as Schema)) out.push(...emptySpots(doc, extra as Schema, `${at}/*`, seen));
  return out;
}

const typeOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? 'number' : typeof v);
const allows = (s: Schema, v: unknown): boolean => {
  const t = s.type;
  if (t === undefined) return true;
  const types = (Array.isArray(t) ? t : [t]) as string[];
  return types.includes(typeOf(v)) || (typeOf(v) === 'number' && types.includes('integer'));
};

/**
 * The fields of `value` that `s` does not describe (objects are not strict, so a validator accepts
 * them): an undescribed field is one a generated client cannot see. anyOf/oneOf: the first member
 * whose type admits the value.
 */
export function undescribed(doc: OpenApiDoc, s0: Schema, value: unknown, at = ''): string[] {
  const s = resolve(doc, s0);
  if (value === null || typeof value !== 'object') return [];
  for (const list of ['anyOf', 'oneOf'] as const) {
    const members = s[list] as Schema[] | undefined;
    if (members) {
      const m = members.map((x) => resolve(doc, x)).find((x) => allows(x, value));
      return m ? undescribed(doc, m, value, at) : [];
    }
  }
  if (Array.isArray(value)) {
    const prefix = s.prefixItems as Schema[] | undefined;
    return value.flatMap((v, i) => {
      const item = prefix?.[i] ?? (s.items as Schema | undefined);
      return item ? undescribed(doc, item, v, `${at}/${i}`) : [];
    });
  }
  const parts = [s, ...((s.allOf ?? []) as Schema[]).map((x) => resolve(doc, x))];
  const props: Record<string, Schema> = Object.assign({}, ...parts.map((p) => p.properties ?? {}));
  const extra = parts.map((p) => p.additionalProperties).find((x) => x && typeof x === 'object') as Schema | undefined;
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => {
    const p = props[k] ?? extra;
    if (!p) return [`${at}/${k}`];
    return saysNothing(p) ? [] : undescribed(doc, p, v, `${at}/${k}`);
  });
}
