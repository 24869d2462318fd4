import type { Database } from '../../db/client.ts';
import { ANSWER_SCALE_KEYS, type HumansMode } from '../../domain/campaigns.ts';
import type { LabelRow, LabelScale } from '../../domain/labels.ts';
import { applyHumans, type FinalLabel } from './humans.ts';

/**
 * What calibration-labels.ts (the one calibration label builder) asks of campaigns: where a campaign's
 * answer-level labels stand, and the adjudicated final labels for `humans=adjudicated`.
 */

const ANSWER_LEVEL: ReadonlyMap<string, LabelScale> = new Map([
  [ANSWER_SCALE_KEYS.binary, 'binary'],
  [ANSWER_SCALE_KEYS.numeric, 'numeric'],
]);

/**
 * The calibration item of a stored label key, or null to leave the label out: `answer:binary` is the
 * whole-answer unit ('') on the binary scale (and without a scale, as the reference-match label is), and
 * `answer:numeric` the whole-answer unit on the numeric scale; on any other scale they are not units.
 */
export function answerLevelUnit(scale: LabelScale | undefined, stored: string): string | null {
  const own = ANSWER_LEVEL.get(stored);
  if (own === undefined) return stored;
  return own === scale || (scale === undefined && own === 'binary') ? '' : null;
}

interface Query {
  key: 'externalId' | 'answerId';
  run?: string;
  model?: string;
  scale?: LabelScale;
  humans?: HumansMode;
}

/** The rows with their human side formed as `q.humans` asks, reading the adjudications in the same filter. */
export async function humansRows(database: Database, rows: LabelRow[], q: Query): Promise<LabelRow[]> {
  const mode = q.humans ?? 'each';
  if (mode === 'each') return rows;
  const finals: FinalLabel[] = [];
  if (mode === 'adjudicated') {
    const answerKey = q.key === 'externalId' ? 'a.external_id' : 'a.id::text';
    // Several campaigns may settle one unit: the newest final label stands.
    const r = await database.execute(
      `select distinct on (d.answer_id, d.item_key) ${answerKey} as answer, d.item_key as item, d.label
         from adjudications d join answers a on a.id = d.answer_id join runs r on r.id = a.run_id
        where ($1::text is null or r.name = $1) and ($2::text is null or r.model = $2)
        order by d.answer_id, d.item_key, d.created_at desc, d.id desc`,
      [q.run ?? null, q.model ?? null],
    );
    for (const f of r.rows as Array<{ answer: string; item: string; label: string }>) {
      const item = answerLevelUnit(q.scale, f.item);
      if (item !== null) finals.push({ answer: String(f.answer), ...(item ? { item } : {}), label: f.label });
    }
  }
  return applyHumans(rows, mode, finals, q.scale);
}
