/**
 * Why a grade's cost is unknown, in the words `assay grade` and the grade page both print. A grade's
 * usage.costUsd is null for one of two reasons, and telling the wrong one misleads: its model has no price
 * (judges/prices.yaml), or calls of it were sent with no usage figures to price (meta.unknownCostCalls,
 * by reason in meta.unknownCostReasons; docs/data-safety.md, "Calls of unknown cost").
 */

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

// One phrase per reason (src/judges/types.ts USAGE_UNKNOWN_REASONS), in that order.
const REASONS: ReadonlyArray<readonly [string, (n: number) => string]> = [
  ['timeout', (n) => `${plural(n, 'call', 'calls')} sent and not answered (timeout)`],
  ['aborted', (n) => `${plural(n, 'call', 'calls')} cut off after sending (connection lost or adapter failure)`],
  ['no_usage', (n) => `${plural(n, 'reply', 'replies')} reported no usage`],
];

const count = (v: unknown): number => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : 0);

/** Calls of the grade whose usage is unknown (meta.unknownCostCalls; 0 when absent). */
export const unknownCostCalls = (meta: Record<string, unknown>): number => count(meta.unknownCostCalls);

/**
 * The cost as text when it is unknown ("unknown: 1 call sent and not answered (timeout)", "unknown (model
 * not in judges/prices.yaml)"), null when it is known (the caller formats the figure).
 */
export function unknownCostText(costUsd: number | null, meta: Record<string, unknown>): string | null {
  const calls = unknownCostCalls(meta);
  if (calls === 0) return costUsd === null ? 'unknown (model not in judges/prices.yaml)' : null;
  const by = meta.unknownCostReasons && typeof meta.unknownCostReasons === 'object' ? (meta.unknownCostReasons as Record<string, unknown>) : {};
  const parts = REASONS.flatMap(([reason, text]) => (count(by[reason]) ? [text(count(by[reason]))] : []));
  // Grades written before the reasons were kept have the count alone.
  const told = REASONS.reduce((n, [reason]) => n + count(by[reason]), 0);
  if (told < calls) parts.push(`${plural(calls - told, 'call', 'calls')} sent with no usage reported`);
  return `unknown: ${parts.join('; ')}`;
}
