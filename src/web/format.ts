/** How numbers read on the pages: fixed decimals, intervals in brackets, an em dash for "undefined". */

export const DASH = '—';

export function num(v: unknown, digits = 3): string {
  if (v === null || v === undefined || (typeof v === 'number' && !Number.isFinite(v))) return DASH;
  if (typeof v !== 'number') return String(v);
  return Number.isInteger(v) && digits > 0 && Math.abs(v) >= 1000 ? v.toLocaleString('en-US') : v.toFixed(digits);
}

export const int = (v: unknown): string => (typeof v === 'number' && Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : DASH);

export const pct = (v: unknown): string => (typeof v === 'number' && Number.isFinite(v) ? `${(v * 100).toFixed(1)}%` : DASH);

export function interval(low: unknown, high: unknown, digits = 3): string {
  if (typeof low !== 'number' || typeof high !== 'number') return '';
  return `[${num(low, digits)}, ${num(high, digits)}]`;
}

export const usd = (v: unknown): string => (typeof v === 'number' && Number.isFinite(v) ? `$${v.toFixed(v < 0.01 ? 5 : 4)}` : DASH);
