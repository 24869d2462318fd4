import type { Database } from '../../db/client.ts';
import type { LabelRow } from '../../domain/labels.ts';

/**
 * Which rubric version a calibration row was given against, and what is left out because of it (pure,
 * but for versionTexts, the one read of the versions' item texts).
 * A rubric item id may keep its id while a new version rewords it: a label of "two sheep" is no label of
 * "three goats". So, per unit (answer × item), the reference is the item's text in the newest version any
 * of the unit's rows was given against; a row whose version words the item otherwise is left out and
 * counted (textChanged). A row whose version is unknown (an import that did not say, a label older than
 * the rubric's versions, a grade without one) is kept, since nothing says it differs, and counted
 * (unknown). Whole-answer rows concern no item and are never checked.
 */

/** Item texts per rubric version row id: the version number and each item's text. */
export type VersionTexts = ReadonlyMap<number, { version: number; items: ReadonlyMap<string, string> }>;

export interface VersionedRow {
  row: LabelRow;
  /** The database id of the row's answer (the row's `answer` may be an id within a run). */
  answerId: number;
  /** The rubric version row id it was given against; null when unknown. */
  versionId: number | null;
}

export interface LabelVersionFacts {
  /** Item rows left out: their version words the item otherwise than the unit's reference version. */
  textChanged: number;
  /** Item rows kept without a known version. */
  unknown: number;
  /** Labels set aside because the same person labelled the unit again, differently, elsewhere (calibration-labels.ts). */
  superseded: number;
}

/** Item texts of the rubric versions (row ids) the rows were given against. */
export async function versionTexts(database: Database, ids: readonly number[]): Promise<VersionTexts> {
  const out = new Map<number, { version: number; items: Map<string, string> }>();
  if (ids.length === 0) return out;
  // One JSON array: decoding many rows field by field is what costs on PGlite.
  const r = await database.execute(
    `select coalesce(json_agg(json_build_array(rv.id, rv.version, ri.item_key, ri.text)), '[]')::text as j
       from rubric_versions rv left join rubric_items ri on ri.rubric_version_id = rv.id where rv.id = any($1::int[])`,
    [[...new Set(ids)]],
  );
  for (const [id, version, key, text] of JSON.parse(String(r.rows[0]!.j)) as Array<[number, number, string | null, string | null]>) {
    const v = out.get(id) ?? { version, items: new Map<string, string>() };
    if (key !== null && text !== null) v.items.set(key, text);
    out.set(id, v);
  }
  return out;
}

export const NO_VERSION_FACTS: LabelVersionFacts = { textChanged: 0, unknown: 0, superseded: 0 };

export function settleVersions(rows: readonly VersionedRow[], texts: VersionTexts): { kept: LabelRow[]; textChanged: number; unknown: number } {
  const textOf = (r: VersionedRow) => (r.versionId === null || r.row.item === undefined ? undefined : texts.get(r.versionId)?.items.get(r.row.item));
  const reference = new Map<string, { version: number; text: string }>();
  const unitOf = (r: VersionedRow) => `${r.answerId}\u0000${r.row.item}`;
  for (const r of rows) {
    const text = textOf(r);
    if (text === undefined) continue;
    const version = texts.get(r.versionId!)!.version;
    const ref = reference.get(unitOf(r));
    if (!ref || version > ref.version) reference.set(unitOf(r), { version, text });
  }
  const kept: LabelRow[] = [];
  let textChanged = 0;
  let unknown = 0;
  for (const r of rows) {
    if (r.row.item === undefined) {
      kept.push(r.row);
      continue;
    }
    const text = textOf(r);
    if (text === undefined) unknown++;
    else if (text !== reference.get(unitOf(r))!.text) {
      textChanged++;
      continue;
    }
    kept.push(r.row);
  }
  return { kept, textChanged, unknown };
}

/** What a report says about the rows left out or kept unchecked (empty when nothing was). */
export function versionNotes(f: LabelVersionFacts, scope: 'campaign' | 'all' = 'all'): string[] {
  const out: string[] = [];
  if (f.textChanged) {
    out.push(
      `${f.textChanged} item label(s) or grade(s) left out: given against a rubric version whose text of the item differs from the newest version the unit's other labels or grades were given against (a label of a reworded item is not a label of the new one)`,
    );
  }
  if (f.unknown) {
    out.push(`${f.unknown} item label(s) of unknown rubric version kept unchecked (imported without rubric_version, or older than the rubric's versions; grades without a version count here too)`);
  }
  if (f.superseded) {
    out.push(
      scope === 'campaign'
        ? `${f.superseded} plain label(s) set aside: the annotator labelled the unit differently in this campaign, and the campaign's label stands`
        : `${f.superseded} label(s) set aside: the same person labelled the unit again, differently, in a campaign or on the plain pages; their newest label stands`,
    );
  }
  return out;
}

/**
 * For readers that hold grades of their own (judge compare, the reliability diagram) and settle them with
 * the labels through calibrationLabelSet: the judge rows it kept, as a test of one grade item. A grade item
 * of an answer the set holds labels of, that this says no to, was left out for its version (counted there).
 */
export function keptJudgeItems(rows: readonly LabelRow[]): (judge: string, answer: string, item: string) => boolean {
  const key = (judge: string, answer: string, item: string) => JSON.stringify([judge, answer, item]);
  const kept = new Set(rows.flatMap((r) => (r.kind === 'judge' && r.item !== undefined ? [key(r.rater, r.answer, r.item)] : [])));
  return (judge, answer, item) => kept.has(key(judge, answer, item));
}
