/**
 * @module Minimal absolute pose from three bearing–point pairs, after Lambda Twist (Persson &
 * Nordberg, ECCV 2018): the unknown depths λ satisfy three quadrics
 *   λᵢ² + λⱼ² + bᵢⱼ·λᵢ·λⱼ = aᵢⱼ   (bᵢⱼ = −2·yᵢ·yⱼ, aᵢⱼ = |xᵢ − xⱼ|²);
 * a degenerate member D₀ = D₁ + γ·D₂ of the pencil of two of their combinations (γ a root of
 * the cubic det(D₁ + γ·D₂)) factors into two planes through the origin, so each solution lies
 * on a plane p·λ = 0, where one more quadric gives at most two λ. The depths are polished by
 * Gauss–Newton on the three equations and the pose follows from the three camera-frame points.
 *
 * CONTRIBUTOR NOTES: the paper solves within each plane with a fixed elimination of λ₁;
 * here the plane is parameterised by an orthonormal basis, which avoids dividing by a possibly
 * tiny coefficient and keeps the code short, at the price of a 2 × 2 eigen-problem.
 */
import { cross3, mat3PencilDeterminant, solveLinear, symmetricEigen } from "../math/linalg.js";
import { realRoots } from "../math/polynomial.js";
import { orthonormalize } from "./rotation.js";
import type { RigidTransform } from "./types.js";

const POLISH_STEPS = 5;

interface P3pProblem {
  y: Float64Array[]; // unit bearings
  x: Float64Array[]; // world points
  b12: number;
  b13: number;
  b23: number;
  a12: number;
  a13: number;
  a23: number;
}

function setUp(bearings: ArrayLike<number>, worldPoints: ArrayLike<number>): P3pProblem {
  const y = [0, 1, 2].map((i) => {
    const v = Float64Array.from([bearings[3 * i], bearings[3 * i + 1], bearings[3 * i + 2]]);
    const n = Math.hypot(v[0], v[1], v[2]);
    return v.map((c) => c / n);
  });
  const x = [0, 1, 2].map((i) => Float64Array.from([worldPoints[3 * i], worldPoints[3 * i + 1], worldPoints[3 * i + 2]]));
  const dot = (a: Float64Array, b: Float64Array): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  const distSq = (a: Float64Array, b: Float64Array): number => (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2;
  return {
    y, x,
    b12: -2 * dot(y[0], y[1]), b13: -2 * dot(y[0], y[2]), b23: -2 * dot(y[1], y[2]),
    a12: distSq(x[0], x[1]), a13: distSq(x[0], x[2]), a23: distSq(x[1], x[2]),
  };
}

/** The quadric matrices M₁₂, M₁₃, M₂₃ with λᵀ·Mᵢⱼ·λ = λᵢ² + λⱼ² + bᵢⱼ·λᵢ·λⱼ. */
function quadrics(p: P3pProblem): [Float64Array, Float64Array, Float64Array] {
  return [
    Float64Array.from([1, p.b12 / 2, 0, p.b12 / 2, 1, 0, 0, 0, 0]),
    Float64Array.from([1, 0, p.b13 / 2, 0, 0, 0, p.b13 / 2, 0, 1]),
    Float64Array.from([0, 0, 0, 0, 1, p.b23 / 2, 0, p.b23 / 2, 1]),
  ];
}

function quadForm(M: Float64Array, u: ArrayLike<number>, v: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) sum += u[i] * M[i * 3 + j] * v[j];
  return sum;
}

/** Candidate depth triples (positive) from the planes of the degenerate conic. */
function candidateDepths(p: P3pProblem): Float64Array[] {
  const [M12, M13, M23] = quadrics(p);
  const D1 = M12.map((v, k) => p.a23 * v - p.a12 * M23[k]);
  const D2 = M13.map((v, k) => p.a23 * v - p.a13 * M23[k]);
  const N = M12.map((v, k) => p.a13 * v - p.a12 * M13[k]); // λᵀNλ = 0 ⇔ f₁₂/a₁₂ = f₁₃/a₁₃
  const solutions: Float64Array[] = [];
  for (const gamma of realRoots(mat3PencilDeterminant(D1, D2))) {
    const D0 = D1.map((v, k) => v + gamma * D2[k]);
    const { values, vectors } = symmetricEigen(D0, 3);
    // The null eigenvalue is the one of smallest magnitude; the other two must differ in sign.
    const order = [0, 1, 2].sort((i, j) => Math.abs(values[i]) - Math.abs(values[j]));
    const sa = values[order[1]], sb = values[order[2]];
    if (sa * sb >= 0) continue;
    const ea = [0, 1, 2].map((r) => vectors[r * 3 + order[1]]);
    const eb = [0, 1, 2].map((r) => vectors[r * 3 + order[2]]);
    const s = Math.sqrt(-sa / sb); // σa(ea·λ)² + σb(eb·λ)² = 0 ⇔ eb·λ = ±s·(ea·λ)
    for (const sign of [1, -1]) {
      const normal = Float64Array.from([0, 1, 2], (r) => eb[r] - sign * s * ea[r]);
      for (const lambda of depthsOnPlane(normal, N, M12, p.a12)) solutions.push(polishDepths(p, lambda));
    }
    if (solutions.length > 0) break; // every true solution lies on this root's planes
  }
  return solutions.filter((l) => l[0] > 0 && l[1] > 0 && l[2] > 0);
}

/** λ on the plane normal·λ = 0 with λᵀNλ = 0 and λᵀM₁₂λ = a₁₂. */
function depthsOnPlane(normal: Float64Array, N: Float64Array, M12: Float64Array, a12: number): Float64Array[] {
  const helper = Math.abs(normal[0]) < 0.6 ? [1, 0, 0] : [0, 1, 0];
  const u = cross3(normal, helper);
  const un = Math.hypot(u[0], u[1], u[2]);
  if (un === 0) return [];
  u.forEach((v, k) => (u[k] = v / un));
  const w = cross3(normal, u);
  const wn = Math.hypot(w[0], w[1], w[2]);
  w.forEach((v, k) => (w[k] = v / wn));
  const q11 = quadForm(N, u, u), q12 = quadForm(N, u, w), q22 = quadForm(N, w, w);
  const disc = q12 * q12 - q11 * q22;
  if (disc < 0) return [];
  const root = Math.sqrt(disc);
  const pairs: Array<[number, number]> = Math.abs(q11) >= Math.abs(q22)
    ? [[(-q12 + root) / q11, 1], [(-q12 - root) / q11, 1]]
    : [[1, (-q12 + root) / q22], [1, (-q12 - root) / q22]];
  const out: Float64Array[] = [];
  for (const [alpha, beta] of pairs) {
    if (!Number.isFinite(alpha) || !Number.isFinite(beta)) continue;
    const lambda = Float64Array.from([0, 1, 2], (k) => alpha * u[k] + beta * w[k]);
    const f12 = quadForm(M12, lambda, lambda);
    if (!(f12 > 0)) continue;
    const scale = Math.sqrt(a12 / f12) * (lambda[0] + lambda[1] + lambda[2] < 0 ? -1 : 1);
    out.push(lambda.map((v) => v * scale));
  }
  return out;
}

function depthResiduals(p: P3pProblem, l: Float64Array): Float64Array {
  return Float64Array.from([
    l[0] * l[0] + l[1] * l[1] + p.b12 * l[0] * l[1] - p.a12,
    l[0] * l[0] + l[2] * l[2] + p.b13 * l[0] * l[2] - p.a13,
    l[1] * l[1] + l[2] * l[2] + p.b23 * l[1] * l[2] - p.a23,
  ]);
}

/** Gauss–Newton on the three quadrics, keeping each step only if it lowers the residual. */
function polishDepths(p: P3pProblem, start: Float64Array): Float64Array {
  let l = start;
  let r = depthResiduals(p, l);
  let cost = Math.hypot(r[0], r[1], r[2]);
  for (let step = 0; step < POLISH_STEPS && cost > 0; step++) {
    const J = [
      2 * l[0] + p.b12 * l[1], 2 * l[1] + p.b12 * l[0], 0,
      2 * l[0] + p.b13 * l[2], 0, 2 * l[2] + p.b13 * l[0],
      0, 2 * l[1] + p.b23 * l[2], 2 * l[2] + p.b23 * l[1],
    ];
    const delta = solveLinear(J, r, 3);
    if (!delta) break;
    const next = l.map((v, k) => v - delta[k]);
    const nextR = depthResiduals(p, next);
    const nextCost = Math.hypot(nextR[0], nextR[1], nextR[2]);
    if (!(nextCost < cost)) break;
    l = next;
    r = nextR;
    cost = nextCost;
  }
  return l;
}

/** camFromWorld mapping the three world points onto the camera-frame points λᵢ·yᵢ. */
function poseFromDepths(p: P3pProblem, lambda: Float64Array): RigidTransform {
  const P = p.y.map((y, i) => y.map((v) => v * lambda[i]));
  const cols = (a: Float64Array[]): Float64Array[] => {
    const d1 = a[0].map((v, k) => v - a[1][k]);
    const d2 = a[0].map((v, k) => v - a[2][k]);
    return [d1, d2, cross3(d1, d2)];
  };
  const Y = cols(P);
  const X = cols(p.x);
  // R = Y·X⁻¹ with the difference vectors as columns; solve Xᵀ·Rᵀ = Yᵀ row by row.
  const Xt = [X[0][0], X[0][1], X[0][2], X[1][0], X[1][1], X[1][2], X[2][0], X[2][1], X[2][2]];
  const R = new Float64Array(9);
  for (let row = 0; row < 3; row++) {
    const rRow = solveLinear(Xt, [Y[0][row], Y[1][row], Y[2][row]], 3);
    if (!rRow) return { R: new Float64Array(9).fill(NaN), t: new Float64Array(3).fill(NaN) };
    R.set(rRow, row * 3);
  }
  const Rot = orthonormalize(R);
  const t = new Float64Array(3);
  for (let k = 0; k < 3; k++) {
    for (let i = 0; i < 3; i++) t[k] += (P[i][k] - (Rot[k * 3] * p.x[i][0] + Rot[k * 3 + 1] * p.x[i][1] + Rot[k * 3 + 2] * p.x[i][2])) / 3;
  }
  return { R: Rot, t };
}

/**
 * All camFromWorld poses (up to 4) with R·xᵢ + t ∝ yᵢ, λᵢ > 0, for three unit bearing vectors
 * (camera frame, 3·3 values) and three world points (3·3 values).
 */
export function p3p(bearings: ArrayLike<number>, worldPoints: ArrayLike<number>): RigidTransform[] {
  const problem = setUp(bearings, worldPoints);
  if (problem.a12 === 0 || problem.a13 === 0 || problem.a23 === 0) return [];
  return candidateDepths(problem)
    .map((lambda) => poseFromDepths(problem, lambda))
    .filter((pose) => Number.isFinite(pose.R[0]) && Number.isFinite(pose.t[0]));
}
