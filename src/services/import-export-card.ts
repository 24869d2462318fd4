import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { badInput } from '../domain/errors.ts';

/**
 * The row counts the dataset card (README.md) of a run export states per table (`| \`grades\` | 4 | … |`,
 * export/card.ts). A JSONL file cut at a line end, or emptied, still parses: only these counts tell a
 * partial copy from the run, so an import compares each file it reads with them and refuses a difference
 * (exit 2, nothing written) instead of storing the run with fewer grades or labels. A card without the
 * table (an edited one), or no card, states nothing and checks nothing.
 */
export function cardRowCounts(dir: string): Map<string, number> {
  const path = join(dir, 'README.md');
  const counts = new Map<string, number>();
  if (!existsSync(path)) return counts;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const m = /^\| `([a-z_]+)` \| (\d+) \|/.exec(line);
    if (m) counts.set(m[1]!, Number(m[2]));
  }
  return counts;
}

/** Refuses a table whose file holds other than the card's count of rows. */
export function checkCardCounts(dir: string, held: ReadonlyArray<readonly [table: string, rows: number]>): void {
  const stated = cardRowCounts(dir);
  for (const [table, rows] of held) {
    const says = stated.get(table);
    if (says !== undefined && says !== rows) {
      throw badInput(`${join(dir, `${table}.jsonl`)}: ${rows} rows, the dataset card (README.md) says ${says}: a partial copy of the export (cut short or emptied); nothing written`);
    }
  }
}
