import { z } from 'zod';
import { CAPS } from './limits.ts';

/**
 * Model families (issue 13 §5, the self-preference flag): which maker a model name belongs to, so a
 * report can say when the judge and the graded model are of one family. The table (judges/families.yaml)
 * maps model-name prefixes to families; the lookup is pure so analysis/ can use it on stored rows.
 */

/** The family of a model no prefix matches. Never a table value, so "unknown = unknown" is never a match. */
export const UNKNOWN_FAMILY = 'unknown';

const FAMILY = /^[a-z0-9][a-z0-9._-]*$/;

export const FamilyTableSchema = z
  .object({
    prefixes: z
      .record(z.string(), z.string().max(CAPS.name).regex(FAMILY, 'families are lower-case letters, digits, . _ -'))
      .superRefine((m, ctx) => {
        const seen = new Map<string, string>();
        for (const [prefix, family] of Object.entries(m)) {
          // Key checks here, not in the record's key schema: zod reports a bad key only as "Invalid key in record".
          if (prefix.trim() === '') ctx.addIssue({ code: 'custom', path: [prefix], message: 'a prefix must not be empty (it would match every model)' });
          if (prefix.length > CAPS.name) ctx.addIssue({ code: 'custom', path: [prefix.slice(0, 40)], message: `a prefix is at most ${CAPS.name} characters` });
          if (family === UNKNOWN_FAMILY) ctx.addIssue({ code: 'custom', path: [prefix], message: `'${UNKNOWN_FAMILY}' is what unmatched models get; leave the prefix out instead` });
          const key = prefix.toLowerCase();
          const other = seen.get(key);
          if (other !== undefined) ctx.addIssue({ code: 'custom', path: [prefix], message: `same prefix as '${other}' (prefixes match case-insensitively)` });
          seen.set(key, prefix);
        }
      }),
  })
  .strict();

export type FamilyTable = z.infer<typeof FamilyTableSchema>;

/** A table ready for lookups: lower-cased prefixes, longest first. */
export interface FamilyIndex {
  readonly entries: ReadonlyArray<readonly [prefix: string, family: string]>;
}

export function familyIndex(table: FamilyTable): FamilyIndex {
  const entries = Object.entries(table.prefixes)
    .map(([p, f]) => [p.toLowerCase(), f] as const)
    .sort((a, b) => b[0].length - a[0].length || (a[0] < b[0] ? -1 : 1));
  return { entries };
}

/** The family of a model name: the longest matching prefix, case-insensitively; `unknown` otherwise. */
export function familyOf(index: FamilyIndex, model: string): string {
  const name = model.trim().toLowerCase();
  for (const [prefix, family] of index.entries) if (name.startsWith(prefix)) return family;
  return UNKNOWN_FAMILY;
}

/** True when both models are of one known family (two unknown models are not flagged). */
export function sameFamily(index: FamilyIndex, judgeModel: string, gradedModel: string): boolean {
  const f = familyOf(index, judgeModel);
  return f !== UNKNOWN_FAMILY && f === familyOf(index, gradedModel);
}
