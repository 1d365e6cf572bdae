/**
 * @module How far the ground reaches: the convex hull, on the ground's plane, of where its own
 * points lie and of the cameras standing above it.
 *
 * Why a hull and not the cloud's bounding box: past the edge of a floor, a terrace or a street
 * the cameras see sky or far background, which leaves no point to see through, so the camera
 * verdict keeps such cells, and the ground ran on as a ledge into the sky wherever the box
 * (whose axes are the plane's, not the ground's edges) reached past the ground: the synthetic
 * object ring's square floor grew bands of sky-coloured ground above its horizon. Within the hull
 * the ground is where its points say it is, or where the photographer stood on it; beyond it
 * nothing says there is ground.
 */

/** A convex polygon on the plane, counter-clockwise, as (u, v) pairs. */
export type Hull = Float64Array;

/** Andrew's monotone chain (1979): the convex hull of (u, v) points, counter-clockwise, without collinear points. */
export function convexHull(points: Float64Array): Hull {
  const count = points.length / 2;
  const order = Array.from({ length: count }, (_, i) => i).sort((a, b) => points[2 * a]! - points[2 * b]! || points[2 * a + 1]! - points[2 * b + 1]!);
  const cross = (o: number, a: number, b: number) =>
    (points[2 * a]! - points[2 * o]!) * (points[2 * b + 1]! - points[2 * o + 1]!) - (points[2 * a + 1]! - points[2 * o + 1]!) * (points[2 * b]! - points[2 * o]!);
  const chain = (indices: number[]): number[] => {
    const out: number[] = [];
    for (const i of indices) {
      while (out.length >= 2 && cross(out[out.length - 2]!, out[out.length - 1]!, i) <= 0) out.pop();
      out.push(i);
    }
    out.pop();
    return out;
  };
  const hull = count < 3 ? order : [...chain(order), ...chain([...order].reverse())];
  const result = new Float64Array(2 * hull.length);
  hull.forEach((i, k) => result.set([points[2 * i]!, points[2 * i + 1]!], 2 * k));
  return result;
}

/** Whether (u, v) lies inside the counter-clockwise convex `hull` (or on its edge). */
export function insideHull(hull: Hull, u: number, v: number): boolean {
  const corners = hull.length / 2;
  if (corners < 3) return false;
  for (let k = 0; k < corners; k++) {
    const next = (k + 1) % corners;
    const eu = hull[2 * next]! - hull[2 * k]!, ev = hull[2 * next + 1]! - hull[2 * k + 1]!;
    if (eu * (v - hull[2 * k + 1]!) - ev * (u - hull[2 * k]!) < 0) return false;
  }
  return true;
}

/**
 * The ground's extent: the hull of the ground's points that share a coarse cell with at least
 * `minPoints − 1` others, and of the cameras' feet. The points themselves, not their cells'
 * corners: on a sparse ground a cell is many voxels wide, and corners carried the fill that far
 * past the ground's end. A coarse cell is `minCell` wide, or wider where the ground's points are
 * sparse: `spacingFactor` times their mean spacing over their bounding box, so that a cell of an
 * evenly spread ground holds about spacingFactor² points (the scattered points stereo leaves on
 * a courtyard count as ground, one lone point far out does not). `groundUV` and `cameraUV` are
 * (u, v) pairs in the plane's frame.
 */
export function groundHull(groundUV: Float64Array, cameraUV: Float64Array, minCell: number, minPoints: number, spacingFactor = 3): Hull {
  const n = groundUV.length / 2;
  let minU = Infinity, maxU = -Infinity, minV = Infinity, maxV = -Infinity;
  for (let i = 0; i < groundUV.length; i += 2) {
    minU = Math.min(minU, groundUV[i]!); maxU = Math.max(maxU, groundUV[i]!);
    minV = Math.min(minV, groundUV[i + 1]!); maxV = Math.max(maxV, groundUV[i + 1]!);
  }
  const coarseCell = n > 0 ? Math.max(minCell, spacingFactor * Math.sqrt(((maxU - minU) * (maxV - minV)) / n)) : minCell;
  // Per coarse cell: its count and its points furthest along ±u and ±v. The hull of these
  // extremes lies within a coarse cell of the points' own, and a floor of 1.5 M points (the
  // object ring's) leaves a few thousand to sort.
  const cells = new Map<number, { count: number; extremes: [number, number, number, number] }>();
  const keyOf = (i: number) => (Math.floor(groundUV[i]! / coarseCell) + 2 ** 20) * 2 ** 21 + Math.floor(groundUV[i + 1]! / coarseCell) + 2 ** 20;
  for (let i = 0; i < groundUV.length; i += 2) {
    const key = keyOf(i);
    const cell = cells.get(key);
    if (!cell) {
      cells.set(key, { count: 1, extremes: [i, i, i, i] });
      continue;
    }
    cell.count++;
    const e = cell.extremes;
    if (groundUV[i]! < groundUV[e[0]]!) e[0] = i;
    if (groundUV[i]! > groundUV[e[1]]!) e[1] = i;
    if (groundUV[i + 1]! < groundUV[e[2] + 1]!) e[2] = i;
    if (groundUV[i + 1]! > groundUV[e[3] + 1]!) e[3] = i;
  }
  const kept: number[] = Array.from(cameraUV);
  for (const { count, extremes } of cells.values()) {
    if (count < minPoints) continue;
    for (const i of extremes) kept.push(groundUV[i]!, groundUV[i + 1]!);
  }
  return convexHull(Float64Array.from(kept));
}

/**
 * The hull's bounding box in (u, v): the ground's grid covers it whole. The cloud's 2nd–98th
 * percentiles, used before, cut the grid short of the ground's own ends where those ends hold
 * few of the cloud's points (the synthetic facade's ground past the building's right end, seen
 * by the two photos at that end), and the hull already leaves out a lone point far out.
 */
export function hullBox(hull: Hull): { minU: number; maxU: number; minV: number; maxV: number } {
  let minU = Infinity, maxU = -Infinity, minV = Infinity, maxV = -Infinity;
  for (let k = 0; k < hull.length; k += 2) {
    minU = Math.min(minU, hull[k]!); maxU = Math.max(maxU, hull[k]!);
    minV = Math.min(minV, hull[k + 1]!); maxV = Math.max(maxV, hull[k + 1]!);
  }
  return { minU, maxU, minV, maxV };
}
