/**
 * @module The delivered mesh scored against a true surface, as the dense cloud is (bench dense).
 * A cloud's completeness at τ also measures how densely it is sampled: where its points lie
 * farther apart than 2τ (far ground seen at a grazing angle, at the working resolution's pixel
 * footprint) a true sample between them has no point within τ though the surface is there. The
 * mesh is what a user receives and it is continuous, so its completeness is the share of true
 * samples within τ of its nearest triangle (exact point-to-triangle distance), and its precision
 * is read on points sampled uniformly by area over its faces.
 */

/** Closest-point distance from p to triangle abc (Ericson, "Real-Time Collision Detection", 2005, §5.1.5: by Voronoi region). */
export function pointTriangleDistance(p: ArrayLike<number>, positions: Float64Array, a: number, b: number, c: number): number {
  const ax = positions[3 * a], ay = positions[3 * a + 1], az = positions[3 * a + 2];
  const abx = positions[3 * b] - ax, aby = positions[3 * b + 1] - ay, abz = positions[3 * b + 2] - az;
  const acx = positions[3 * c] - ax, acy = positions[3 * c + 1] - ay, acz = positions[3 * c + 2] - az;
  const apx = p[0] - ax, apy = p[1] - ay, apz = p[2] - az;
  const d1 = abx * apx + aby * apy + abz * apz;
  const d2 = acx * apx + acy * apy + acz * apz;
  if (d1 <= 0 && d2 <= 0) return Math.hypot(apx, apy, apz);
  const bpx = apx - abx, bpy = apy - aby, bpz = apz - abz;
  const d3 = abx * bpx + aby * bpy + abz * bpz;
  const d4 = acx * bpx + acy * bpy + acz * bpz;
  if (d3 >= 0 && d4 <= d3) return Math.hypot(bpx, bpy, bpz);
  const vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    const v = d1 / (d1 - d3);
    return Math.hypot(apx - v * abx, apy - v * aby, apz - v * abz);
  }
  const cpx = apx - acx, cpy = apy - acy, cpz = apz - acz;
  const d5 = abx * cpx + aby * cpy + abz * cpz;
  const d6 = acx * cpx + acy * cpy + acz * cpz;
  if (d6 >= 0 && d5 <= d6) return Math.hypot(cpx, cpy, cpz);
  const vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    const w = d2 / (d2 - d6);
    return Math.hypot(apx - w * acx, apy - w * acy, apz - w * acz);
  }
  const va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
    const w = (d4 - d3) / (d4 - d3 + (d5 - d6));
    // On edge bc: b + w (c − b), relative to p.
    return Math.hypot(bpx - w * (acx - abx), bpy - w * (acy - aby), bpz - w * (acz - abz));
  }
  const denom = 1 / (va + vb + vc);
  const v = vb * denom;
  const w = vc * denom;
  return Math.hypot(apx - v * abx - w * acx, apy - v * aby - w * acy, apz - v * abz - w * acz);
}

const CELL_RANGE = 1 << 16;

/**
 * Faces binned in a uniform grid of `cell`-sided cubes (each face in every cell its bounding box
 * touches), for "distance to the nearest face, up to a bound" queries.
 */
export class FaceGrid {
  private readonly cells = new Map<number, number[]>();
  /** Every face is scored once per query: the query's stamp on it. */
  private readonly stamp: Uint32Array;
  private query = 0;

  constructor(readonly positions: Float64Array, readonly indices: Uint32Array, readonly cell: number) {
    this.stamp = new Uint32Array(indices.length / 3);
    for (let f = 0; f < indices.length / 3; f++) {
      const lo = [Infinity, Infinity, Infinity];
      const hi = [-Infinity, -Infinity, -Infinity];
      for (let k = 0; k < 3; k++) {
        const v = indices[3 * f + k];
        for (let a = 0; a < 3; a++) {
          lo[a] = Math.min(lo[a], positions[3 * v + a]);
          hi[a] = Math.max(hi[a], positions[3 * v + a]);
        }
      }
      this.forCells(lo, hi, (key) => {
        const list = this.cells.get(key);
        if (list) list.push(f);
        else this.cells.set(key, [f]);
      });
    }
  }

  /** Cells of the box [lo, hi], each by a numeric key (cell indices within ±2¹⁶: 2¹⁶ cells of 1 % of the radius each way). */
  private forCells(lo: number[], hi: number[], visit: (key: number) => void): void {
    const [x0, y0, z0] = lo.map((v) => Math.floor(v / this.cell));
    const [x1, y1, z1] = hi.map((v) => Math.floor(v / this.cell));
    if (Math.min(x0, y0, z0) < -CELL_RANGE || Math.max(x1, y1, z1) >= CELL_RANGE) throw new Error("FaceGrid: the mesh reaches beyond 65,536 cells from the origin");
    for (let x = x0; x <= x1; x++) for (let y = y0; y <= y1; y++) for (let z = z0; z <= z1; z++) visit(((x + CELL_RANGE) * 2 * CELL_RANGE + (y + CELL_RANGE)) * 2 * CELL_RANGE + (z + CELL_RANGE));
  }

  /** Distance from p to the nearest face, or Infinity when none lies within `bound`. */
  nearest(p: ArrayLike<number>, bound: number): number {
    let best = Infinity;
    const stamp = ++this.query;
    const lo = [p[0] - bound, p[1] - bound, p[2] - bound];
    const hi = [p[0] + bound, p[1] + bound, p[2] + bound];
    this.forCells(lo, hi, (key) => {
      for (const f of this.cells.get(key) ?? []) {
        if (this.stamp[f] === stamp) continue;
        this.stamp[f] = stamp;
        const d = pointTriangleDistance(p, this.positions, this.indices[3 * f], this.indices[3 * f + 1], this.indices[3 * f + 2]);
        if (d < best) best = d;
      }
    });
    return best <= bound ? best : Infinity;
  }
}

/**
 * `count` points spread over the faces in proportion to their area (a face gets ⌊its share⌋ or
 * one more, by a running remainder, each at a seeded random barycentric position), so the
 * precision is an area average, not a vertex one (simplification leaves large faces on planes).
 */
export function samplesByArea(positions: Float64Array, indices: Uint32Array, count: number, seed = 1): Float64Array {
  const faces = indices.length / 3;
  const areas = new Float64Array(faces);
  let total = 0;
  for (let f = 0; f < faces; f++) {
    const [a, b, c] = [indices[3 * f], indices[3 * f + 1], indices[3 * f + 2]];
    const u = [0, 1, 2].map((k) => positions[3 * b + k] - positions[3 * a + k]);
    const v = [0, 1, 2].map((k) => positions[3 * c + k] - positions[3 * a + k]);
    areas[f] = 0.5 * Math.hypot(u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]);
    total += areas[f];
  }
  const out: number[] = [];
  if (!(total > 0)) return new Float64Array(0);
  let state = seed >>> 0 || 1;
  const random = (): number => {
    // xorshift32: reproducible samples, so two runs of the bench score the same points.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
  let carry = 0;
  for (let f = 0; f < faces; f++) {
    carry += (areas[f] / total) * count;
    const n = Math.floor(carry);
    carry -= n;
    const [a, b, c] = [indices[3 * f], indices[3 * f + 1], indices[3 * f + 2]];
    for (let s = 0; s < n; s++) {
      let r1 = random();
      let r2 = random();
      if (r1 + r2 > 1) [r1, r2] = [1 - r1, 1 - r2];
      for (let k = 0; k < 3; k++) out.push(positions[3 * a + k] + r1 * (positions[3 * b + k] - positions[3 * a + k]) + r2 * (positions[3 * c + k] - positions[3 * a + k]));
    }
  }
  return Float64Array.from(out);
}
