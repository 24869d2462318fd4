import { readFileSync } from 'node:fs';
import { parseGridTruth, type GridTruth } from '../../../src/domain/grid.ts';
import { FIXTURES } from '../../helpers/cli.ts';

export const fixture = (name: string): string => readFileSync(`${FIXTURES}${name}`, 'utf8');
export const truthFixture = (name: string): GridTruth => parseGridTruth(JSON.parse(fixture(name)), name);

/** A truth whose ids are the given rows (whitespace-separated strings), no edges. */
export function truthOf(...rows: string[]): GridTruth {
  const layout = rows.map((r) => r.trim().split(/\s+/));
  return parseGridTruth({ rows: layout.length, cols: layout[0]!.length, layout }, 'test truth');
}

/** Ids 0..n-1 (as strings) in row-major order. */
export function numberedTruth(rows: number, cols: number): GridTruth {
  const layout = Array.from({ length: rows }, (_, r) => Array.from({ length: cols }, (_, c) => String(r * cols + c)));
  return parseGridTruth({ rows, cols, layout }, 'test truth');
}

/** Text answer from a row-major list of ids. */
export function gridText(ids: readonly string[], cols: number, sep = ' '): string {
  const lines: string[] = [];
  for (let i = 0; i < ids.length; i += cols) lines.push(ids.slice(i, i + cols).join(sep));
  return lines.join('\n');
}
