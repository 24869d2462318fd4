/** Plain-text tables for readable CLI output. */

export type Cell = string | number | boolean | null | undefined;

export function formatCell(v: Cell, digits = 4): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return String(v);
    return Number.isInteger(v) ? String(v) : v.toFixed(digits);
  }
  return String(v);
}

export function table(headers: string[], rows: Cell[][], digits = 4): string {
  const cells = rows.map((r) => r.map((c) => formatCell(c, digits)));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n');
}

/** Two-column key/value listing. */
export function keyValues(pairs: [string, Cell][], digits = 4): string {
  const w = Math.max(...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `${k.padEnd(w)}  ${formatCell(v, digits)}`).join('\n');
}
