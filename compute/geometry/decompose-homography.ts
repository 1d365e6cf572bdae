/**
 * @module Decomposition of a calibrated homography into relative poses and plane normals
 * (Faugeras & Lustman 1988; the SVD construction of Ma, Soatto, Košecká & Sastry, "An
 * Invitation to 3-D Vision", 2004, §5.3.3).
 *
 * Why: when every match of an image pair lies on one plane (a mural, a floor, a facade seen
 * from afar), the five-point essential matrix has a second solution that fits the matches as
 * well as the true one, and RANSAC picks either; the homography decomposition states the
 * ambiguity instead: two physically valid (R, t, n) triples, of which the caller keeps the one
 * whose plane normal agrees with another pair of the same image (the plane is the same in both).
 *
 * Convention: x2 ~ H·x1 in normalised coordinates, X2 = R·X1 + t, the plane nᵀ·X1 = d (d > 0,
 * n the unit normal in camera 1's frame), H ∝ R + t·nᵀ / d. Returned t is t / d.
 */
import { cross3, mat3Mul, mat3Transpose, mat3Vec, svd } from "../math/linalg.js";

export interface PlanarPose {
  /** cam2FromCam1 rotation, row-major. */
  R: Float64Array;
  /** cam2FromCam1 translation divided by the plane's distance from camera 1. */
  t: Float64Array;
  /** The plane's unit normal in camera 1's frame, pointing away from camera 1 (n·x > 0 in front). */
  n: Float64Array;
}

/** Columns a, b, c as a row-major 3×3 matrix. */
function fromColumns(a: ArrayLike<number>, b: ArrayLike<number>, c: ArrayLike<number>): Float64Array {
  return new Float64Array([a[0], b[0], c[0], a[1], b[1], c[1], a[2], b[2], c[2]]);
}

/** Relative motion below which the decomposition is degenerate (σ1 ≈ σ3: pure rotation). */
const MIN_SINGULAR_SPREAD = 1e-9;

/**
 * The physically valid decompositions of H (normalised coordinates): those that put the given
 * matches in front of camera 1 (n·x1 > 0 for most of them). Usually two; empty when H is a
 * pure rotation (no translation to recover).
 */
export function decomposeHomography(H: ArrayLike<number>, x1: ArrayLike<number>, x2: ArrayLike<number>, count: number): PlanarPose[] {
  // Scale H so its middle singular value is 1, and its sign so that x2ᵀ·H·x1 > 0 (positive depths).
  const { S } = svd(H, 3, 3);
  if (!(S[1] > 0)) return [];
  let sign = 0;
  for (let i = 0; i < count; i++) {
    const hx = mat3Vec(H, [x1[2 * i], x1[2 * i + 1], 1]);
    sign += x2[2 * i] * hx[0] + x2[2 * i + 1] * hx[1] + hx[2] > 0 ? 1 : -1;
  }
  const scale = (sign >= 0 ? 1 : -1) / S[1];
  const Hn = Float64Array.from(H, (v) => v * scale);
  // HᵀH = V·Σ²·Vᵀ with σ1² ≥ 1 = σ2² ≥ σ3².
  const HtH = mat3Mul(mat3Transpose(Hn), Hn);
  const eig = svd(HtH, 3, 3);
  const s1 = eig.S[0];
  const s3 = eig.S[2];
  if (s1 - s3 < MIN_SINGULAR_SPREAD) return [];
  const V = eig.V;
  const column = (c: number) => new Float64Array([V[c], V[3 + c], V[6 + c]]);
  const v1 = column(0);
  const v2 = column(1);
  const v3 = column(2);
  const a = Math.sqrt(Math.max(0, 1 - s3));
  const b = Math.sqrt(Math.max(0, s1 - 1));
  const norm = Math.sqrt(s1 - s3);
  const candidates: PlanarPose[] = [];
  for (const sgn of [1, -1]) {
    const u = new Float64Array([0, 1, 2].map((k) => (a * v1[k] + sgn * b * v3[k]) / norm));
    const U = fromColumns(v2, u, cross3(v2, u));
    const Hv2 = mat3Vec(Hn, v2);
    const Hu = mat3Vec(Hn, u);
    const W = fromColumns(Hv2, Hu, cross3(Hv2, Hu));
    const R = mat3Mul(W, mat3Transpose(U));
    const n = cross3(v2, u);
    // t = (H − R)·n.
    const HminusR = Hn.map((v, k) => v - R[k]);
    const t = mat3Vec(HminusR, n);
    candidates.push({ R, t, n }, { R: R.slice(), t: t.map((v) => -v), n: n.map((v) => -v) });
  }
  // In front of camera 1: the plane's normal points away from it, n·x1 > 0 for the matches.
  return candidates.filter((c) => {
    let front = 0;
    for (let i = 0; i < count; i++) if (c.n[0] * x1[2 * i] + c.n[1] * x1[2 * i + 1] + c.n[2] > 0) front++;
    return front > count / 2;
  });
}
