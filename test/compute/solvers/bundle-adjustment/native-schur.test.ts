/**
 * The addon's point elimination (compute/solvers/bundle-adjustment/native/schur.c) against
 * schur.ts eliminatePointsDenseTypeScript: the same reduced system, right-hand side and V*⁻¹ to
 * the bit, on whole problems and on one thread's range of points, and the same refusal of a
 * point block that is not positive definite.
 */
import { describe, expect, it } from "vitest";
import { DEFAULTS, type Options } from "../../../../compute/solvers/bundle-adjustment/index.js";
import { nativeSchur } from "../../../../compute/solvers/bundle-adjustment/native-schur.js";
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

describe("ba/native-schur", () => {
  const available = nativeSchur() !== null;

  it("is built wherever the addons can be", () => {
    if (!canBuildNative()) return;
    expect(nativeSchur(), "the native addon is missing: run `node scripts/build-native.mjs` (npm ci's postinstall)").not.toBeNull();
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
  });
});
