import { parseYamlInput } from '../input/yaml.ts';
import { readJson, readText } from './io.ts';

/**
 * Rubric, judge, campaign and verdict files: JSON or YAML. Apart from io.ts because the `yaml` package
 * is the largest thing a command loads at start (~4 ms here); commands that read no YAML (`assay stats`,
 * whose start-up is measured against `node -e 0`) do not load it.
 */

export function readYaml(path: string, what = 'file'): unknown {
  return parseYamlInput(readText(path, what), `${what} ${path}`);
}

/** JSON or YAML by extension (YAML is a superset, but JSON errors read better from JSON.parse). */
export function readStructured(path: string, what = 'file'): unknown {
  return /\.ya?ml$/i.test(path) ? readYaml(path, what) : readJson(path, what);
}
