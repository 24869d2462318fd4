import type { Table } from './table.tsx';
import { cellText } from './table.tsx';

/**
 * A page's table as a LaTeX booktabs table: the cells exactly as the page shows them (the same text:
 * rounded values, intervals in brackets, small-n marks, a dash for undefined), escaped for LaTeX.
 * Needs \usepackage{booktabs} (and amssymb for a ✓); the caption and a \label come from the table.
 */

// Characters LaTeX reads as commands, in one pass so an escape is never escaped again.
const SPECIAL: Readonly<Record<string, string>> = {
  '\\': '\\textbackslash{}',
  '{': '\\{',
  '}': '\\}',
  '&': '\\&',
  '%': '\\%',
  $: '\\$',
  '#': '\\#',
  _: '\\_',
  '~': '\\textasciitilde{}',
  '^': '\\textasciicircum{}',
  '<': '\\textless{}',
  '>': '\\textgreater{}',
  // Symbols of the pages that plain LaTeX (no unicode-math) would drop or garble.
  '—': '---',
  '–': '--',
  '−': '$-$',
  '±': '$\\pm$',
  '×': '$\\times$',
  '≤': '$\\leq$',
  '≥': '$\\geq$',
  '≈': '$\\approx$',
  '→': '$\\rightarrow$',
  κ: '$\\kappa$',
  α: '$\\alpha$',
  τ: '$\\tau$',
  ρ: '$\\rho$',
  π: '$\\pi$',
  '✓': '\\checkmark{}',
};
const SPECIAL_RE = new RegExp(`[${Object.keys(SPECIAL).map((c) => c.replace(/[\\\]^-]/g, '\\$&')).join('')}]`, 'gu');

export const latexEscape = (s: string): string => s.replace(SPECIAL_RE, (c) => SPECIAL[c]!);

const ENTITIES: Readonly<Record<string, string>> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&#x27;': "'" };

/** The visible text of a rendered cell (a custom render is JSX: its markup dropped, entities decoded). */
async function visible(content: unknown): Promise<string> {
  if (typeof content === 'string') return content;
  const html = String(await (content as { toString(): string | Promise<string> }).toString());
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|#x27);/g, (e) => ENTITIES[e]!)
    .replace(/\s+/g, ' ')
    .trim();
}

/** The cells of a table as the page shows them: header labels, then each row's texts. */
export async function shownCells(t: Table): Promise<{ header: string[]; rows: string[][] }> {
  const rows: string[][] = [];
  for (const row of t.rows) rows.push(await Promise.all(t.columns.map((c) => visible(c.render ? c.render(row) : cellText(c, row)))));
  return { header: t.columns.map((c) => c.label), rows };
}

const NUMERIC = new Set(['num', 'int', 'ci']);

export async function tableToLatex(t: Table, label: string): Promise<string> {
  const { header, rows } = await shownCells(t);
  const align = t.columns.map((c) => (NUMERIC.has(c.kind ?? 'text') ? 'r' : 'l')).join('');
  const line = (cells: string[]) => `${cells.map(latexEscape).join(' & ')} \\\\`;
  return [
    '\\begin{table}[t]',
    '\\centering',
    `\\caption{${latexEscape(t.caption)}}`,
    `\\label{${label.replace(/[^A-Za-z0-9:.-]/g, '-')}}`,
    `\\begin{tabular}{${align}}`,
    '\\toprule',
    line(header),
    '\\midrule',
    ...(rows.length ? rows.map(line) : [`\\multicolumn{${t.columns.length}}{l}{${latexEscape(t.empty ?? 'No rows.')}} \\\\`]),
    '\\bottomrule',
    '\\end{tabular}',
    '\\end{table}',
    '',
  ].join('\n');
}
