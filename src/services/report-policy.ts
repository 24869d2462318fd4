import type { UnverifiablePolicy } from '../scoring/description/score.ts';

/**
 * The unverifiable-claims policy of a report's description F1 (design §2.1; docs/reports.md). A grade holds
 * its correctness under the policy it was graded with (meta.unverifiable = exclude, absent for the default),
 * so a mean over stored F1 mixed two definitions of correctness. A report reads every grade under one
 * policy: a grade whose stored claims give back its stored correctness and F1 under either policy is
 * rescored from them (this also places grades stored before meta.unverifiable existed); one whose claims
 * do not (a panel grade: the mean of its samples' correctness, no claims kept) counts only under the policy
 * its meta says, and is left out, and counted, under the other.
 */

export const UNVERIFIABLE_POLICIES = ['count', 'exclude'] as const satisfies readonly UnverifiablePolicy[];

/** The policy of a report that names none: the grading default (`assay grade` and POST /api/grades without one). */
export const REPORT_UNVERIFIABLE_DEFAULT: UnverifiablePolicy = 'count';

export const reportPolicy = (p: UnverifiablePolicy | undefined): UnverifiablePolicy => p ?? REPORT_UNVERIFIABLE_DEFAULT;

/** What an F1 report says of its policy: the policy, and a sentence when grades of the other were left out. */
export interface PolicyInfo {
  unverifiable: UnverifiablePolicy;
  unverifiableNote: string | null;
}

export function policyInfo(policy: UnverifiablePolicy, leftOut: number): PolicyInfo {
  if (leftOut === 0) return { unverifiable: policy, unverifiableNote: null };
  const other = policy === 'count' ? 'excluded' : 'counted';
  const grades = leftOut === 1 ? '1 grade' : `${leftOut} grades`;
  const their = leftOut === 1 ? 'its stored claims cannot rescore it' : 'their stored claims cannot rescore them';
  return { unverifiable: policy, unverifiableNote: `${grades} left out: computed with unverifiable claims ${other}, and ${their} under ${policy} (a panel grade keeps none)` };
}

/**
 * SQL over a grade row `g` (columns status, completeness, correctness, f1, claims, meta): lateral joins to
 * add after it, the grade's F1 under the policy in `policy` (a SQL text parameter: 'count' | 'exclude'), and
 * whether it is an ok F1 left out because it cannot be read under that policy. The arithmetic is the
 * scorer's (score.ts), operation for operation in float8, so a rescored grade under its own policy is its
 * stored F1 to the bit.
 */
export function policyF1Sql(g: string, policy: string): { joins: string; f1: string; leftOut: string } {
  const f1Of = (c: string) => `case when ${g}.completeness + ${c} > 0 then 2 * ${g}.completeness * ${c} / (${g}.completeness + ${c}) else 0 end`;
  const joins = `
     cross join lateral (select count(*) filter (where e->>'verdict' = 'true')::float8 as t, count(*) filter (where e->>'verdict' = 'false')::float8 as f,
                                count(*) filter (where e->>'verdict' = 'unverifiable')::float8 as u
                           from jsonb_array_elements(case when jsonb_typeof(${g}.claims) = 'array' then ${g}.claims else '[]'::jsonb end) e) pk
     cross join lateral (select case when pk.t + pk.f + pk.u > 0 then pk.t / (pk.t + pk.f + pk.u) else 0 end as ccount,
                                case when pk.t + pk.f > 0 then pk.t / (pk.t + pk.f) else 0 end as cexclude) pc
     cross join lateral (select ${f1Of('pc.ccount')} as fcount, ${f1Of('pc.cexclude')} as fexclude) pf
     cross join lateral (select coalesce((${g}.correctness = pc.ccount and ${g}.f1 = pf.fcount) or (${g}.correctness = pc.cexclude and ${g}.f1 = pf.fexclude), false) as rescorable,
                                case when ${g}.meta->>'unverifiable' = 'exclude' then 'exclude' else 'count' end as stored) pr`;
  const ok = `${g}.status = 'ok' and ${g}.f1 is not null`;
  const f1 = `case when not (${ok}) then null when pr.rescorable then (case when ${policy} = 'exclude' then pf.fexclude else pf.fcount end)
                   when pr.stored = ${policy} then ${g}.f1 end`;
  const leftOut = `(${ok} and not pr.rescorable and pr.stored <> ${policy})`;
  return { joins, f1, leftOut };
}
