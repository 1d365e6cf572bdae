/**
 * @module Dense clusters: the registered views split into groups of at most `maxViews` "core"
 * views, so that a capture of any size is solved one bounded group at a time (CMVS,
 * Furukawa et al., CVPR 2010; OpenMVS's view sub-scenes, for the same reason). Each cluster
 * also brings in its core views' source views from outside it ("extras"): they are solved
 * again there (their depth maps check and join the core views' points) but seed no point,
 * and a point that an extra from an earlier cluster joins is left to that cluster (fusion.ts's
 * `yieldTo`), so the overlap between clusters is emitted once. Each cluster needs only its
 * own views: clusters are independent tasks.
 *
 * The split is a recursive median bisection of the camera centres along their principal axis:
 * neighbouring cameras stay together, a flight grid becomes blocks and a ring becomes arcs.
 */

export interface DenseCluster {
  /** Views whose pixels seed points here (indices into SparseModel.views), ascending. */
  core: number[];
  /** Source views of the core from other clusters, solved here too but not seeding. */
  extras: number[];
}

/** Unit principal axis of the points (3·n floats) picked by `members` (power iteration on the covariance). */
function principalAxis(centres: Float64Array, members: number[]): [number, number, number] {
  const mean = [0, 0, 0];
  for (const m of members) for (let a = 0; a < 3; a++) mean[a] += centres[3 * m + a] / members.length;
  const cov = new Float64Array(9);
  for (const m of members) {
    const d = [0, 1, 2].map((a) => centres[3 * m + a] - mean[a]);
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) cov[3 * r + c] += d[r] * d[c];
  }
  // Start from the axis of largest variance: never orthogonal to the principal one.
  const start = [cov[0], cov[4], cov[8]].indexOf(Math.max(cov[0], cov[4], cov[8]));
  let v: [number, number, number] = [0, 0, 0];
  v[start] = 1;
  for (let iteration = 0; iteration < 50; iteration++) {
    const w: [number, number, number] = [0, 1, 2].map((r) => cov[3 * r] * v[0] + cov[3 * r + 1] * v[1] + cov[3 * r + 2] * v[2]) as [number, number, number];
    const norm = Math.hypot(w[0], w[1], w[2]);
    if (!(norm > 0)) break;
    v = [w[0] / norm, w[1] / norm, w[2] / norm];
  }
  return v;
}

/** Split `members` into groups of at most `maxViews` by median cuts along their principal axis. */
function bisect(centres: Float64Array, members: number[], maxViews: number, out: number[][]): void {
  if (members.length <= maxViews) {
    out.push([...members].sort((a, b) => a - b));
    return;
  }
  const axis = principalAxis(centres, members);
  const along = (m: number) => axis[0] * centres[3 * m] + axis[1] * centres[3 * m + 1] + axis[2] * centres[3 * m + 2];
  const sorted = [...members].sort((a, b) => along(a) - along(b) || a - b);
  // Halves whose sizes are multiples of what fits, so a 2.1 × maxViews set does not end with a sliver.
  const parts = Math.ceil(members.length / maxViews);
  const cut = Math.round((Math.floor(parts / 2) / parts) * members.length);
  bisect(centres, sorted.slice(0, cut), maxViews, out);
  bisect(centres, sorted.slice(cut), maxViews, out);
}

/**
 * Clusters of at most `maxViews` core views from the camera centres (3·n floats) and each
 * view's source views; a set of at most `maxViews` views is one cluster without extras.
 */
export function clusterViews(centres: Float64Array, sources: number[][], maxViews: number): DenseCluster[] {
  const n = centres.length / 3;
  const groups: number[][] = [];
  bisect(centres, Array.from({ length: n }, (_, i) => i), Math.max(1, maxViews), groups);
  return groups.map((core) => {
    const inCore = new Set(core);
    const extras = new Set<number>();
    for (const view of core) for (const s of sources[view]) if (!inCore.has(s)) extras.add(s);
    return { core, extras: [...extras].sort((a, b) => a - b) };
  });
}
