/**
 * Open-addressing hash table from id to piece index that looks ids up inside a longer string
 * (s, start, end) without slicing it: text answers hold one token per piece, and allocating a
 * substring per token plus a Map lookup was most of the cost of scoring a 100×100 answer.
 */
export class IdLookup {
  private readonly slots: Int32Array;
  /** Full hash per slot, so a probe compares characters only on a likely match. */
  private readonly hashes: Int32Array;
  private readonly mask: number;

  constructor(private readonly ids: readonly string[]) {
    let size = 16;
    while (size < ids.length * 2) size *= 2;
    this.slots = new Int32Array(size);
    this.hashes = new Int32Array(size);
    this.mask = size - 1;
    ids.forEach((id, k) => {
      const h = hash(id, 0, id.length);
      let i = h & this.mask;
      while (this.slots[i] !== 0) i = (i + 1) & this.mask;
      this.slots[i] = k + 1;
      this.hashes[i] = h;
    });
  }

  /** Piece index of s[start, end), or -1. */
  find(s: string, start: number, end: number): number {
    return this.findHashed(s, start, end, hash(s, start, end));
  }

  /** find() for a caller that computed h = hashStep(…hashStep(HASH_SEED, c0)…, cLast) while scanning. */
  findHashed(s: string, start: number, end: number, h: number): number {
    const len = end - start;
    let i = h & this.mask;
    for (;;) {
      const slot = this.slots[i]!;
      if (slot === 0) return -1;
      if (this.hashes[i] === h) {
        const id = this.ids[slot - 1]!;
        if (id.length === len) {
          let j = 0;
          while (j < len && id.charCodeAt(j) === s.charCodeAt(start + j)) j++;
          if (j === len) return slot - 1;
        }
      }
      i = (i + 1) & this.mask;
    }
  }
}

/** FNV-1a over UTF-16 code units, as a signed 32-bit int (what an Int32Array holds). */
export const HASH_SEED = 0x811c9dc5 | 0;
export const hashStep = (h: number, code: number): number => Math.imul(h ^ code, 0x01000193);

function hash(s: string, start: number, end: number): number {
  let h = HASH_SEED;
  for (let i = start; i < end; i++) h = hashStep(h, s.charCodeAt(i));
  return h;
}
