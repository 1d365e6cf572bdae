/**
 * The bundle-adjustment addon (compute/solvers/bundle-adjustment/native/ba.c) against the
 * TypeScript: the linearisation (linearize.ts linearizeObservationsTypeScript) gives the same
 * Jacobians, normal equations and sums to the bit, by observations and by points, for every loss
 * and with per-observation σ; the point elimination (schur.ts eliminatePointsDenseTypeScript) the
 * same reduced system, right-hand side and V*⁻¹, on whole problems and on one thread's range of
 * points, and the same refusal of a point block that is not positive definite.
 */
import { describe, expect, it } from "vitest";
import { DEFAULTS, type Options } from "../../../../compute/solvers/bundle-adjustment/index.js";
import { buildLayout } from "../../../../compute/solvers/bundle-adjustment/layout.js";
import { allocateNormal, computeRotations, linearizeNative, linearizeObservationsTypeScript, type CostSum, type Normal } from "../../../../compute/solvers/bundle-adjustment/linearize.js";
import type { LossName } from "../../../../compute/solvers/bundle-adjustment/loss.js";
import { nativeBundle } from "../../../../compute/solvers/bundle-adjustment/native-ba.js";
import { computeDampingDiagonals, eliminatePointsDense, eliminatePointsDenseTypeScript } from "../../../../compute/solvers/bundle-adjustment/schur.js";
import { relinearize } from "../../../../compute/solvers/bundle-adjustment/solver.js";
import type { BAProblem } from "../../../../compute/solvers/bundle-adjustment/types.js";
import { allocateWorkspace, type Workspace } from "../../../../compute/solvers/bundle-adjustment/workspace.js";
import { canBuildNative } from "../../../support/native-build.js";
import { makeScene, perturbedCopy } from "./synthetic-scene.js";

/** A linearised workspace of the problem, ready for elimination. */
function linearised(problem: BAProblem, options: Options): Workspace {
  const ws = allocateWorkspace(problem, options);
  relinearize(problem, ws, options);
  computeDampingDiagonals(problem, ws.layout, ws.normal, ws.schur);
  return ws;
}

interface Eliminated {
  ok: boolean;
  s: Float64Array;
  b: Float64Array;
  vinv: Float64Array;
}

function eliminate(run: typeof eliminatePointsDense, problem: BAProblem, ws: Workspace, mu: number, p0: number, p1: number): Eliminated {
  const n = ws.layout.reducedSize;
  // Non-zero starts, as U and −g_c leave them.
  const s = Float64Array.from({ length: n * n }, (_, k) => Math.sin(k) * 1e3);
  const b = Float64Array.from({ length: n }, (_, k) => Math.cos(k));
  ws.schur.vinv.fill(0);
  const ok = run(problem, ws.layout, ws.normal, ws.schur, mu, s, b, p0, p1);
  expect(Array.from(ws.schur.entryOfBase).every((e) => e === -1)).toBe(true);
  return { ok, s, b, vinv: ws.schur.vinv.slice() };
}

function expectSameBits(a: Eliminated, b: Eliminated): void {
  expect(a.ok).toBe(b.ok);
  for (const key of ["s", "b", "vinv"] as const) {
    const differing = a[key].findIndex((x, k) => !Object.is(x, b[key][k]));
    expect(differing, `${key}[${differing}]: ${a[key][differing]} against ${b[key][differing]}`).toBe(-1);
  }
}

/** The normal equations' arrays, each filled with the same arbitrary values (what a pass does not write must stay). */
function filledNormal(problem: BAProblem, options: Options): Normal {
  const normal = allocateNormal(problem, buildLayout(problem, options));
  const arrays = [normal.jc, normal.jp, normal.res, normal.w, normal.upp, normal.upi, normal.uii, normal.v, normal.gR, normal.gP];
  arrays.forEach((a, i) => a.forEach((_, k) => (a[k] = Math.sin(7 * k + i))));
  computeRotations(problem.cameraCount, problem.poses, normal.rotations);
  return normal;
}

describe("ba/native-ba", () => {
  const available = nativeBundle() !== null;

  it("is built wherever the addons can be", () => {
    if (!canBuildNative()) return;
    expect(nativeBundle(), "the native addon is missing: run `node scripts/build-native.mjs` (npm ci's postinstall)").not.toBeNull();
  });

  it.runIf(available)("linearises to the TypeScript's bits, for every loss, with and without σ, by observations and by points", () => {
    const scene = makeScene({ cameras: 8, points: 250, seed: 11, minViews: 2, maxViews: 6 });
    for (const loss of ["squared", "huber", "cauchy"] as LossName[]) {
      for (const sigma of [false, true]) {
        const problem = perturbedCopy(scene, { pointFraction: 0.003 });
        if (sigma) problem.obsSigma = Float64Array.from({ length: problem.observationCount }, (_, o) => (o % 3 === 0 ? 1 : 0.5 + (o % 7) / 4));
        problem.fixedPoint = new Uint8Array(problem.pointCount);
        problem.fixedPoint[9] = 1;
        problem.fixedPose = new Uint8Array(problem.cameraCount);
        problem.fixedPose[2] = 1;
        const options: Options = { ...DEFAULTS, loss, lossScalePx: 1.5, refinePrincipalPoint: sigma };
        const layout = buildLayout(problem, options);
        for (const [byPoints, from, to] of [[false, 0, problem.observationCount], [false, 17, 301], [true, 0, problem.pointCount], [true, 40, 171]] as const) {
          const native = filledNormal(problem, options);
          const typescript = filledNormal(problem, options);
          const nativeSums: CostSum = { cost: 0, sumSquares: 0 };
          const typescriptSums: CostSum = { cost: 0, sumSquares: 0 };
          expect(linearizeNative(problem, layout, native, loss, options.lossScalePx, byPoints, from, to, nativeSums)).toBe(true);
          linearizeObservationsTypeScript(problem, layout, typescript, loss, options.lossScalePx, byPoints, from, to, typescriptSums);
          const label = `${loss}, σ ${sigma}, ${byPoints ? "points" : "observations"} ${from}–${to}`;
          expect(Object.is(nativeSums.cost, typescriptSums.cost) && Object.is(nativeSums.sumSquares, typescriptSums.sumSquares), label).toBe(true);
          for (const key of ["jc", "jp", "res", "w", "upp", "upi", "uii", "v", "gR", "gP"] as const) {
            const differing = native[key].findIndex((x, k) => !Object.is(x, typescript[key][k]));
            expect(differing, `${label}: ${key}[${differing}]`).toBe(-1);
          }
        }
      }
    }
  });

  it.runIf(available)("refuses an observation whose camera is out of range instead of reading past its arrays", () => {
    const problem = perturbedCopy(makeScene({ cameras: 4, points: 30, seed: 2 }));
    const options = { ...DEFAULTS };
    const layout = buildLayout(problem, options);
    const normal = filledNormal(problem, options);
    problem.obsCamera[3] = problem.cameraCount;
    expect(() => linearizeNative(problem, layout, normal, "cauchy", 1, false, 0, problem.observationCount, { cost: 0, sumSquares: 0 })).toThrow(/out of range/);
  });

  it.runIf(available)("forms the TypeScript's reduced system to the bit, with shared and per-camera intrinsics", () => {
    for (const perCamera of [false, true]) {
      const scene = makeScene({ cameras: 9, points: 300, seed: 7, minViews: 2, maxViews: 7 });
      const problem = perturbedCopy(scene);
      if (perCamera) {
        problem.intrinsicsGroup = Uint32Array.from({ length: problem.cameraCount }, (_, c) => c);
        problem.intrinsics = Float64Array.from({ length: 5 * problem.cameraCount }, (_, k) => scene.truth.intrinsics[k % 5] * (1 + 0.01 * Math.floor(k / 5)));
      }
      problem.fixedPose = new Uint8Array(problem.cameraCount);
      problem.fixedPose[0] = 1;
      problem.fixedPoint = new Uint8Array(problem.pointCount);
      problem.fixedPoint[5] = 1;
      // A camera that sees a point twice merges into one entry.
      problem.obsCamera = Uint32Array.from([...problem.obsCamera, problem.obsCamera[0]]);
      problem.obsPoint = Uint32Array.from([...problem.obsPoint, problem.obsPoint[0]]);
      problem.obsXY = Float64Array.from([...problem.obsXY, problem.obsXY[0] + 1.5, problem.obsXY[1] - 0.5]);
      problem.observationCount++;
      const options: Options = { ...DEFAULTS, loss: "cauchy", refinePrincipalPoint: perCamera };
      const ws = linearised(problem, options);
      for (const mu of [0, 1e-4, 3.7]) {
        const all = [0, problem.pointCount] as const;
        expectSameBits(eliminate(eliminatePointsDense, problem, ws, mu, ...all), eliminate(eliminatePointsDenseTypeScript, problem, ws, mu, ...all));
        // One thread's share, as team-kernels.ts runs it.
        expectSameBits(eliminate(eliminatePointsDense, problem, ws, mu, 101, 233), eliminate(eliminatePointsDenseTypeScript, problem, ws, mu, 101, 233));
      }
    }
  });

  it.runIf(available)("refuses a point block that is not positive definite, as the TypeScript does", () => {
    const problem = perturbedCopy(makeScene({ cameras: 6, points: 80, seed: 3 }));
    const ws = linearised(problem, { ...DEFAULTS });
    ws.normal.v.fill(0, 9 * 40, 9 * 41);
    ws.schur.diagP.fill(0, 3 * 40, 3 * 41);
    const native = eliminate(eliminatePointsDense, problem, ws, 1e-3, 0, problem.pointCount);
    const typescript = eliminate(eliminatePointsDenseTypeScript, problem, ws, 1e-3, 0, problem.pointCount);
    expect(native.ok).toBe(false);
    expectSameBits(native, typescript);
  });

  it.runIf(available)("refuses arrays that do not fit the range it is given", () => {
    const problem = perturbedCopy(makeScene({ cameras: 4, points: 30, seed: 2 }));
    const ws = linearised(problem, { ...DEFAULTS });
    const n = ws.layout.reducedSize;
    expect(() => eliminatePointsDense(problem, ws.layout, ws.normal, ws.schur, 0, new Float64Array(n * n), new Float64Array(n), 0, problem.pointCount + 1)).toThrow(/lengths disagree/);
    expect(() => eliminatePointsDense(problem, ws.layout, ws.normal, ws.schur, 0, new Float64Array(n), new Float64Array(n), 0, 1)).toThrow(/lengths disagree/);
    // A camera index past the layout's: refused before anything is written.
    const camera = problem.obsCamera[ws.layout.pointObs[ws.layout.pointObsStart[3]]];
    problem.obsCamera[ws.layout.pointObs[ws.layout.pointObsStart[3]]] = problem.cameraCount + 5;
    expect(() => eliminatePointsDense(problem, ws.layout, ws.normal, ws.schur, 0, new Float64Array(n * n), new Float64Array(n), 0, problem.pointCount)).toThrow(/out of range/);
    problem.obsCamera[ws.layout.pointObs[ws.layout.pointObsStart[3]]] = camera;
  });
});
