import { sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client.ts';
import type { CampaignSpec } from '../../domain/campaigns.ts';
import { gradesDisagree, type GradeVotes } from './order.ts';
import { intList, json, rowsOf, textList } from './sql.ts';

/**
 * The answers a campaign selects: run, model, task and the filter's rubric, status and ids, all of
 * which must hold. Only answers with text; item verdicts need the answer's rubric.
 */
export async function selectAnswers(db: Queryable, spec: CampaignSpec): Promise<number[]> {
  const s = spec.answers;
  const cond = [sql`a.text is not null`];
  if (s.run !== undefined) cond.push(sql`r.name = ${s.run}`);
  if (s.model !== undefined) cond.push(sql`r.model = ${s.model}`);
  if (s.task !== undefined) cond.push(sql`a.task = ${s.task}`);
  if (s.filter.rubric !== undefined) cond.push(sql`rb.slug = ${s.filter.rubric}`);
  if (s.filter.status !== undefined) cond.push(sql`a.status = ${s.filter.status}`);
  if (s.filter.answers !== undefined) cond.push(sql`a.external_id in ${textList(s.filter.answers)}`);
  if (spec.scales.verdict) cond.push(sql`a.rubric_id is not null`);
  const rows = await rowsOf<{ id: number }>(
    db,
    sql`select a.id from answers a join runs r on r.id = a.run_id left join rubrics rb on rb.id = a.rubric_id
         where ${sql.join(cond, sql` and `)} order by a.id`,
  );
  return rows.map((r) => Number(r.id));
}

/**
 * The ids of `filter.answers` no selected answer has (unknown, or left out by the other conditions): a
 * campaign asked for named answers queues every one of them or is refused, never silently fewer.
 */
export async function namedButUnselected(db: Queryable, spec: CampaignSpec, selected: readonly number[]): Promise<string[]> {
  const named = spec.answers.filter.answers;
  if (named === undefined) return [];
  const rows = await rowsOf<{ externalId: string }>(db, sql`select distinct a.external_id as "externalId" from answers a where a.id in ${intList(selected)}`);
  const found = new Set(rows.map((r) => r.externalId));
  return [...new Set(named)].filter((n) => !found.has(n));
}

/** The selector's conditions, said: run 'r', task 'describe'; answers with text and a rubric. */
export function selectorSaid(spec: CampaignSpec): string {
  const s = spec.answers;
  const parts = [
    ...(s.run !== undefined ? [`run '${s.run}'`] : []),
    ...(s.model !== undefined ? [`model '${s.model}'`] : []),
    ...(s.task !== undefined ? [`task '${s.task}'`] : []),
    ...(s.filter.rubric !== undefined ? [`rubric '${s.filter.rubric}'`] : []),
    ...(s.filter.status !== undefined ? [`status '${s.filter.status}'`] : []),
  ];
  const always = `answers with text${spec.scales.verdict ? ' and a rubric' : ''}`;
  return parts.length ? `${parts.join(', ')}; ${always}` : always;
}

/**
 * Which of the answers judges disagree on, from each judge's newest ok grade (a changed configuration
 * of one judge id (slug) adds a grade; the newest stands) and a panel grade's vote counts.
 */
export async function disagreeingAnswers(db: Queryable, answerIds: readonly number[]): Promise<Set<number>> {
  if (answerIds.length === 0) return new Set();
  const rows = await rowsOf<{ answerId: number; items: unknown; label: string | null; panel: unknown }>(
    db,
    sql`select g.answer_id as "answerId", g.items, g.meta->>'label' as label, g.meta->'panel'->'items' as panel
          from (select distinct on (g.answer_id, j.slug) g.* from grades g join judges j on j.id = g.judge_id
                 where g.status = 'ok' and g.answer_id in ${intList(answerIds)}
                 order by g.answer_id, j.slug, g.created_at desc, g.id desc) g`,
  );
  const by = new Map<number, GradeVotes[]>();
  for (const r of rows) {
    const id = Number(r.answerId);
    const panel = json<GradeVotes['panel']>(r.panel);
    by.set(id, [...(by.get(id) ?? []), { items: json<GradeVotes['items']>(r.items), label: r.label ?? null, panel: Array.isArray(panel) ? panel : null }]);
  }
  return new Set([...by].filter(([, g]) => gradesDisagree(g)).map(([id]) => id));
}
