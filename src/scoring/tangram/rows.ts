import { badInput } from '../../domain/errors.ts';
import { jsonlRows } from '../choice/rows.ts';
import { parseTangramTarget, type TangramTarget } from './parse.ts';
import { assertExactId } from '../row-id.ts';

/**
 * Batch files of `assay score tangram --answers`. Answer rows: {"id"?, "model", "response", "target"?}.
 * Each row's target is, first found: its own "target" object, the --targets row with its id, the
 * --target file. A row without any is bad input (the file is wrong); a bad *response* is only a result.
 */
export interface TangramRow {
  line: number;
  id: string | null;
  model: string;
  response: string;
  target: TangramTarget;
}

const idOf = (v: unknown): string | null => (typeof v === 'string' || typeof v === 'number' ? String(v) : null);

/** --targets: {"id", "outline"} per line, ids unique. */
export function parseTargetsJsonl(text: string, name: string): Map<string, TangramTarget> {
  const targets = new Map<string, TangramTarget>();
  for (const { line, value } of jsonlRows(text, name)) {
    assertExactId(value.id, `${name}: line ${line}`);
    const id = idOf(value.id);
    if (id === null) throw badInput(`${name}: line ${line}: "id" must be a string or number`);
    if (targets.has(id)) throw badInput(`${name}: line ${line}: duplicate id '${id}'`);
    targets.set(id, parseTangramTarget(value, `${name}: line ${line}`));
  }
  return targets;
}

export function parseAnswersJsonl(text: string, name: string, targets: { byId: Map<string, TangramTarget>; fallback: TangramTarget | null }): TangramRow[] {
  // One answer per model and id, as in `score choice`: a repeated row would count twice in that model's rates.
  const firstLine = new Map<string, number>();
  return jsonlRows(text, name).map(({ line, value }) => {
    const where = `${name}: line ${line}`;
    if (typeof value.model !== 'string' || value.model === '') throw badInput(`${where}: "model" must be a non-empty string`);
    // null is a model that gave no answer: scored as a syntax error, like any other unusable response
    if (typeof value.response !== 'string' && value.response !== null) throw badInput(`${where}: "response" must be a string (or null)`);
    assertExactId(value.id, where);
    const id = idOf(value.id);
    if (id !== null) {
      const key = `${value.model}\u0000${id}`;
      const first = firstLine.get(key);
      if (first !== undefined) throw badInput(`${where}: a second answer of model '${value.model}' to id '${id}' (first on line ${first})`);
      firstLine.set(key, line);
    }
    const target =
      value.target !== undefined
        ? parseTangramTarget(value.target, `${where}: target`)
        : ((id !== null ? targets.byId.get(id) : undefined) ?? targets.fallback);
    if (!target) throw badInput(`${where}: no target (give the row a "target", a --targets row with id '${id ?? ''}', or --target)`);
    return { line, id, model: value.model, response: value.response ?? '', target };
  });
}
