/**
 * @module Test helpers comparing an estimated reconstruction with the truth after a
 * similarity alignment of camera centres (Horn 1987, "Closed-form solution of absolute
 * orientation using unit quaternions"), with a Jacobi eigen-solver for the 4×4 matrix.
 */
import type { BAProblem } from "../../../../compute/solvers/bundle-adjustment/index.js";
import { angleAxisToMatrix } from "../../../../compute/solvers/bundle-adjustment/rotation.js";

export function rotationOf(problem: BAProblem, c: number): Float64Array {
  const R = new Float64Array(9);
  angleAxisToMatrix(problem.poses, 6 * c, R, 0);
  return R;
}

/** Camera centre −Rᵀt in world coordinates. */
export function centerOf(problem: BAProblem, c: number): number[] {
  const R = rotationOf(problem, c);
  const t = problem.poses.subarray(6 * c + 3, 6 * c + 6);
  return [0, 1, 2].map((j) => -(R[j] * t[0] + R[3 + j] * t[1] + R[6 + j] * t[2]));
}

/** Eigenvector of the largest eigenvalue of a symmetric 4×4 matrix (cyclic Jacobi). */
function dominantEigenvector4(input: number[][]): number[] {
  const a = input.map((row) => row.slice());
  const v: number[][] = [0, 1, 2, 3].map((i) => [0, 1, 2, 3].map((j) => (i === j ? 1 : 0)));
  for (let sweep = 0; sweep < 50; sweep++) {
    for (let p = 0; p < 3; p++) {
      for (let q = p + 1; q < 4; q++) {
        if (Math.abs(a[p][q]) < 1e-300) continue;
        const theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < 4; k++) {
          const akp = a[k][p], akq = a[k][q];
          a[k][p] = c * akp - s * akq; a[k][q] = s * akp + c * akq;
        }
        for (let k = 0; k < 4; k++) {
          const apk = a[p][k], aqk = a[q][k];
          a[p][k] = c * apk - s * aqk; a[q][k] = s * apk + c * aqk;
        }
        for (let k = 0; k < 4; k++) {
          const vkp = v[k][p], vkq = v[k][q];
          v[k][p] = c * vkp - s * vkq; v[k][q] = s * vkp + c * vkq;
        }
      }
    }
  }
  let best = 0;
  for (let i = 1; i < 4; i++) if (a[i][i] > a[best][best]) best = i;
  return [0, 1, 2, 3].map((k) => v[k][best]);
}

export interface Similarity {
  scale: number;
  /** Row-major rotation taking estimated-world directions to true-world directions. */
  R: number[];
  t: number[];
}

/** Similarity with truth ≈ scale·R·estimate + t, least squares over the point pairs. */
export function alignSimilarity(estimate: number[][], truth: number[][]): Similarity {
  const n = estimate.length;
  const mean = (pts: number[][]): number[] => [0, 1, 2].map((k) => pts.reduce((s, p) => s + p[k], 0) / n);
  const ma = mean(estimate), mb = mean(truth);
  const a = estimate.map((p) => p.map((x, k) => x - ma[k]));
  const b = truth.map((p) => p.map((x, k) => x - mb[k]));
  const S = [0, 1, 2].map((i) => [0, 1, 2].map((j) => a.reduce((s, _, k) => s + a[k][i] * b[k][j], 0)));
  const [[sxx, sxy, sxz], [syx, syy, syz], [szx, szy, szz]] = S;
  const N = [
    [sxx + syy + szz, syz - szy, szx - sxz, sxy - syx],
    [syz - szy, sxx - syy - szz, sxy + syx, szx + sxz],
    [szx - sxz, sxy + syx, -sxx + syy - szz, syz + szy],
    [sxy - syx, szx + sxz, syz + szy, -sxx - syy + szz],
  ];
  const [w, x, y, z] = dominantEigenvector4(N);
  const R = [
    w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y),
    2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x),
    2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z,
  ];
  const rotate = (p: number[]): number[] => [0, 1, 2].map((i) => R[3 * i] * p[0] + R[3 * i + 1] * p[1] + R[3 * i + 2] * p[2]);
  let num = 0, den = 0;
  for (let k = 0; k < n; k++) {
    const ra = rotate(a[k]);
    num += ra[0] * b[k][0] + ra[1] * b[k][1] + ra[2] * b[k][2];
    den += a[k][0] ** 2 + a[k][1] ** 2 + a[k][2] ** 2;
  }
  const scale = num / den;
  const rma = rotate(ma);
  return { scale, R, t: [0, 1, 2].map((k) => mb[k] - scale * rma[k]) };
}

export interface CameraErrors {
  /** Largest camera-centre error after alignment, in scene units. */
  maxCenterError: number;
  /** Largest rotation error after alignment, degrees. */
  maxRotationDeg: number;
}

/** Aligns the estimate's camera centres to the truth's and measures pose errors. */
export function cameraErrors(estimate: BAProblem, truth: BAProblem): CameraErrors {
  const est: number[][] = [], tru: number[][] = [];
  for (let c = 0; c < truth.cameraCount; c++) {
    est.push(centerOf(estimate, c));
    tru.push(centerOf(truth, c));
  }
  const sim = alignSimilarity(est, tru);
  let maxCenterError = 0, maxRotationDeg = 0;
  for (let c = 0; c < truth.cameraCount; c++) {
    const p = est[c];
    const mapped = [0, 1, 2].map((i) => sim.scale * (sim.R[3 * i] * p[0] + sim.R[3 * i + 1] * p[1] + sim.R[3 * i + 2] * p[2]) + sim.t[i]);
    maxCenterError = Math.max(maxCenterError, Math.hypot(mapped[0] - tru[c][0], mapped[1] - tru[c][1], mapped[2] - tru[c][2]));
    // camFromTrueWorld = R_est·R_simᵀ; compare with R_true: angle of R_true·(R_est·R_simᵀ)ᵀ = R_true·R_sim·R_estᵀ.
    const Re = rotationOf(estimate, c), Rt = rotationOf(truth, c);
    let trace = 0;
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 3; j++) {
        // (R_true·R_sim)[i][j] · R_est[i][j] summed = trace(R_true·R_sim·R_estᵀ).
        let m = 0;
        for (let k = 0; k < 3; k++) m += Rt[3 * i + k] * sim.R[3 * k + j];
        trace += m * Re[3 * i + j];
      }
    }
    const angle = Math.acos(Math.min(1, Math.max(-1, (trace - 1) / 2)));
    maxRotationDeg = Math.max(maxRotationDeg, (angle * 180) / Math.PI);
  }
  return { maxCenterError, maxRotationDeg };
}
