/**
 * @module An open-addressing hash set of integer lattice coordinates (i, j, k) → dense entry
 * index 0..count−1, so a sparse voxel grid costs memory only where there is data. Linear
 * probing on a power-of-two table kept at most half full; coordinates in flat Int32Arrays.
 */

const EMPTY = -1;

export class VoxelHash {
  /** Number of entries; entry e has coordinates (ii[e], jj[e], kk[e]). */
  count = 0;
  ii: Int32Array;
  jj: Int32Array;
  kk: Int32Array;
  /** Table slot → entry index, or EMPTY; length is a power of two. */
  private slots: Int32Array;
  private mask: number;

  constructor(expected = 1024) {
    let size = 16;
    while (size < 2 * expected) size *= 2;
    this.slots = new Int32Array(size).fill(EMPTY);
    this.mask = size - 1;
    const entries = Math.max(8, expected);
    this.ii = new Int32Array(entries);
    this.jj = new Int32Array(entries);
    this.kk = new Int32Array(entries);
  }

  /**
   * Teschner et al. 2003 spatial hash (three large primes, xor), then a murmur3-style
   * finaliser: the products' low bits depend only on the coordinates' low bits, and the
   * table index is taken from the low bits, so without mixing, neighbouring lattice keys
   * collide in runs and linear probing degrades badly.
   */
  private static hash(i: number, j: number, k: number): number {
    let h = Math.imul(i, 73856093) ^ Math.imul(j, 19349663) ^ Math.imul(k, 83492791);
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    return h ^ (h >>> 16);
  }

  /** Entry index of (i, j, k), or −1 when absent. */
  find(i: number, j: number, k: number): number {
    let slot = VoxelHash.hash(i, j, k) & this.mask;
    for (;;) {
      const e = this.slots[slot];
      if (e === EMPTY) return -1;
      if (this.ii[e] === i && this.jj[e] === j && this.kk[e] === k) return e;
      slot = (slot + 1) & this.mask;
    }
  }

  /** Entry index of (i, j, k), inserting it when absent. */
  insert(i: number, j: number, k: number): number {
    let slot = VoxelHash.hash(i, j, k) & this.mask;
    for (;;) {
      const e = this.slots[slot];
      if (e === EMPTY) break;
      if (this.ii[e] === i && this.jj[e] === j && this.kk[e] === k) return e;
      slot = (slot + 1) & this.mask;
    }
    const e = this.count++;
    if (e >= this.ii.length) this.growEntries();
    this.ii[e] = i;
    this.jj[e] = j;
    this.kk[e] = k;
    this.slots[slot] = e;
    if (2 * this.count > this.slots.length) this.rehash();
    return e;
  }

  private growEntries(): void {
    const grow = (a: Int32Array): Int32Array => {
      const b = new Int32Array(a.length * 2);
      b.set(a);
      return b;
    };
    this.ii = grow(this.ii);
    this.jj = grow(this.jj);
    this.kk = grow(this.kk);
  }

  private rehash(): void {
    this.slots = new Int32Array(this.slots.length * 2).fill(EMPTY);
    this.mask = this.slots.length - 1;
    for (let e = 0; e < this.count; e++) {
      let slot = VoxelHash.hash(this.ii[e], this.jj[e], this.kk[e]) & this.mask;
      while (this.slots[slot] !== EMPTY) slot = (slot + 1) & this.mask;
      this.slots[slot] = e;
    }
  }
}
