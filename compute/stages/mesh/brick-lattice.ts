/**
 * @module A sparse lattice stored as 4×4×4 bricks of dense node arrays, found through a hash
 * of brick coordinates (the layout of VDB, Museth 2013, one level deep). Neighbouring nodes
 * mostly share a brick, so most lookups cost an array index instead of a hash probe, and a
 * node's data sits next to its neighbours' in memory.
 */
import { VoxelHash } from "./voxel-hash.js";

const SHIFT = 2;
const SIZE = 1 << SHIFT;
const MASK = SIZE - 1;
/** Nodes per brick. */
export const BRICK_NODES = SIZE * SIZE * SIZE;

export class BrickLattice {
  /** World position of node (0, 0, 0). */
  readonly origin: [number, number, number];
  /** Node spacing (the voxel size) in model units. */
  readonly spacing: number;
  readonly bricks: VoxelHash;
  /** Per node id (brick · 64 + local): f, then Σw (0 = no data, the node does not exist). */
  value: Float64Array;
  weight: Float64Array;
  // One-entry cache of the last brick looked up.
  private lastI = 0x7fffffff;
  private lastJ = 0;
  private lastK = 0;
  private lastBrick = -1;

  constructor(origin: [number, number, number], spacing: number, expectedBricks = 1024) {
    this.origin = origin;
    this.spacing = spacing;
    this.bricks = new VoxelHash(expectedBricks);
    this.value = new Float64Array(expectedBricks * BRICK_NODES);
    this.weight = new Float64Array(expectedBricks * BRICK_NODES);
  }

  get brickCount(): number {
    return this.bricks.count;
  }

  private brickOf(bi: number, bj: number, bk: number, create: boolean): number {
    if (bi === this.lastI && bj === this.lastJ && bk === this.lastK) return this.lastBrick;
    const b = create ? this.bricks.insert(bi, bj, bk) : this.bricks.find(bi, bj, bk);
    if (b >= 0) {
      this.lastI = bi; this.lastJ = bj; this.lastK = bk; this.lastBrick = b;
      if ((b + 1) * BRICK_NODES > this.value.length) this.grow();
    }
    return b;
  }

  private grow(): void {
    const value = new Float64Array(this.value.length * 2);
    value.set(this.value);
    this.value = value;
    const weight = new Float64Array(this.weight.length * 2);
    weight.set(this.weight);
    this.weight = weight;
  }

  /** Node id of (i, j, k), or −1 when its brick does not exist. */
  node(i: number, j: number, k: number): number {
    const b = this.brickOf(i >> SHIFT, j >> SHIFT, k >> SHIFT, false);
    return b < 0 ? -1 : b * BRICK_NODES + (i & MASK) + SIZE * ((j & MASK) + SIZE * (k & MASK));
  }

  nodeOrCreate(i: number, j: number, k: number): number {
    const b = this.brickOf(i >> SHIFT, j >> SHIFT, k >> SHIFT, true);
    return b * BRICK_NODES + (i & MASK) + SIZE * ((j & MASK) + SIZE * (k & MASK));
  }

  /** Node id of the first node (local 0, 0, 0) of brick (bi, bj, bk), made if missing; its BRICK_NODES nodes follow. */
  brickOrCreate(bi: number, bj: number, bk: number): number {
    return this.brickOf(bi, bj, bk, true) * BRICK_NODES;
  }

  /** Lattice coordinates of node id `n` into out[0..2]. */
  coordinates(n: number, out: Int32Array): void {
    const b = Math.floor(n / BRICK_NODES);
    const local = n - b * BRICK_NODES;
    out[0] = (this.bricks.ii[b] << SHIFT) + (local & MASK);
    out[1] = (this.bricks.jj[b] << SHIFT) + ((local >> SHIFT) & MASK);
    out[2] = (this.bricks.kk[b] << SHIFT) + (local >> (2 * SHIFT));
  }

  /** Number of node slots (bricks · 64); ids range over [0, slotCount). */
  get slotCount(): number {
    return this.bricks.count * BRICK_NODES;
  }

  /** Nodes that hold data. */
  countNodes(): number {
    let n = 0;
    for (let s = 0; s < this.slotCount; s++) if (this.weight[s] > 0) n++;
    return n;
  }
}
