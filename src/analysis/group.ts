/** Groups by a key (items without one are skipped), sorted by key so reports read in a stable order. */
export function groupBy<T>(xs: readonly T[], key: (x: T) => string | null | undefined): [string, T[]][] {
  const groups = new Map<string, T[]>();
  for (const x of xs) {
    const k = key(x);
    if (k === null || k === undefined) continue;
    const g = groups.get(k);
    if (g) g.push(x);
    else groups.set(k, [x]);
  }
  return [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
