/**
 * @module Position priors on camera centres (GPS, RTK): a residual (C − g)/σ per axis for each
 * camera with a prior, C = −Rᵀt its centre and g the measured position in the problem's frame.
 * With priors, the problem's gauge is fixed by the positions rather than by a held pose, and
 * the block can no longer bend where the photos alone do not stop it (a long strip or a
 * survey grid drifts with the keypoint noise; Triggs et al. 2000 §9 on gauge, and the GNSS
 * "camera position constraints" of aerial triangulation, e.g. Förstner & Wrobel,
 * "Photogrammetric Computer Vision", 2016, §15.4). Squared loss: outlying positions are left
 * out by whoever builds the problem (sfm/georeference.ts), not down-weighted here.
 *
 * Jacobian under the solver's update (R ← exp(δθ)·R, t ← t + δt, rotation.ts):
 *   C(δ) = −Rᵀ(I − [δθ]×)(t + δt) ≈ C − Rᵀ[t]×·δθ − Rᵀ·δt,
 * so ∂C/∂δθ = −Rᵀ[t]× and ∂C/∂δt = −Rᵀ.
 */
import type { Layout } from "./layout.js";
import type { BAProblem, CentrePrior, PriorFrame } from "./types.js";

const IDENTITY: PriorFrame = { R: Float64Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1), scale: 1, t: new Float64Array(3) };

/** Whether axis `a` of camera `c` carries a prior. */
function weighted(prior: CentrePrior, c: number, a: number): boolean {
  const s = prior.sigmas[3 * c + a];
  return s > 0 && Number.isFinite(s);
}

/** Centre −Rᵀt of camera c, mapped into the prior's frame, into out[0..3]. */
function centreOf(rotations: Float64Array, poses: Float64Array, c: number, frame: PriorFrame, out: Float64Array): void {
  const R = 9 * c;
  const t = 6 * c + 3;
  for (let a = 0; a < 3; a++) local[a] = -(rotations[R + a] * poses[t] + rotations[R + 3 + a] * poses[t + 1] + rotations[R + 6 + a] * poses[t + 2]);
  for (let a = 0; a < 3; a++) out[a] = frame.scale * (frame.R[3 * a] * local[0] + frame.R[3 * a + 1] * local[1] + frame.R[3 * a + 2] * local[2]) + frame.t[a];
}

const local = new Float64Array(3);
const centre = new Float64Array(3);
/** ∂C/∂(δθ, δt) in the problem's frame, 3×6. */
const jacobian = new Float64Array(18);

/** Σ of the squared whitened prior residuals at `poses` (rotations: their matrices, 9 per camera). */
export function priorSquares(problem: BAProblem, poses: Float64Array, rotations: Float64Array): number {
  const prior = problem.centrePrior;
  if (!prior) return 0;
  const frame = prior.frame ?? IDENTITY;
  let sum = 0;
  for (let c = 0; c < problem.cameraCount; c++) {
    centreOf(rotations, poses, c, frame, centre);
    for (let a = 0; a < 3; a++) {
      if (!weighted(prior, c, a)) continue;
      const r = (centre[a] - prior.positions[3 * c + a]) / prior.sigmas[3 * c + a];
      sum += r * r;
    }
  }
  return sum;
}

/** Per camera, the whitened residual (3) and its Jacobian over the 6 pose columns (3×6), kept for the predicted decrease. */
export interface PriorLinearization {
  res: Float64Array;
  jac: Float64Array;
}

export function allocatePriorLinearization(problem: BAProblem): PriorLinearization | null {
  return problem.centrePrior ? { res: new Float64Array(3 * problem.cameraCount), jac: new Float64Array(18 * problem.cameraCount) } : null;
}

/**
 * Adds the priors of the free poses to U's pose blocks (upper triangles: the caller mirrors)
 * and to the gradient; returns Σ of their squared whitened residuals (every camera's, free or held).
 */
export function accumulatePriors(problem: BAProblem, layout: Layout, rotations: Float64Array, upp: Float64Array, gR: Float64Array, lin: PriorLinearization): number {
  const prior = problem.centrePrior!;
  const frame = prior.frame ?? IDENTITY;
  const { poses } = problem;
  let sum = 0;
  lin.res.fill(0);
  lin.jac.fill(0);
  for (let c = 0; c < problem.cameraCount; c++) {
    centreOf(rotations, poses, c, frame, centre);
    const R = 9 * c;
    const t = 6 * c + 3;
    const [tx, ty, tz] = [poses[t], poses[t + 1], poses[t + 2]];
    // Row b of −Rᵀ is (−R[0][b], −R[1][b], −R[2][b]); of −Rᵀ[t]×, that row times
    // [t]× = [[0, −tz, ty], [tz, 0, −tx], [−ty, tx, 0]].
    for (let b = 0; b < 3; b++) {
      const m0 = -rotations[R + b], m1 = -rotations[R + 3 + b], m2 = -rotations[R + 6 + b];
      jacobian.set([m1 * tz - m2 * ty, -m0 * tz + m2 * tx, m0 * ty - m1 * tx, m0, m1, m2], 6 * b);
    }
    for (let a = 0; a < 3; a++) {
      if (!weighted(prior, c, a)) continue;
      const inv = 1 / prior.sigmas[3 * c + a];
      const r = (centre[a] - prior.positions[3 * c + a]) * inv;
      sum += r * r;
      lin.res[3 * c + a] = r;
      // Row a of (scale/σ_a)·R_frame·∂C/∂δ.
      const k = frame.scale * inv;
      for (let i = 0; i < 6; i++) {
        lin.jac[18 * c + 6 * a + i] = k * (frame.R[3 * a] * jacobian[i] + frame.R[3 * a + 1] * jacobian[6 + i] + frame.R[3 * a + 2] * jacobian[12 + i]);
      }
    }
    const pb = layout.poseBase[c];
    if (pb < 0) continue;
    for (let a = 0; a < 3; a++) {
      const r = lin.res[3 * c + a];
      if (!weighted(prior, c, a)) continue;
      const row = 18 * c + 6 * a;
      for (let i = 0; i < 6; i++) {
        const ji = lin.jac[row + i];
        gR[pb + i] += ji * r;
        for (let j = i; j < 6; j++) upp[36 * c + 6 * i + j] += ji * lin.jac[row + j];
      }
    }
  }
  return sum;
}

/** −(r·l) − ½‖l‖² summed over the priors of free poses, l = J·δ: their share of the linear model's predicted decrease. */
export function priorPredictedDecrease(problem: BAProblem, layout: Layout, lin: PriorLinearization, dR: Float64Array): number {
  let decrease = 0;
  for (let c = 0; c < problem.cameraCount; c++) {
    const pb = layout.poseBase[c];
    if (pb < 0) continue;
    for (let a = 0; a < 3; a++) {
      const row = 18 * c + 6 * a;
      let l = 0;
      for (let i = 0; i < 6; i++) l += lin.jac[row + i] * dR[pb + i];
      decrease -= lin.res[3 * c + a] * l + 0.5 * l * l;
    }
  }
  return decrease;
}
