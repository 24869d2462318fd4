import { badInput } from '../../domain/errors.ts';
import { mulberry32, shuffleInPlace } from '../../stats/random.ts';

/**
 * Seeded rubric item order per panel sample (`shuffle: true`, design §2.5). Each sample (member judge,
 * sample number) gets its own permutation drawn from the panel seed, so a sample's order is reproducible
 * from the panel file alone and can be recorded with the grade. The per-sample seed hashes the member's
 * id rather than its position, so adding or reordering members leaves every other sample's order (and
 * therefore its prompt and its cache entry) unchanged.
 */

/** FNV-1a over the UTF-16 code units, then a murmur3 finaliser so nearby inputs land far apart. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The 32-bit seed of one sample's generator: a function of (panel seed, member id, sample number) only. */
export function sampleSeed(seed: number, judge: string, sample: number): number {
  if (!Number.isInteger(seed)) throw badInput(`panel seed: must be a whole number, got ${seed}`);
  if (!Number.isInteger(sample) || sample < 1) throw badInput(`panel sample: sample numbers count from 1, got ${sample}`);
  // U+0000 cannot occur in a judge id, so the three parts cannot run into each other.
  return hash32(`${seed}\u0000${judge}\u0000${sample}`);
}

/** The item ids in the order this sample is shown them: a permutation of `itemIds`. */
export function sampleItemOrder(itemIds: readonly string[], seed: number, judge: string, sample: number): string[] {
  return shuffleInPlace([...itemIds], mulberry32(sampleSeed(seed, judge, sample)));
}

export interface SampleOrder {
  judge: string;
  sample: number;
  /** Item ids as shown to this sample. */
  order: string[];
}

/**
 * The order of every sample of a panel: members × samples rows, in member then sample order. Without
 * shuffle every sample sees the rubric order (the recorded order then says so).
 */
export function panelItemOrders(
  itemIds: readonly string[],
  members: readonly string[],
  samples: number,
  opts: { shuffle: boolean; seed: number },
): SampleOrder[] {
  if (!Number.isInteger(samples) || samples < 1) throw badInput(`panel samples: must be a whole number ≥ 1, got ${samples}`);
  const rows: SampleOrder[] = [];
  for (const judge of members) {
    for (let sample = 1; sample <= samples; sample++) {
      rows.push({ judge, sample, order: opts.shuffle ? sampleItemOrder(itemIds, opts.seed, judge, sample) : [...itemIds] });
    }
  }
  return rows;
}
