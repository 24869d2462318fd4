import { badInput } from '../../domain/errors.ts';
import { parseGivenIds, type GridTruth } from '../../domain/grid.ts';
import { jsonlRows } from '../choice/rows.ts';
import { scoreGrid, type GridScore } from './metrics.ts';
import { assertExactId } from '../row-id.ts';

/**
 * Many answers to one puzzle in one pass (`assay score grid --truth T --answers A.jsonl`): each line is
 * {"id", "answer", "given"?}. "answer" is the answer text, or a JSON grid or mapping given inline (scored
 * as that JSON's text, as the single-file form reads a .json answer); "given" the line's clue ids. Each
 * line is scored exactly as the single-file form scores it; the aggregate counts statuses and averages
 * each metric over the answers where it is defined (null where it is defined for none).
 */

export interface GridRow {
  line: number;
  id: string;
  answer: string;
  given: string[];
}

type Mean = number | null;
export interface GridBatchAggregate {
  n: number;
  status: Record<GridScore['status'], number>;
  direct: Mean;
  exactMatch: Mean;
  neighbour: Mean;
  adjacency: Mean;
  proximity: Mean;
  shapeCompatibility: Mean;
  byPosition: { corner: Mean; edge: Mean; interior: Mean };
}

export function parseGridAnswersJsonl(text: string, name: string, truth: GridTruth): GridRow[] {
  const seen = new Set<string>();
  return jsonlRows(text, name).map(({ line, value }) => {
    const where = `${name}: line ${line}`;
    assertExactId(value.id, where);
    const id = typeof value.id === 'number' && Number.isFinite(value.id) ? String(value.id) : typeof value.id === 'string' && value.id.trim() !== '' ? value.id.trim() : null;
    if (id === null) throw badInput(`${where}: "id" must be a non-empty string or a number`);
    if (seen.has(id)) throw badInput(`${where}: duplicate id '${id}'`);
    seen.add(id);
    const a = value.answer;
    if (typeof a !== 'string' && (a === null || typeof a !== 'object')) throw badInput(`${where}: "answer" must be the answer text or a JSON grid/mapping`);
    const given = value.given === undefined ? [] : parseGivenIds(value.given, truth, `${where}: given`);
    return { line, id, answer: typeof a === 'string' ? a : JSON.stringify(a), given };
  });
}

export function scoreGridBatch(truth: GridTruth, rows: GridRow[]): { lines: Array<{ id: string } & GridScore>; aggregate: GridBatchAggregate } {
  const lines = rows.map((row) => ({ id: row.id, ...scoreGrid(truth, row.answer, { given: row.given }) }));
  const mean = (pick: (s: GridScore) => number | null): Mean => {
    let sum = 0;
    let k = 0;
    for (const s of lines) {
      const v = pick(s);
      if (v !== null) {
        sum += v;
        k++;
      }
    }
    return k === 0 ? null : sum / k;
  };
  const status = { valid: 0, repaired: 0, invalid: 0 };
  for (const s of lines) status[s.status]++;
  return {
    lines,
    aggregate: {
      n: lines.length,
      status,
      direct: mean((s) => s.direct),
      exactMatch: mean((s) => s.exactMatch),
      neighbour: mean((s) => s.neighbour),
      adjacency: mean((s) => s.adjacency),
      proximity: mean((s) => s.proximity),
      shapeCompatibility: mean((s) => s.shapeCompatibility),
      byPosition: { corner: mean((s) => s.byPosition.corner), edge: mean((s) => s.byPosition.edge), interior: mean((s) => s.byPosition.interior) },
    },
  };
}
