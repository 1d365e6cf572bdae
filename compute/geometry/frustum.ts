/**
 * @module Conservative visibility tests: a sphere round a set of points against the frustum of
 * a pinhole camera. When the sphere lies wholly outside one of the frustum's planes, no point
 * in it projects into the image; the converse does not hold (the test may pass for points
 * that all fall outside), so it only ever skips work that would find nothing.
 */

/** Centre and radius (x, y, z, r) of a sphere holding the points `xyz` (3 per point) picked by `indices`; r < 0 when none. */
export function boundingSphere(xyz: Float64Array, indices: ArrayLike<number>): Float64Array {
  const sphere = new Float64Array([0, 0, 0, -1]);
  if (indices.length === 0) return sphere;
  for (let n = 0; n < indices.length; n++) for (let a = 0; a < 3; a++) sphere[a] += xyz[3 * indices[n] + a];
  for (let a = 0; a < 3; a++) sphere[a] /= indices.length;
  let radius = 0;
  for (let n = 0; n < indices.length; n++) {
    const k = indices[n];
    radius = Math.max(radius, Math.hypot(xyz[3 * k] - sphere[0], xyz[3 * k + 1] - sphere[1], xyz[3 * k + 2] - sphere[2]));
  }
  sphere[3] = radius;
  return sphere;
}

/**
 * The five planes bounding what a pinhole camera sees — in front of it (z > 0) and
 * 0 ≤ u ≤ width, 0 ≤ v ≤ height — in the world frame: 4 numbers per plane (unit normal n
 * pointing inwards, offset d), a point X inside when n·X + d ≥ 0.
 */
export function frustumPlanes(camFromWorldR: ArrayLike<number>, camFromWorldT: ArrayLike<number>, focal: number, cx: number, cy: number, width: number, height: number): Float64Array {
  const R = camFromWorldR;
  const t = camFromWorldT;
  // Camera-frame normals: u ≥ 0 ⇔ f·x + cx·z ≥ 0, u ≤ w ⇔ −f·x + (w − cx)·z ≥ 0, likewise v; z ≥ 0.
  const cameraNormals = [[focal, 0, cx], [-focal, 0, width - cx], [0, focal, cy], [0, -focal, height - cy], [0, 0, 1]];
  const planes = new Float64Array(20);
  cameraNormals.forEach((n, p) => {
    const length = Math.hypot(n[0], n[1], n[2]);
    // n·(R X + t) = (Rᵀ n)·X + n·t
    for (let a = 0; a < 3; a++) planes[4 * p + a] = (R[a] * n[0] + R[3 + a] * n[1] + R[6 + a] * n[2]) / length;
    planes[4 * p + 3] = (n[0] * t[0] + n[1] * t[1] + n[2] * t[2]) / length;
  });
  return planes;
}

/** False only when the sphere lies wholly outside one of the planes (an empty sphere meets nothing). */
export function sphereMeetsFrustum(sphere: Float64Array, planes: Float64Array): boolean {
  if (sphere[3] < 0) return false;
  for (let p = 0; p < 5; p++) {
    const distance = planes[4 * p] * sphere[0] + planes[4 * p + 1] * sphere[1] + planes[4 * p + 2] * sphere[2] + planes[4 * p + 3];
    if (distance < -sphere[3]) return false;
  }
  return true;
}
