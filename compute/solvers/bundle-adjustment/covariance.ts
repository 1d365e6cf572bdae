/**
 * @module Covariance of the camera centres at a bundle adjustment's solution (Triggs,
 * McLauchlan, Hartley & Fitzgibbon 2000, "Bundle Adjustment — A Modern Synthesis", §2.2 and
 * §9 on covariance and gauge; Förstner & Wrobel 2016, "Photogrammetric Computer Vision", §4.5
 * on free networks and §15.4 on the precision of a bundle block).
 *
 * At the solution the normal matrix N = JᵀWJ of the observations (and of the camera position
 * priors, when the problem has them) is the inverse covariance of the parameters up to the
 * variance factor σ₀² = Σ(weighted residual²) / redundancy, estimated a posteriori. The points
 * are eliminated as in the solver (schur.ts, Triggs §6.1): the inverse of the reduced camera
 * system S = U − W·V⁻¹·Wᵀ is exactly the camera block of N⁻¹, so the points' uncertainty is
 * accounted for without inverting their blocks. Robust losses enter by their final IRLS weights
 * ρ′ (the M-estimator's weights at convergence, Förstner & Wrobel §4.7).
 *
 * Gauge. The reprojections do not change under a similarity of the whole scene (7 DoF), so S
 * is singular unless something else holds the scene: position priors spread over a plane or
 * a volume (a georeferenced block), or held poses (one held pose leaves the scale free, as
 * sfm's global adjustment without GPS does). Which of the 7 similarity directions nothing
 * holds is decided structurally, from the priors' and held poses' own information along them
 * (no threshold on S, whose null directions carry the round-off of the elimination). The
 * free ones are fixed by inner constraints on the camera centres: the centroid, orientation
 * and size of the set of centres do not move (the minimum-trace datum of the centres,
 * Förstner & Wrobel §4.5.3): k well-chosen coordinates are held (minimal constraints), which
 * keeps S's band, and the S-transformation P = I − G·(HᵀG)⁻¹·Hᵀ, with G the free directions
 * and H = AᵀA·G, carries that covariance into the inner-constraints datum, Σ = P·Σ_held·Pᵀ;
 * A maps the pose perturbations to the centres' (C = −Rᵀt: ∂C = −Rᵀ[t]×·δθ − Rᵀ·δt). Such σ
 * are the block's inner precision: how well the photos fix each camera relative to the
 * others, not how well the block sits on Earth.
 *
 * Cost: the camera blocks of S⁻¹ come from S's Cholesky factor by selected inversion
 * (math/selected-inverse.ts), about the factorisation's own cost, so the covariance is
 * computed wherever the solver would factor S densely (the same size and band limits, and
 * memory, 8 bytes per entry of S). Beyond them each camera's own 6×6 block of S is
 * inverted instead, which is the camera's covariance with every other camera and the
 * intrinsics held, an optimistic bound, and the result says so.
 *
 * CONTRIBUTOR NOTES
 * - First written with the bordering identity Σ = (S + H·Hᵀ)⁻¹ − G·(HᵀG)⁻¹·(GᵀH)⁻¹·Gᵀ and
 *   the whole inverse: H·Hᵀ is dense, so S lost its band, and 300 cameras (synthetic ring,
 *   100 points each, 2 shared cores) took 7.5 s. Held coordinates, selected inversion and the
 *   S-transformation give the same σ (to 3e−9 relative at 150 cameras) in 0.7–1.3 s at 300
 *   and 1.9 s at 600 (a ring: banded, so above 400 cameras it stays on the dense route).
 * - The Monte Carlo test (covariance.test.ts) agrees within 20 % per camera, both with the gauge
 *   held by GPS priors and with inner constraints (the solved centres brought onto the true ones
 *   by a least-squares similarity, which is that datum to first order).
 */
import { symmetricEigen } from "../../math/decompositions.js";
import { matMul, transpose } from "../../math/linalg.js";
import { selectedInverseUpper } from "../../math/selected-inverse.js";
import { choleskySolveUpper, choleskySolveUpperAt, choleskyUpper, choleskyUpperAt } from "./dense-cholesky.js";
import { buildLayout, type Layout } from "./layout.js";
import { allocateNormal, computeRotations, linearize } from "./linearize.js";
import { lossWeight, type LossName } from "./loss.js";
import { projectResidual } from "./projection.js";
import { allocateSchur, formDenseReduced, formReducedDiagonal } from "./schur.js";
import type { BAProblem, Options } from "./types.js";

export interface CovarianceOptions {
  /** The intrinsics the solve refined (they are unknowns of the covariance too); BA's DEFAULTS: focal and k1, k2. */
  refineFocal: boolean;
  refineDistortion: boolean;
  refinePrincipalPoint: boolean;
  /** The solve's robust loss and its scale in pixels, for the final weights ρ′. */
  loss: LossName;
  lossScalePx: number;
  /**
   * S is factored densely up to this many free poses, or above it while its banded order keeps
   * the factor within `bandedDenseMaxCost` multiply-adds and S within `bandedDenseMaxSize`
   * (the solver's own limits, bundle-adjustment/index.ts DEFAULTS); beyond, each camera's own
   * block of S is inverted.
   */
  denseMaxCameras: number;
  bandedDenseMaxCost: number;
  bandedDenseMaxSize: number;
}

export const COVARIANCE_DEFAULTS: CovarianceOptions = {
  refineFocal: true,
  refineDistortion: true,
  refinePrincipalPoint: false,
  loss: "cauchy",
  lossScalePx: 1,
  denseMaxCameras: 400,
  bandedDenseMaxCost: 2e9,
  bandedDenseMaxSize: 7200,
};

/** What holds the gauge: priors or held poses alone, or inner constraints on the centres for the directions nothing holds. */
export type GaugeKind = "priors" | "held-poses" | "inner-constraints";

export interface CentreCovariances {
  /** 9 per camera, row-major 3×3, in the problem's frame and units squared; 0 for a held pose, NaN for a camera without observations or when `failed`. */
  covariances: Float64Array;
  /** A-posteriori standard deviation of unit weight (pixels for observations of σ 1). */
  sigma0: number;
  /** Observations (2 per image measurement, 1 per prior axis) minus the rank of N. */
  redundancy: number;
  gauge: GaugeKind;
  /** Similarity directions (of 7) that nothing but the inner constraints holds. */
  freeGaugeDirections: number;
  /** "dense": the camera blocks of S⁻¹; "camera-blocks": each camera's own block inverted (optimistic). */
  inverse: "dense" | "camera-blocks";
  warnings: string[];
  /** Why no covariance could be formed (the covariances are then NaN). */
  failed?: string;
}

/** Eigenvalues of the gauge test below this fraction of the largest count as free directions. */
const FREE_DIRECTION_RATIO = 1e-9;

/** The problem with each observation's σ divided by √ρ′ at the solution: the squared loss of it has the robust solve's final weights. */
function withFinalWeights(problem: BAProblem, options: CovarianceOptions): BAProblem {
  const rotations = new Float64Array(9 * problem.cameraCount);
  computeRotations(problem.cameraCount, problem.poses, rotations);
  // A point seen once has a singular 3×3 block and fixes nothing: held, and its observation
  // weighs nothing (σ = ∞) and counts for no redundancy.
  const seen = new Uint32Array(problem.pointCount);
  for (let o = 0; o < problem.observationCount; o++) seen[problem.obsPoint[o]]++;
  const fixedPoint = Uint8Array.from(seen, (n, p) => (n < 2 || problem.fixedPoint?.[p] === 1 ? 1 : 0));
  const residual = new Float64Array(2);
  const sigmas = new Float64Array(problem.observationCount);
  for (let o = 0; o < problem.observationCount; o++) {
    if (seen[problem.obsPoint[o]] < 2) {
      sigmas[o] = Infinity;
      continue;
    }
    const c = problem.obsCamera[o];
    const squared = projectResidual(rotations, 9 * c, problem.poses, 6 * c, problem.points, 3 * problem.obsPoint[o],
      problem.intrinsics, 5 * problem.intrinsicsGroup[c], problem.obsXY, 2 * o, residual, 0);
    const sigma = problem.obsSigma ? problem.obsSigma[o] : 1;
    sigmas[o] = sigma / Math.sqrt(lossWeight(options.loss, squared / (sigma * sigma), options.lossScalePx));
  }
  return { ...problem, obsSigma: sigmas, fixedPoint };
}

/** Per camera its rotation (9), translation (3) and centre (3), and the centres' centroid and RMS radius. */
interface CameraGeometry {
  rotations: Float64Array;
  centres: Float64Array;
  centroid: Float64Array;
  radius: number;
}

function cameraGeometry(problem: BAProblem, layout: Layout): CameraGeometry {
  const rotations = new Float64Array(9 * problem.cameraCount);
  computeRotations(problem.cameraCount, problem.poses, rotations);
  const centres = new Float64Array(3 * problem.cameraCount);
  const centroid = new Float64Array(3);
  let counted = 0;
  for (let c = 0; c < problem.cameraCount; c++) {
    const t = problem.poses.subarray(6 * c + 3, 6 * c + 6);
    for (let a = 0; a < 3; a++) centres[3 * c + a] = -(rotations[9 * c + a] * t[0] + rotations[9 * c + 3 + a] * t[1] + rotations[9 * c + 6 + a] * t[2]);
    if (layout.poseBase[c] < 0 && problem.fixedPose?.[c] !== 1) continue;
    for (let a = 0; a < 3; a++) centroid[a] += centres[3 * c + a];
    counted++;
  }
  for (let a = 0; a < 3; a++) centroid[a] /= Math.max(1, counted);
  let squares = 0;
  for (let c = 0; c < problem.cameraCount; c++) {
    if (layout.poseBase[c] < 0 && problem.fixedPose?.[c] !== 1) continue;
    squares += (centres[3 * c] - centroid[0]) ** 2 + (centres[3 * c + 1] - centroid[1]) ** 2 + (centres[3 * c + 2] - centroid[2]) ** 2;
  }
  return { rotations, centres, centroid, radius: Math.sqrt(squares / Math.max(1, counted)) || 1 };
}

/**
 * The pose perturbation (δθ, δt) of camera c under each of the 7 infinitesimal similarities of
 * the world, into out (6×7, row-major): translation by e_j, rotation by e_j/ρ about the
 * centroid, scaling by 1/ρ about it (ρ the centres' RMS radius, so each moves the centres by
 * about one unit). With X' = X + ω×(X − C̄) + λ(X − C̄) + d, the camera x = R·X + t keeps its
 * projections with δθ = −R·ω, δt = R·(ω×C̄) + λ·(t + R·C̄) − R·d.
 */
function similarityMotion(problem: BAProblem, geometry: CameraGeometry, c: number, out: Float64Array): void {
  out.fill(0);
  const R = geometry.rotations.subarray(9 * c, 9 * c + 9);
  const t = problem.poses.subarray(6 * c + 3, 6 * c + 6);
  const [gx, gy, gz] = geometry.centroid;
  const rho = geometry.radius;
  for (let j = 0; j < 3; j++) {
    for (let i = 0; i < 3; i++) out[7 * (3 + i) + j] = -R[3 * i + j];
    // ω = e_j/ρ: δθ = −R·ω (column j of R), δt = R·(ω × C̄).
    const cross = j === 0 ? [0, -gz, gy] : j === 1 ? [gz, 0, -gx] : [-gy, gx, 0];
    for (let i = 0; i < 3; i++) {
      out[7 * i + 3 + j] = -R[3 * i + j] / rho;
      out[7 * (3 + i) + 3 + j] = (R[3 * i] * cross[0] + R[3 * i + 1] * cross[1] + R[3 * i + 2] * cross[2]) / rho;
    }
  }
  for (let i = 0; i < 3; i++) out[7 * (3 + i) + 6] = (t[i] + R[3 * i] * gx + R[3 * i + 1] * gy + R[3 * i + 2] * gz) / rho;
}

/** ∂C/∂(δθ, δt) = [−Rᵀ[t]×, −Rᵀ] of camera c, 3×6 row-major (as centre-prior.ts). */
function centreJacobian(problem: BAProblem, geometry: CameraGeometry, c: number, out: Float64Array): void {
  const R = geometry.rotations.subarray(9 * c, 9 * c + 9);
  const [tx, ty, tz] = problem.poses.subarray(6 * c + 3, 6 * c + 6);
  for (let b = 0; b < 3; b++) {
    const m0 = -R[b], m1 = -R[3 + b], m2 = -R[6 + b];
    out.set([m1 * tz - m2 * ty, -m0 * tz + m2 * tx, m0 * ty - m1 * tx, m0, m1, m2], 6 * b);
  }
}

/** Adds scale·aᵀa (a: r×n) into the n×n `into`. */
function addGram(a: Float64Array, r: number, n: number, scale: number, into: Float64Array): void {
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) for (let k = 0; k < r; k++) into[i * n + j] += scale * a[k * n + i] * a[k * n + j];
}

/**
 * The similarity directions (7×k, columns) that neither the priors nor the held poses hold,
 * found as the null space of their information along the 7 directions, measured against the
 * centres' motion (so the test does not depend on the units).
 */
function freeDirections(problem: BAProblem, layout: Layout, geometry: CameraGeometry): { basis: Float64Array; count: number; weakest: number } {
  const motion = new Float64Array(42);
  const jac = new Float64Array(18);
  const centreMotion = new Float64Array(21);
  const onCentres = new Float64Array(49);
  const byPriors = new Float64Array(49);
  const byHeld = new Float64Array(49);
  const prior = problem.centrePrior;
  for (let c = 0; c < problem.cameraCount; c++) {
    const held = problem.fixedPose?.[c] === 1;
    if (layout.poseBase[c] < 0 && !held) continue;
    similarityMotion(problem, geometry, c, motion);
    centreJacobian(problem, geometry, c, jac);
    matMul(jac, motion, 3, 6, 7, centreMotion);
    addGram(centreMotion, 3, 7, 1, onCentres);
    if (held) {
      // Its rotation (times ρ, to be a length) and its centre may not move.
      addGram(motion.subarray(0, 21), 3, 7, geometry.radius ** 2, byHeld);
      addGram(centreMotion, 3, 7, 1, byHeld);
    }
    if (!prior) continue;
    const frame = prior.frame;
    const inFrame = frame ? matMul(frame.R, centreMotion, 3, 3, 7, new Float64Array(21)) : centreMotion;
    for (let a = 0; a < 3; a++) {
      const sigma = prior.sigmas[3 * c + a];
      if (!(sigma > 0) || !Number.isFinite(sigma)) continue;
      addGram(inFrame.subarray(7 * a, 7 * a + 7), 1, 7, ((frame?.scale ?? 1) / sigma) ** 2, byPriors);
    }
  }
  const largest = (m: Float64Array) => Math.max(...symmetricEigen(m, 7).values, 0);
  const fixing = new Float64Array(49);
  for (const m of [byPriors, byHeld]) {
    const strongest = largest(m);
    if (strongest > 0) for (let i = 0; i < 49; i++) fixing[i] += m[i] / strongest;
  }
  // Whiten by the centres' motion: W = U·diag(1/√d), then the eigenvectors of Wᵀ·fixing·W.
  const base = symmetricEigen(onCentres, 7);
  const top = base.values[6];
  const whiten = new Float64Array(49);
  for (let j = 0; j < 7; j++) {
    const d = base.values[j];
    if (!(d > 1e-12 * top)) continue;
    for (let i = 0; i < 7; i++) whiten[7 * i + j] = base.vectors[7 * i + j] / Math.sqrt(d);
  }
  const inner = matMul(transpose(whiten, 7, 7), matMul(fixing, whiten, 7, 7, 7), 7, 7, 7);
  const eig = symmetricEigen(inner, 7);
  const maxValue = Math.max(eig.values[6], 0);
  const columns: number[][] = [];
  let weakest = Infinity;
  for (let j = 0; j < 7; j++) {
    const column = Array.from({ length: 7 }, (_, i) => eig.vectors[7 * i + j]);
    if (column.every((v) => v === 0)) continue;
    const free = maxValue === 0 || eig.values[j] <= FREE_DIRECTION_RATIO * maxValue;
    const v = matMul(whiten, column, 7, 7, 1, new Float64Array(7));
    if (v.every((x) => Math.abs(x) < 1e-300)) continue;
    if (free) columns.push(Array.from(v));
    else weakest = Math.min(weakest, eig.values[j] / maxValue);
  }
  const basis = new Float64Array(7 * columns.length);
  columns.forEach((col, m) => col.forEach((x, i) => (basis[columns.length * i + m] = x)));
  return { basis, count: columns.length, weakest };
}

/** Σ_C = A·P·Aᵀ for a 6×6 pose covariance P and the centre Jacobian A (3×6), times σ₀², into out[9c..]. */
function centreFromPose(jac: Float64Array, pose: Float64Array, factor: number, out: Float64Array, c: number): void {
  const ap = matMul(jac, pose, 3, 6, 6, new Float64Array(18));
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      let sum = 0;
      for (let k = 0; k < 6; k++) sum += ap[6 * i + k] * jac[6 * j + k];
      out[9 * c + 3 * i + j] = factor * sum;
    }
  }
}

/**
 * The covariance of each camera centre of a solved problem, in the problem's frame. `problem`
 * is read, not changed; pass the options the solve used.
 */
export function centreCovariances(problem: BAProblem, options: Partial<CovarianceOptions> = {}): CentreCovariances {
  const settings: CovarianceOptions = { ...COVARIANCE_DEFAULTS, ...options };
  const weighted = withFinalWeights(problem, settings);
  // buildLayout reads only the refine flags.
  const layout = buildLayout(weighted, settings as unknown as Options);
  const normal = allocateNormal(weighted, layout);
  const cost = linearize(weighted, layout, normal, "squared", 1);
  const geometry = cameraGeometry(weighted, layout);
  const gauge = freeDirections(weighted, layout, geometry);
  let measurements = 0;
  for (let o = 0; o < weighted.observationCount; o++) if (Number.isFinite(weighted.obsSigma![o])) measurements += 2;
  const prior = weighted.centrePrior;
  for (let c = 0; prior && c < weighted.cameraCount; c++) {
    for (let a = 0; a < 3; a++) if (layout.poseBase[c] >= 0 && prior.sigmas[3 * c + a] > 0 && Number.isFinite(prior.sigmas[3 * c + a])) measurements++;
  }
  const redundancy = measurements - (layout.reducedSize + 3 * layout.freePointCount - gauge.count);
  const warnings: string[] = [];
  let variance = (2 * cost.cost) / redundancy;
  if (!(redundancy > 0) || !Number.isFinite(variance)) {
    warnings.push("covariance: no redundancy, σ₀ taken as 1");
    variance = 1;
  }
  const kind: GaugeKind = gauge.count > 0 ? "inner-constraints" : weighted.fixedPose?.some((f) => f === 1) ? "held-poses" : "priors";
  if (gauge.count === 0 && gauge.weakest < 1e-6) warnings.push(`covariance: the ${kind} hold the gauge only weakly (relative strength ${gauge.weakest.toExponential(1)})`);
  const covariances = new Float64Array(9 * weighted.cameraCount).fill(NaN);
  for (let c = 0; c < weighted.cameraCount; c++) if (weighted.fixedPose?.[c] === 1) covariances.fill(0, 9 * c, 9 * c + 9);
  const result = (inverse: CentreCovariances["inverse"], failed?: string): CentreCovariances => ({
    covariances, sigma0: Math.sqrt(variance), redundancy, gauge: kind, freeGaugeDirections: gauge.count, inverse, warnings,
    ...(failed ? { failed } : {}),
  });
  const schur = allocateSchur(weighted, layout);
  const n = layout.reducedSize;
  const banded = layout.denseCost <= settings.bandedDenseMaxCost && n <= settings.bandedDenseMaxSize;
  if (layout.freePoseCount > settings.denseMaxCameras && !banded) {
    warnings.push(`covariance: ${layout.freePoseCount} cameras are too many for the reduced system's factor: each camera's own block is inverted, with the other cameras and the intrinsics held (optimistic σ)`);
    return blockInverse(weighted, layout, normal, schur, geometry, variance, covariances, result);
  }
  const S = new Float64Array(n * n);
  if (!formDenseReduced(weighted, layout, normal, schur, 0, S, new Float64Array(n))) return result("dense", "a point's normal block is singular");
  const k = gauge.count;
  // G (n×k): the free similarity directions in the reduced pose coordinates; H = AᵀA·G.
  const G = new Float64Array(n * k);
  const H = new Float64Array(n * k);
  const K = new Float64Array(k * k);
  const motion = new Float64Array(42);
  const jac = new Float64Array(18);
  for (let c = 0; c < weighted.cameraCount && k > 0; c++) {
    const pb = layout.poseBase[c];
    if (pb < 0) continue;
    similarityMotion(weighted, geometry, c, motion);
    centreJacobian(weighted, geometry, c, jac);
    const g = matMul(motion, gauge.basis, 6, 7, k, new Float64Array(6 * k));
    const ag = matMul(jac, g, 3, 6, k, new Float64Array(3 * k));
    addGram(ag, 3, k, 1, K);
    G.set(g, pb * k);
    for (let i = 0; i < 6; i++) for (let m = 0; m < k; m++) for (let a = 0; a < 3; a++) H[(pb + i) * k + m] += jac[6 * a + i] * ag[a * k + m];
  }
  // Minimal constraints first: k coordinates held, which keeps S's band (an inner-constraint
  // term H·Hᵀ would fill it), then the S-transformation P = I − G·K⁻¹·Hᵀ (K = HᵀG) carries the
  // covariance into the inner-constraints datum: Σ = P·Σ_held·Pᵀ (Förstner & Wrobel §4.5.3).
  const held = heldCoordinates(G, n, k);
  for (const h of held) {
    for (let j = h; j < n; j++) S[h * n + j] = 0;
    for (let i = 0; i < h; i++) S[i * n + h] = 0;
    S[h * n + h] = 1;
  }
  if (!choleskyUpper(S, n, new Int32Array(n))) return result("dense", "the reduced camera system is singular: the photos leave some camera undetermined");
  // Y = Σ_held·H, column by column with the factor; a held coordinate's row is zero in Σ_held.
  const Y = new Float64Array(n * k);
  const column = new Float64Array(n);
  for (let m = 0; m < k; m++) {
    for (let i = 0; i < n; i++) column[i] = H[i * k + m];
    choleskySolveUpper(S, n, column);
    for (const h of held) column[h] = 0;
    for (let i = 0; i < n; i++) Y[i * k + m] = column[i];
  }
  const T = new Float64Array(k * k);
  for (let p = 0; p < k; p++) for (let q = 0; q < k; q++) for (let i = 0; i < n; i++) T[p * k + q] += H[i * k + p] * Y[i * k + q];
  const kInverse = k > 0 ? invertSymmetric(K, k) : new Float64Array(0);
  selectedInverseUpper(S, n, layout.blockBase, layout.blockSize);
  for (const h of held) S[h * n + h] = 0;
  const pose = new Float64Array(36);
  // Per camera: G_c·K⁻¹ (6×k) and Y_c·K⁻¹ (6×k), K symmetric.
  const gk = new Float64Array(6 * k);
  const yk = new Float64Array(6 * k);
  for (let c = 0; c < weighted.cameraCount; c++) {
    const pb = layout.poseBase[c];
    if (pb < 0) continue;
    if (k > 0) {
      matMul(G.subarray(pb * k, (pb + 6) * k), kInverse, 6, k, k, gk);
      matMul(Y.subarray(pb * k, (pb + 6) * k), kInverse, 6, k, k, yk);
    }
    for (let i = 0; i < 6; i++) {
      for (let j = i; j < 6; j++) {
        let sum = S[(pb + i) * n + pb + j];
        for (let p = 0; p < k; p++) {
          // − G_c·K⁻¹·Y_cᵀ − Y_c·K⁻¹·G_cᵀ + G_c·K⁻¹·T·K⁻¹·G_cᵀ
          sum -= gk[i * k + p] * Y[(pb + j) * k + p] + yk[i * k + p] * G[(pb + j) * k + p];
          for (let q = 0; q < k; q++) sum += gk[i * k + p] * T[p * k + q] * gk[j * k + q];
        }
        pose[6 * i + j] = sum;
        pose[6 * j + i] = sum;
      }
    }
    centreJacobian(weighted, geometry, c, jac);
    centreFromPose(jac, pose, variance, covariances, c);
  }
  return result("dense");
}

/**
 * k reduced coordinates to hold, so that no free direction survives: rows of G (n×k) whose k×k
 * submatrix is regular, picked by Gaussian elimination with the largest pivot of each column.
 */
function heldCoordinates(G: Float64Array, n: number, k: number): number[] {
  const work = G.slice();
  const held: number[] = [];
  for (let m = 0; m < k; m++) {
    let best = -1;
    for (let i = 0; i < n; i++) if (!held.includes(i) && (best < 0 || Math.abs(work[i * k + m]) > Math.abs(work[best * k + m]))) best = i;
    held.push(best);
    const pivot = work[best * k + m];
    for (let i = 0; i < n; i++) {
      if (i === best) continue;
      const f = work[i * k + m] / pivot;
      if (f !== 0) for (let q = m; q < k; q++) work[i * k + q] -= f * work[best * k + q];
    }
  }
  return held;
}

/** Inverse of a small symmetric positive definite k×k matrix by eigen-decomposition. */
function invertSymmetric(m: Float64Array, k: number): Float64Array {
  const { values, vectors } = symmetricEigen(m, k);
  const out = new Float64Array(k * k);
  for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) for (let e = 0; e < k; e++) out[i * k + j] += (vectors[i * k + e] * vectors[j * k + e]) / values[e];
  return out;
}

function blockInverse(problem: BAProblem, layout: Layout, normal: ReturnType<typeof allocateNormal>, schur: ReturnType<typeof allocateSchur>, geometry: CameraGeometry,
  variance: number, covariances: Float64Array, result: (inverse: CentreCovariances["inverse"], failed?: string) => CentreCovariances): CentreCovariances {
  const blocks = new Float64Array(36 * layout.blockBase.length);
  if (!formReducedDiagonal(problem, layout, normal, schur, 0, blocks, new Float64Array(layout.reducedSize))) return result("camera-blocks", "a point's normal block is singular");
  const jac = new Float64Array(18);
  const pose = new Float64Array(36);
  for (let c = 0; c < problem.cameraCount; c++) {
    const pb = layout.poseBase[c];
    if (pb < 0) continue;
    const o = 36 * layout.blockAt[pb];
    // Upper triangle only was formed; mirror before factoring in place.
    for (let i = 1; i < 6; i++) for (let j = 0; j < i; j++) blocks[o + 6 * i + j] = blocks[o + 6 * j + i];
    if (!choleskyUpperAt(blocks, o, 6)) continue;
    pose.fill(0);
    for (let j = 0; j < 6; j++) pose[7 * j] = 1;
    for (let j = 0; j < 6; j++) choleskySolveUpperAt(blocks, o, 6, pose, 6 * j);
    centreJacobian(problem, geometry, c, jac);
    centreFromPose(jac, pose, variance, covariances, c);
  }
  return result("camera-blocks");
}
