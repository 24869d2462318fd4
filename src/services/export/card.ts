import { createHash } from 'node:crypto';
import { stringify } from 'yaml';
import type { RunExport } from './read-run.ts';
import type { TableSpec } from './tables.ts';

/**
 * The dataset card (README.md) of a run export, in the Hugging Face Hub's form: YAML front matter with
 * the licence and one config per table (its Parquet file; its JSONL file in a `--format jsonl` export), then what a reader needs to use the data —
 * the rubrics as graded, every judge configuration with its hash, the label scales, the licence.
 */

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** Which scale an item key's labels are on (answer-level binary and numeric labels have their own keys, claim marks `claim:<n>`). */
const SCALE_OF_KEY = new Map([['answer:binary', 'binary (whole answer)'], ['answer:numeric', 'numeric rating (whole answer)']]);
const scaleOf = (item: string | null): string =>
  item === null ? 'whole answer' : (SCALE_OF_KEY.get(item) ?? (/^claim:\d+$/.test(item) ? 'claim marks (sentences of the answer)' : 'rubric item verdicts'));

/** The files the export writes per table (write-export.ts EXPORT_FORMATS): the card names those and no others. */
const FILES_TEXT = {
  both: [
    'Each table is a JSON Lines file and a Parquet file with the same rows (`answers.jsonl` leaves out null fields: it is the',
    'input format of `assay import answers`). Nested values (tags, meta, items, claims) are JSON.',
  ],
  jsonl: ['Each table is a JSON Lines file (`answers.jsonl` leaves out null fields: it is the input format of `assay import answers`).', 'Nested values (tags, meta, items, claims) are JSON.'],
  parquet: ['Each table is a Parquet file. Nested values (tags, meta, items, claims) are JSON columns.'],
} as const;

export function datasetCard(x: RunExport, counts: ReadonlyMap<string, number>, tables: readonly TableSpec[], opts: { license: string; exportedAt: string; format?: keyof typeof FILES_TEXT }): string {
  const format = opts.format ?? 'both';
  // A config's data files are the ones written: `--format jsonl` has no Parquet file, and a config naming one loads nothing on the Hub.
  const ext = format === 'jsonl' ? 'jsonl' : 'parquet';
  const front = {
    license: opts.license,
    pretty_name: `assay run ${x.run.name}`,
    tags: ['assay', 'vision-language-models', 'llm-as-judge', 'evaluation'],
    configs: tables.filter((t) => (counts.get(t.name) ?? 0) > 0).map((t) => ({ config_name: t.name, data_files: `${t.name}.${ext}` })),
  };
  const lines: string[] = ['---', stringify(front).trimEnd(), '---', '', `# ${x.run.name}`, ''];
  lines.push(
    `Answers of model \`${x.run.model}\`${x.run.effort ? ` at effort \`${x.run.effort}\`` : ''}${x.run.tags.length ? `, conditions ${x.run.tags.map((t) => `\`${t}\``).join(', ')}` : ''}, graded with assay; exported ${opts.exportedAt}.`,
    '',
    '## Files',
    '',
    ...FILES_TEXT[format],
    '',
    '| table | rows | columns |',
    '|---|---|---|',
    ...tables.map((t) => `| \`${t.name}\` | ${counts.get(t.name) ?? 0} | ${t.columns.map(([c]) => `\`${c}\``).join(', ')} |`),
    '',
    'Scores: `completeness` is the weighted share of rubric points, `correctness` the share of the answer\'s claims the judge',
    'found supported, `f1` their harmonic mean; they are null unless `status` is `ok`. Every stored grade is here, each',
    'rubric version and judge configuration it was made with (`judge_config_hash`); reports use the newest per answer.',
    '',
    '## Rubrics',
    '',
  );
  for (const r of x.rubrics) {
    const total = r.rubric.items.reduce((s, i) => s + i.weight, 0);
    lines.push(`### \`${r.rubric.id}\` version ${r.version}`, '', `Content hash \`${r.contentHash}\`. ${r.rubric.items.length} items, total weight ${total}.`, '', '```yaml', stringify(r.rubric).trimEnd(), '```', '');
  }
  if (x.rubrics.length === 0) lines.push('No rubric (the run has no graded descriptions).', '');
  lines.push('## Judges', '', '| judge | provider | model | config hash | prompt template sha256 |', '|---|---|---|---|---|');
  for (const j of x.judges) {
    const prompt = typeof j.config.promptText === 'string' ? `\`${sha(j.config.promptText)}\`` : '—';
    lines.push(`| \`${j.slug}\` | ${j.provider} | \`${j.model}\` | \`${j.configHash}\` | ${prompt} |`);
  }
  if (x.judges.length === 0) lines.push('| (no grades) | | | | |');
  lines.push('', 'Each configuration in full (prompt text included) is in `judges.json`.', '', '## Labels', '');
  const scales = new Map<string, { labels: number; raters: Set<string> }>();
  for (const l of x.labels) {
    const k = `${scaleOf(l.item)} — ${l.kind}`;
    const e = scales.get(k) ?? { labels: 0, raters: new Set<string>() };
    e.labels++;
    e.raters.add(l.annotator);
    scales.set(k, e);
  }
  if (scales.size === 0) lines.push('No labels.');
  else lines.push('| scale — rater kind | labels | raters |', '|---|---|---|', ...[...scales].map(([k, v]) => `| ${k} | ${v.labels} | ${v.raters.size} |`));
  lines.push(
    '',
    'Verdicts are `correct` (1 point), `partial` (0.5), `incorrect` and `missing` (0); binary labels `true`/`false`; numeric',
    'ratings as given; claim marks `true`/`false`/`unverifiable` on sentence n of the answer (`claim:<n>`, from 0; `claim_sentence`',
    'is the hash of the sentence marked).',
    ...(x.campaigns.length ? ['', `Campaign labels name their campaign; \`campaigns.jsonl\` holds ${x.campaigns.map((c) => `\`${c.name}\``).join(', ')} (spec, annotators, this run's queue and final labels).`] : []),
    '',
    '## Licence',
    '',
    `\`${opts.license}\`${opts.license === 'other' ? ' — not stated at export (`assay export --license ID`); ask the publisher before reuse.' : '.'} Answers are the output of the model named above; rubric references and labels are the publisher's.`,
    '',
  );
  return lines.join('\n');
}
