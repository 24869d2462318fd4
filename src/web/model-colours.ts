/**
 * One colour per model on every chart of every page. The colour of a model is chosen from its name (a
 * hash into the palette), and a model whose slot is taken by one sorting before it takes the next free
 * slot: so the map depends on the set of models, never on which chart or page draws them, and adding a
 * model moves only the models it collides with. Charts take the map as an explicit vega-lite scale
 * (domain and range), so a chart showing two of ten models still draws them in their own colours.
 */

/** Tableau 10 without its grey (kept for the baseline), then three more of Tableau 20's darker hues. */
export const MODEL_PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#499894', '#d37295', '#86bcb6'] as const;

/** Series that are not models (the random-arrangement baseline) are drawn in grey. */
export const BASELINE_COLOUR = '#8c8c8c';

/** FNV-1a over the UTF-16 code units: a fixed, platform-independent hash of the name. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

export type ColourMap = ReadonlyMap<string, string>;

/** The colour of each model; past the palette's size colours repeat (each cycle of slots filled anew). */
export function modelColours(models: Iterable<string>, extra: Readonly<Record<string, string>> = {}): ColourMap {
  const out = new Map<string, string>(Object.entries(extra));
  const names = [...new Set(models)].filter((m) => !out.has(m)).sort();
  const P = MODEL_PALETTE.length;
  let taken = new Set<number>();
  for (const m of names) {
    if (taken.size === P) taken = new Set();
    let slot = hash(m) % P;
    while (taken.has(slot)) slot = (slot + 1) % P;
    taken.add(slot);
    out.set(m, MODEL_PALETTE[slot]!);
  }
  return out;
}

/** The vega-lite colour scale of the series a chart draws, sorted by name, in the page's map (unknown series: grey). */
export function colourScale(map: ColourMap, series: Iterable<string>): { domain: string[]; range: string[] } {
  const domain = [...new Set(series)].sort();
  return { domain, range: domain.map((s) => map.get(s) ?? BASELINE_COLOUR) };
}
