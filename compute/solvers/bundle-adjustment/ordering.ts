/**
 * @module Order of the camera blocks in the reduced camera system. The dense Cholesky
 * (dense-cholesky.ts) skips the zeros of each row, so its cost is Σ nnz(row)² over the factor,
 * and fill-in depends on the order. Reverse Cuthill–McKee (Cuthill & McKee 1969; George 1971)
 * numbers the camera co-visibility graph breadth first from a peripheral camera, which turns
 * a survey grid or a long walk into a band as wide as one "front" of cameras instead of
 * the whole registration history: the factor stays banded and the cost ~ n · band².
 */

/**
 * Per camera, the taken cameras (`take[c]`) that observe a point with it (empty for cameras not
 * taken). Observations of point p are `pointObs[pointObsStart[p] .. pointObsStart[p+1])`, their
 * cameras `obsCamera[o]`.
 */
export function coVisibility(cameraCount: number, take: Uint8Array, pointObsStart: Uint32Array, pointObs: Uint32Array, obsCamera: Uint32Array | Int32Array): Array<Set<number>> {
  const neighbours: Array<Set<number>> = Array.from({ length: cameraCount }, () => new Set<number>());
  const seen: number[] = [];
  for (let p = 0; p + 1 < pointObsStart.length; p++) {
    seen.length = 0;
    for (let k = pointObsStart[p]; k < pointObsStart[p + 1]; k++) {
      const c = obsCamera[pointObs[k]];
      if (take[c]) seen.push(c);
    }
    for (let a = 0; a < seen.length; a++) for (let b = a + 1; b < seen.length; b++) if (seen[a] !== seen[b]) {
      neighbours[seen[a]].add(seen[b]);
      neighbours[seen[b]].add(seen[a]);
    }
  }
  return neighbours;
}

/**
 * Multiply-adds of the dense Cholesky of a reduced system whose camera blocks (`blockSize`
 * parameters each) come in `order`, plus `border` parameters coupled to all (intrinsics): the
 * factor stays inside the envelope of the matrix, so column j costs (its envelope height)²/2.
 */
export function envelopeCost(order: number[], neighbours: Array<Set<number>>, blockSize: number, border: number): number {
  const rank = new Map(order.map((c, k) => [c, k]));
  let cost = 0;
  order.forEach((camera, k) => {
    let first = k;
    for (const n of neighbours[camera]) first = Math.min(first, rank.get(n) ?? k);
    const height = blockSize * (k - first + 1);
    cost += (blockSize * height * height) / 2;
  });
  const n = blockSize * order.length + border;
  return cost + (border * n * n) / 2;
}

/** Reverse Cuthill–McKee order of the taken cameras (`neighbours` from coVisibility). */
export function bandedOrder(neighbours: Array<Set<number>>, take: Uint8Array): number[] {
  const cameraCount = neighbours.length;
  const degree = (c: number) => neighbours[c].size;
  const sorted = (c: number) => [...neighbours[c]].sort((x, y) => degree(x) - degree(y) || x - y);
  const order: number[] = [];
  const placed = new Uint8Array(cameraCount);
  /** The unplaced camera farthest from `start` breadth first (the lowest degree among the farthest). */
  const farthest = (start: number): number => {
    const depth = new Map<number, number>([[start, 0]]);
    const queue = [start];
    let last = start;
    for (let head = 0; head < queue.length; head++) {
      const c = queue[head];
      for (const n of neighbours[c]) if (!placed[n] && !depth.has(n)) {
        depth.set(n, depth.get(c)! + 1);
        queue.push(n);
        if (depth.get(n)! > depth.get(last)! || (depth.get(n) === depth.get(last) && degree(n) < degree(last))) last = n;
      }
    }
    return last;
  };
  const candidates = Array.from({ length: cameraCount }, (_, c) => c).filter((c) => take[c]).sort((x, y) => degree(x) - degree(y) || x - y);
  for (const first of candidates) {
    if (placed[first]) continue;
    // A pseudo-peripheral start: the far end of a breadth-first search from a low-degree camera.
    const start = farthest(farthest(first));
    const queue = [start];
    placed[start] = 1;
    for (let head = 0; head < queue.length; head++) {
      const c = queue[head];
      order.push(c);
      for (const n of sorted(c)) if (!placed[n]) {
        placed[n] = 1;
        queue.push(n);
      }
    }
  }
  return order.reverse();
}
