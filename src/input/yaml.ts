import * as YAML from 'yaml';
import type { Document } from 'yaml';
import { badInput } from '../domain/errors.ts';
import { assertStorableJson } from '../domain/json-check.ts';

/**
 * YAML from users (rubrics, judges, calibration rubrics, import files). Two resource limits, both
 * refused as one bad-input line: the text size, and the number of alias expansions — a "billion
 * laughs" file of nested aliases is a few hundred bytes but expands to gigabytes. The `yaml` package
 * counts expansions against maxAliasCount and throws a ReferenceError when they run over, which we turn
 * into bad input instead of letting it out as an internal error.
 */

/** No rubric, judge or puzzle file comes near this; JSON given to the YAML parser counts too. */
export const MAX_YAML_BYTES = 4 * 1024 * 1024;
/** Alias expansions per document (the `yaml` default, stated so every reader uses the same). */
export const MAX_YAML_ALIASES = 100;

// Imported, not required on first parse: in the build (scripts/build.mjs) an import is bundled with the
// rest of `yaml`'s users (prices, imports, the dataset card), one copy in a shared chunk, where a
// runtime require loaded a second copy as its ~40 CommonJS files (35 ms of `assay run`'s first judge parse).

const firstLine = (e: unknown) => String((e as Error)?.message ?? e).split('\n')[0]!.trim();

export function checkYamlSize(text: string, name: string): void {
  // String length counts UTF-16 units: close enough to bytes for a cap, and it needs no encoding.
  if (text.length > MAX_YAML_BYTES) throw badInput(`${name}: too large for YAML (${text.length} characters; the limit is ${MAX_YAML_BYTES})`);
}

/** Parses one YAML (or JSON) document; `name` starts every message, e.g. "rubric r.yaml". */
export function parseYamlInput(text: string, name: string): unknown {
  checkYamlSize(text, name);
  let value: unknown;
  try {
    value = YAML.parse(text, { maxAliasCount: MAX_YAML_ALIASES, prettyErrors: false });
  } catch (e) {
    throw yamlError(e, name);
  }
  // The same nesting, NUL and finite-number rules as JSON documents (YAML "\0" is a NUL; .inf is Infinity).
  assertStorableJson(value, name);
  return value;
}

/** Document.toJS with the alias budget; for readers that keep the Document (for line numbers). */
export function yamlDocumentToJs(doc: Document, name: string): unknown {
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (e) {
    throw yamlError(e, name);
  }
  assertStorableJson(value, name);
  return value;
}

function yamlError(e: unknown, name: string) {
  const m = firstLine(e);
  return /excessive alias count/i.test(m)
    ? badInput(`${name}: too many YAML alias expansions (more than ${MAX_YAML_ALIASES}; an alias bomb?)`)
    : badInput(`${name}: not valid YAML (${m})`);
}
