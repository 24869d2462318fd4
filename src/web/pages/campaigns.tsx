import type { Context } from 'hono';
import type { PairStats } from '../../analysis/calibration/index.ts';
import type { AppEnv } from '../../api/context.ts';
import { toCsv } from '../../api/csv.ts';
import { badInput } from '../../domain/errors.ts';
import { Fields } from '../../domain/fields.ts';
import { parseRowId } from '../../domain/limits.ts';
import { ITEM_VERDICTS } from '../../domain/verdicts.ts';
import {
  adjudicate,
  campaignAgreement,
  campaignDisagreements,
  campaignProgress,
  EXPORT_COLUMNS,
  exportCampaign,
  listCampaigns,
  type Disagreement,
  type ScaleAgreement,
} from '../../services/campaigns/index.ts';
import type { Web } from '../index.tsx';
import { declareQuery, NO_QUERY } from '../page-query.ts';
import { respondPage, SECURITY_HEADERS } from '../respond.tsx';
import { DataTable, type Row, type Table } from '../table.tsx';

/**
 * The campaign pages (admins, docs/annotation.md): progress per annotator and per answer, agreement so
 * far with intervals (human–human alpha and pairwise kappa, judge–human kappa), the disagreements
 * waiting for adjudication with a form each, and the label export.
 */

const refOf = (c: Context): string => {
  const r = Fields.keyName.safeParse(c.req.param('ref'));
  if (!r.success) throw badInput(`campaign: ${r.error.issues[0]!.message}`);
  return r.data;
};

/** The agreement figure of a pair: kappa on categorical scales, Pearson's r on the numeric one. */
function figure(p: PairStats): { value: number | null; low: number | null; high: number | null; statistic: string } {
  if (p.kappa) return { value: p.kappa.kappa, low: p.kappa.ci?.[0] ?? null, high: p.kappa.ci?.[1] ?? null, statistic: 'kappa' };
  const r = p.pearson;
  return { value: r?.r ?? null, low: r?.ci?.[0] ?? null, high: r?.ci?.[1] ?? null, statistic: 'pearson r' };
}

function agreementRows(scales: ScaleAgreement[]): Row[] {
  return scales.flatMap(({ scale, report, reason }) => {
    if (!report) return [{ scale, between: '—', statistic: '—', value: null, n: 0, note: reason ?? '' }];
    const a = report.humanCeiling.alpha;
    const rows: Row[] = [{ scale, between: `humans (${a.raters.join(', ')})`, statistic: `alpha (${a.level})`, value: a.alpha, valueLow: a.ci?.[0] ?? null, valueHigh: a.ci?.[1] ?? null, n: a.units, note: a.reason ?? '' }];
    for (const [pair, p] of Object.entries(report.humanCeiling.pairs)) {
      const f = figure(p);
      rows.push({ scale, between: pair, statistic: f.statistic, value: f.value, valueLow: f.low, valueHigh: f.high, n: p.n, note: p.reason ?? '' });
    }
    for (const j of report.judgeReports) {
      const f = figure(j.vsMajority);
      rows.push({ scale, between: `judge ${j.rater} ~ human majority`, statistic: f.statistic, value: f.value, valueLow: f.low, valueHigh: f.high, n: j.vsMajority.n, note: j.vsMajority.reason ?? '' });
    }
    return rows;
  });
}

function AdjudicationForm(props: { ref_: string; d: Disagreement; csrf: string }) {
  const { d } = props;
  const options = d.unit === 'answer:binary' ? ['true', 'false'] : ITEM_VERDICTS;
  const id = `adj-${d.answerId}-${d.unit}`.replace(/[^A-Za-z0-9_-]/g, '_');
  return (
    <form method="post" action={`/campaigns/${encodeURIComponent(props.ref_)}/adjudicate`} class="adjudicate" id={id}>
      <input type="hidden" name="_csrf" value={props.csrf} />
      <input type="hidden" name="answerId" value={String(d.answerId)} />
      <input type="hidden" name="unit" value={d.unit} />
      <label for={`${id}-label`}>Final label</label>
      <select id={`${id}-label`} name="label">
        {options.map((o) => (
          <option value={o}>{o}</option>
        ))}
      </select>
      <label for={`${id}-note`}>Note</label>
      <input id={`${id}-note`} name="note" />
      <button type="submit">Record final label</button>
    </form>
  );
}

/** The query of each page (page-query.ts): the two pages' table downloads, the export's format. */
const TABLES_QUERY = declareQuery([], { downloads: true });
const EXPORT_QUERY = declareQuery(['format']);

const ADJUDICATION_FIELDS = ['answerId', 'unit', 'label', 'note'] as const;

/**
 * The adjudication form's fields, read strictly as the annotation form's (annotate.tsx formMarks): a field
 * given twice or one the form does not have is refused, never resolved to one value or dropped unsaid.
 */
export function adjudicationForm(form: Record<string, string | File | Array<string | File>>): (k: (typeof ADJUDICATION_FIELDS)[number]) => string {
  const problems: string[] = [];
  const out = new Map<string, string>();
  for (const [k, raw] of Object.entries(form)) {
    if (k === '_csrf') continue;
    const values = Array.isArray(raw) ? raw : [raw];
    if (!(ADJUDICATION_FIELDS as readonly string[]).includes(k)) problems.push(`${k}: unknown field (expected ${ADJUDICATION_FIELDS.join(', ')})`);
    else if (values.some((v) => typeof v !== 'string')) problems.push(`${k}: must be text, not a file`);
    else if (values.length > 1) problems.push(`${k}: given twice (${values.map((v) => `'${String(v)}'`).join(' and ')})`);
    else out.set(k, values[0] as string);
  }
  if (problems.length) throw badInput(`form: ${problems.join('; ')}; nothing saved`);
  return (k) => out.get(k) ?? '';
}

export function registerCampaignPages(web: Web): void {
  const db = web.api.deps.database;

  web.page('GET', '/campaigns', 'admin', TABLES_QUERY, async (c, q) => {
    const list = await listCampaigns(db);
    const table: Table = {
      id: 'campaigns',
      caption: 'Annotation campaigns',
      columns: [
        { key: 'name', label: 'Campaign', href: (r) => `/campaigns/${encodeURIComponent(String(r.name))}` },
        { key: 'overlap', label: 'k', kind: 'int', help: 'distinct annotators per answer' },
        { key: 'annotators', label: 'Annotators' },
        { key: 'answers', label: 'Answers', kind: 'int' },
        { key: 'complete', label: 'Complete', kind: 'int', help: 'answers with k finished annotators' },
      ],
      rows: list.map((x) => ({ ...x, annotators: x.annotators.join(', '), createdAt: x.createdAt.toISOString() })),
      empty: 'No campaigns yet: create one with bin/assay campaign create SPEC.yaml (docs/annotation.md).',
    };
    return respondPage(c, await web.frame(c), { title: 'Annotation campaigns', tables: [table], body: () => <DataTable table={table} search={q} /> });
  });

  web.page('GET', '/campaigns/:ref', 'admin', TABLES_QUERY, async (c, q) => {
    const ref = refOf(c);
    const [progress, disagreements, agreement] = [await campaignProgress(db, ref), await campaignDisagreements(db, ref), await campaignAgreement(db, ref)];
    const waiting = disagreements.filter((d) => d.adjudication === null);
    const name = progress.campaign.name;
    const tables: Table[] = [
      {
        id: 'annotators',
        caption: 'Progress per annotator',
        columns: [{ key: 'name', label: 'Annotator' }, { key: 'assigned', label: 'Holding', kind: 'int' }, { key: 'done', label: 'Done', kind: 'int' }],
        rows: progress.annotators,
      },
      {
        id: 'agreement',
        caption: 'Agreement so far (95% intervals)',
        columns: [
          { key: 'scale', label: 'Scale' },
          { key: 'between', label: 'Between' },
          { key: 'statistic', label: 'Statistic' },
          { key: 'value', label: 'Value', kind: 'ci' },
          { key: 'n', label: 'n', kind: 'int', help: 'units both (or all) labelled' },
          { key: 'note', label: 'Note' },
        ],
        rows: agreementRows(agreement),
      },
      {
        id: 'answers',
        caption: 'Progress per answer, in queue order (why: disagreement between judges, audit draw, rest)',
        columns: [
          { key: 'rank', label: '#', kind: 'int' },
          { key: 'answer', label: 'Answer', href: (r) => `/answers/${String(r.answerId)}` },
          { key: 'model', label: 'Model' },
          { key: 'reason', label: 'Why' },
          { key: 'holders', label: 'Annotators (… = not finished)' },
          { key: 'done', label: 'Done', kind: 'int' },
        ],
        rows: progress.perAnswer.map((a) => ({ ...a, holders: a.annotators.map((h) => `${h.name}${h.done ? '' : '…'}`).join(', '), annotators: undefined })),
      },
      {
        id: 'disagreements',
        caption: 'Disagreements',
        columns: [
          { key: 'answer', label: 'Answer' },
          { key: 'unit', label: 'Unit' },
          { key: 'given', label: 'Labels' },
          { key: 'final', label: 'Final label' },
        ],
        rows: disagreements.map((d) => ({ answerId: d.answerId, answer: d.answer, unit: d.unit, given: d.labels.map((l) => `${l.annotator}: ${l.label}`).join('; '), final: d.adjudication ? `${d.adjudication.label} (${d.adjudication.adjudicator})` : '' })),
        empty: 'The annotators agree on every unit labelled so far.',
      },
    ];
    const frame = await web.frame(c);
    const csrf = frame.user?.csrf ?? '';
    const base = `/campaigns/${encodeURIComponent(name)}`;
    return respondPage(c, frame, {
      title: `Campaign ${name}`,
      tables,
      body: () => (
        <>
          <p class="lede">
            {progress.complete} of {progress.answers} answers complete (k = {progress.campaign.overlap}). Export every label:{' '}
            <a href={`${base}/export?format=csv`}>CSV</a> · <a href={`${base}/export?format=json`}>JSON</a>.
          </p>
          <DataTable table={tables[0]!} search={q} />
          <DataTable table={tables[1]!} search={q} />
          <h2>Waiting for adjudication ({waiting.length})</h2>
          {waiting.length === 0 ? (
            <p class="empty">Nothing waits for a final label.</p>
          ) : (
            <ul class="disagreements">
              {waiting.map((d) => (
                <li>
                  <strong>
                    {d.answer} · {d.unit}
                  </strong>
                  : {d.labels.map((l) => `${l.annotator} says ${l.label}`).join(', ')}
                  {d.complete ? '' : ' (not all k labels in yet)'}
                  <AdjudicationForm ref_={name} d={d} csrf={csrf} />
                </li>
              ))}
            </ul>
          )}
          <DataTable table={tables[3]!} search={q} />
          <DataTable table={tables[2]!} search={q} />
        </>
      ),
    });
  });

  web.page('GET', '/campaigns/:ref/export', 'admin', EXPORT_QUERY, async (c, q) => {
    const format = q.get('format') ?? 'csv';
    if (format !== 'csv' && format !== 'json') throw badInput(`format: must be csv or json, got '${format}'`);
    const r = await exportCampaign(db, refOf(c));
    const headers = { ...SECURITY_HEADERS, 'Content-Disposition': `attachment; filename="campaign-${r.campaign.replace(/[^A-Za-z0-9._-]/g, '_')}-labels.${format}"` };
    if (format === 'json') return c.body(JSON.stringify(r, null, 2), 200, { ...headers, 'Content-Type': 'application/json; charset=utf-8' });
    return c.body(toCsv(r.rows as unknown as Record<string, unknown>[], EXPORT_COLUMNS), 200, { ...headers, 'Content-Type': 'text/csv; charset=utf-8' });
  });

  // The page guard checked the session's CSRF token and origin before this runs (every unsafe method).
  web.page('POST', '/campaigns/:ref/adjudicate', 'admin', NO_QUERY, async (c: Context<AppEnv>) => {
    const ref = refOf(c);
    const text = adjudicationForm(await c.req.parseBody({ all: true }));
    const note = text('note').trim();
    await adjudicate(db, {
      campaign: ref,
      answerId: parseRowId(text('answerId'), 'answerId'),
      unit: text('unit'),
      label: text('label'),
      adjudicator: c.get('caller').name,
      authority: 'admin',
      ...(note ? { note } : {}),
    });
    return c.redirect(`/campaigns/${encodeURIComponent(ref)}`, 303);
  });
}
