/**
 * @module A static k-d tree over 2-D or 3-D points in flat typed arrays, kdbush style
 * (mourner/kdbush): the points are reordered in place into an implicit balanced tree — the
 * median of each range splits it, axes alternate, ranges of at most `nodeSize` points are
 * leaves — so there are no node objects, only `ids` and `coords`. Queries: nearest neighbour,
 * k nearest, and all points within a radius.
 */

export class KdTree {
  /** Original index of each point, in tree order. */
  readonly ids: Uint32Array;
  /** Coordinates in tree order, dim per point. */
  readonly coords: Float64Array;
  readonly dim: 2 | 3;
  readonly nodeSize: number;
  readonly count: number;

  constructor(points: Float32Array | Float64Array, dim: 2 | 3 = 3, nodeSize = 16) {
    if (points.length % dim !== 0) throw new Error(`KdTree: ${points.length} coordinates is not a multiple of ${dim}`);
    this.dim = dim;
    this.nodeSize = Math.max(1, nodeSize);
    this.count = points.length / dim;
    this.coords = Float64Array.from(points);
    this.ids = new Uint32Array(this.count);
    for (let i = 0; i < this.count; i++) this.ids[i] = i;
    this.build(0, this.count - 1, 0);
  }

  private build(left: number, right: number, axis: number): void {
    if (right - left <= this.nodeSize) return;
    const m = (left + right) >> 1;
    this.select(m, left, right, axis);
    const next = (axis + 1) % this.dim;
    this.build(left, m - 1, next);
    this.build(m + 1, right, next);
  }

  /** Floyd–Rivest selection (as in kdbush): puts the k-th smallest along `axis` at k, smaller left, larger right. */
  private select(k: number, left: number, right: number, axis: number): void {
    const { coords, dim } = this;
    while (right > left) {
      if (right - left > 600) {
        const n = right - left + 1;
        const m = k - left + 1;
        const z = Math.log(n);
        const s = 0.5 * Math.exp((2 * z) / 3);
        const sd = 0.5 * Math.sqrt((z * s * (n - s)) / n) * (m - n / 2 < 0 ? -1 : 1);
        this.select(k, Math.max(left, Math.floor(k - (m * s) / n + sd)), Math.min(right, Math.floor(k + ((n - m) * s) / n + sd)), axis);
      }
      const t = coords[dim * k + axis];
      let i = left;
      let j = right;
      this.swap(left, k);
      if (coords[dim * right + axis] > t) this.swap(left, right);
      while (i < j) {
        this.swap(i, j);
        i++;
        j--;
        while (coords[dim * i + axis] < t) i++;
        while (coords[dim * j + axis] > t) j--;
      }
      if (coords[dim * left + axis] === t) this.swap(left, j);
      else {
        j++;
        this.swap(j, right);
      }
      if (j <= k) left = j + 1;
      if (k <= j) right = j - 1;
    }
  }

  private swap(i: number, j: number): void {
    const { ids, coords, dim } = this;
    const id = ids[i];
    ids[i] = ids[j];
    ids[j] = id;
    for (let a = 0; a < dim; a++) {
      const c = coords[dim * i + a];
      coords[dim * i + a] = coords[dim * j + a];
      coords[dim * j + a] = c;
    }
  }

  private distanceSq(slot: number, x: number, y: number, z: number): number {
    const { coords, dim } = this;
    const dx = coords[dim * slot] - x;
    const dy = coords[dim * slot + 1] - y;
    const dz = dim === 3 ? coords[dim * slot + 2] - z : 0;
    return dx * dx + dy * dy + dz * dz;
  }

  /** Squared distance of the point returned by the last `nearest` call (Infinity if none). */
  lastDistanceSq = Infinity;
  /** Scratch stack of (left, right, axis, lower bound on distance²) for `nearest`; grown on demand. */
  private stack = new Float64Array(4 * 64);

  /**
   * Original index of the point nearest to (x, y[, z]), or −1 if the tree is empty; its squared
   * distance is left in `lastDistanceSq`. Allocation-free: an explicit stack, near side first.
   */
  nearest(x: number, y: number, z = 0): number {
    const { coords, dim, nodeSize } = this;
    let bestSlot = -1;
    let bestSq = Infinity;
    let top = 0;
    const push = (left: number, right: number, axis: number, boundSq: number): void => {
      if (top + 4 > this.stack.length) {
        const grown = new Float64Array(this.stack.length * 2);
        grown.set(this.stack);
        this.stack = grown;
      }
      this.stack[top++] = left;
      this.stack[top++] = right;
      this.stack[top++] = axis;
      this.stack[top++] = boundSq;
    };
    if (this.count > 0) push(0, this.count - 1, 0, 0);
    while (top > 0) {
      const boundSq = this.stack[--top];
      const axis = this.stack[--top];
      const right = this.stack[--top];
      const left = this.stack[--top];
      if (boundSq >= bestSq || right < left) continue;
      if (right - left <= nodeSize) {
        for (let i = left; i <= right; i++) {
          const dSq = this.distanceSq(i, x, y, z);
          if (dSq < bestSq) {
            bestSq = dSq;
            bestSlot = i;
          }
        }
        continue;
      }
      const m = (left + right) >> 1;
      const dSq = this.distanceSq(m, x, y, z);
      if (dSq < bestSq) {
        bestSq = dSq;
        bestSlot = m;
      }
      const diff = (axis === 0 ? x : axis === 1 ? y : z) - coords[dim * m + axis];
      const next = (axis + 1) % dim;
      // Far side first onto the stack so the near side is searched first.
      if (diff < 0) {
        push(m + 1, right, next, diff * diff);
        push(left, m - 1, next, 0);
      } else {
        push(left, m - 1, next, diff * diff);
        push(m + 1, right, next, 0);
      }
    }
    this.lastDistanceSq = bestSq;
    return bestSlot < 0 ? -1 : this.ids[bestSlot];
  }

  /**
   * The k nearest points (fewer if the tree is smaller), closest first, with squared distances;
   * points not closer than `maxDistance` are not returned.
   */
  kNearest(x: number, y: number, z: number, k: number, maxDistance = Infinity): { indices: Uint32Array; distancesSq: Float64Array } {
    const best = new Uint32Array(k); // slots of the current k best, ascending distance
    const bestDist = new Float64Array(k).fill(maxDistance * maxDistance);
    let found = 0;
    const query = [x, y, z];
    const visit = (left: number, right: number, axis: number): void => {
      if (right - left <= this.nodeSize) {
        for (let i = left; i <= right; i++) found = this.offer(i, this.distanceSq(i, x, y, z), best, bestDist, found);
        return;
      }
      const m = (left + right) >> 1;
      found = this.offer(m, this.distanceSq(m, x, y, z), best, bestDist, found);
      const diff = query[axis] - this.coords[this.dim * m + axis];
      const next = (axis + 1) % this.dim;
      const [nearLeft, nearRight, farLeft, farRight] = diff < 0 ? [left, m - 1, m + 1, right] : [m + 1, right, left, m - 1];
      visit(nearLeft, nearRight, next);
      // The far half can only hold a closer point if the splitting plane is within the k-th distance.
      if (diff * diff < bestDist[k - 1]) visit(farLeft, farRight, next);
    };
    if (this.count > 0 && k > 0) visit(0, this.count - 1, 0);
    const indices = new Uint32Array(found);
    for (let i = 0; i < found; i++) indices[i] = this.ids[best[i]];
    return { indices, distancesSq: bestDist.slice(0, found) };
  }

  /** Inserts slot into the sorted best list if closer than the current k-th; returns the new count. */
  private offer(slot: number, dSq: number, best: Uint32Array, bestDist: Float64Array, found: number): number {
    const k = best.length;
    // Unfilled entries hold maxDistance², so this one test also enforces the distance limit.
    if (!(dSq < bestDist[k - 1])) return found;
    let i = Math.min(found, k - 1);
    while (i > 0 && bestDist[i - 1] > dSq) {
      best[i] = best[i - 1];
      bestDist[i] = bestDist[i - 1];
      i--;
    }
    best[i] = slot;
    bestDist[i] = dSq;
    return Math.min(found + 1, k);
  }

  /** Original indices of all points within distance r of (x, y[, z]) (inclusive), appended to `out`. */
  radiusSearch(x: number, y: number, z: number, r: number, out: number[] = []): number[] {
    if (this.count === 0) return out;
    const rSq = r * r;
    const query = [x, y, z];
    const stack = [0, this.count - 1, 0]; // (left, right, axis) triples still to visit
    while (stack.length > 0) {
      const axis = stack.pop()!;
      const right = stack.pop()!;
      const left = stack.pop()!;
      if (right - left <= this.nodeSize) {
        for (let i = left; i <= right; i++) if (this.distanceSq(i, x, y, z) <= rSq) out.push(this.ids[i]);
        continue;
      }
      const m = (left + right) >> 1;
      if (this.distanceSq(m, x, y, z) <= rSq) out.push(this.ids[m]);
      const split = this.coords[this.dim * m + axis];
      const next = (axis + 1) % this.dim;
      if (query[axis] - r <= split) stack.push(left, m - 1, next);
      if (query[axis] + r >= split) stack.push(m + 1, right, next);
    }
    return out;
  }
}
