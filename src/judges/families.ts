import { join } from 'node:path';
import { badInput } from '../domain/errors.ts';
import { type FamilyIndex, familyIndex, FamilyTableSchema } from '../domain/model-families.ts';
import { readInputText } from '../input/text-file.ts';
import { parseYamlInput } from '../input/yaml.ts';
import { JUDGES_DIR } from './config.ts';

/** The model-family table (judges/families.yaml), read and checked: a bad table is one bad-input line (exit 2). */
export const FAMILIES_FILE = join(JUDGES_DIR, 'families.yaml');

export function loadFamilies(path = FAMILIES_FILE): FamilyIndex {
  const raw = parseYamlInput(readInputText(path, { what: 'model families table' }), `model families table ${path}`);
  const r = FamilyTableSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw badInput(`model families table ${path}: ${i.path.length ? i.path.join('.') + ': ' : ''}${i.message}`);
  }
  return familyIndex(r.data);
}
