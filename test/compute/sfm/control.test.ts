/**
 * The pieces of ground control (compute/stages/sfm/control.ts, control-adjust.ts) on synthetic
 * cameras with known truth: marks scaled from the photo as displayed into the stored image's
 * pixels, a target triangulated from its marks with a wrong mark dropped, the similarity onto
 * the control points leaving out a wrong point but not a model that is merely less accurate
 * than the survey, the residual's axes and sign, and control that cannot apply leaving the model
 * untouched.
 */
import { describe, expect, it } from "vitest";
import { createRng } from "../../../compute/math/random.js";
import type { ImageRef, RegisteredView, SparseModel } from "../../../compute/scene/index.js";
import { applyControl } from "../../../compute/stages/sfm/control-adjust.js";
import { checkControlTargets, residualEnu, selectControl, triangulateMarks, viewMarks, type ControlTarget, type ViewMark } from "../../../compute/stages/sfm/control.js";
import { DEFAULTS } from "../../../compute/stages/sfm/options.js";
import { lookAt } from "../../support/render.js";

const INTRINSICS = { width: 400, height: 300, focal: 440, cx: 200, cy: 150, k1: 0, k2: 0 };

/** Six cameras 1 unit above the ground along a line, looking down (slightly ahead). */
function views(): RegisteredView[] {
  return Array.from({ length: 6 }, (_, i) => ({
    imageIndex: i,
    name: `photo_${i}.jpg`,
    intrinsics: { ...INTRINSICS },
    camFromWorld: lookAt([0.15 * i, 0, 1], [0.15 * i + 0.05, 0.01, 0]),
  }));
}

function projectTo(view: RegisteredView, X: number[]): [number, number] {
  const { R, t } = view.camFromWorld;
  const c = [0, 1, 2].map((r) => R[3 * r] * X[0] + R[3 * r + 1] * X[1] + R[3 * r + 2] * X[2] + t[r]);
  return [INTRINSICS.focal * (c[0] / c[2]) + INTRINSICS.cx, INTRINSICS.focal * (c[1] / c[2]) + INTRINSICS.cy];
}

function image(index: number, source?: [number, number]): ImageRef {
  return { index, name: `photo_${index}.jpg`, path: "", width: 400, height: 300, focalPrior: 440, focalPriorSource: "exif35mm", ...(source ? { sourceWidth: source[0], sourceHeight: source[1] } : {}) };
}

describe("sfm ground control: marks and triangulation", () => {
  it("scales marks from the photo as displayed into the stored image, and names marks it cannot use", () => {
    const images = [image(0, [4000, 3000]), image(1), image(2)];
    const target: ControlTarget = { name: "A", role: "control", position: [0, 0, 0], sigma: { horizontal: 0.02, vertical: 0.03 }, marks: [{ imageIndex: 0, x: 1234.5, y: 2000 }, { imageIndex: 1, x: 10, y: 20 }, { imageIndex: 2, x: 5, y: 5 }, { imageIndex: 7, x: 1, y: 1 }] };
    const { marks, dropped } = viewMarks(target, images, new Map([[0, 0], [1, 1]]));
    expect(marks).toEqual([{ mark: 0, view: 0, x: 123.45, y: 200 }, { mark: 1, view: 1, x: 10, y: 20 }]);
    expect(dropped.map((d) => [d.mark, d.reason])).toEqual([[2, "the photo is not placed in the model"], [3, "there is no image 7"]]);
  });

  it("triangulates a target from its marks and drops a mark on the wrong target", () => {
    const cams = views();
    const truth = [0.4, 0.05, 0.02];
    const other = [0.55, -0.1, 0];
    const rng = createRng(5);
    const marks: ViewMark[] = cams.map((v, k) => {
      const [x, y] = projectTo(v, k === 3 ? other : truth);
      return { mark: k, view: k, x: x + 0.3 * (rng() - 0.5), y: y + 0.3 * (rng() - 0.5) };
    });
    const tri = triangulateMarks(cams, marks, 4);
    expect(tri.kept).toEqual([0, 1, 2, 4, 5]);
    expect(Math.hypot(...truth.map((v, a) => tri.xyz![a] - v))).toBeLessThan(2e-3);
    expect(tri.errorsPx[3]).toBeGreaterThan(20);
    // Two marks on different targets do not meet.
    const two = triangulateMarks(cams, [marks[2], marks[3]], 4);
    expect(two.xyz).toBeNull();
    expect(two.reason).toMatch(/do not meet/);
    expect(triangulateMarks(cams, [marks[0]], 4).reason).toMatch(/1 mark on a placed photo \(2 needed\)/);
  });

  it("leaves out a control point far from its stated position, but not points a less accurate model puts a little off", () => {
    const rng = createRng(9);
    const gauss = () => Math.sqrt(-2 * Math.log(Math.max(1e-12, rng()))) * Math.cos(2 * Math.PI * rng());
    const stated = [[0, 0, 0], [60, 1, 0], [0, 2, -50], [60, -1, -50], [30, 0, -25]];
    // model = (stated − t)/s turned by 30° about y: the inverse of the similarity to recover.
    const [c, s] = [Math.cos(0.5), Math.sin(0.5)];
    const toModel = (p: number[], noise: number) => {
      const q = p.map((v, a) => (v - [100, 5, -20][a] + noise * gauss()) / 60);
      return [c * q[0] + s * q[2], q[1], -s * q[0] + c * q[2]];
    };
    const sigmas = stated.map(() => Math.hypot(0.02, 0.02, 0.03));
    // The model 0.3 m off everywhere (it is not yet adjusted with control): every point kept.
    const loose = selectControl(Float64Array.from(stated.flatMap((p) => toModel(p, 0.3))), Float64Array.from(stated.flat()), sigmas, 5, 5);
    expect(loose.kept).toEqual([true, true, true, true, true]);
    expect(loose.similarity!.s).toBeCloseTo(60, 0);
    // One point 12 m from where its marks put it: left out, and the similarity fitted without it.
    const model = stated.map((p) => toModel(p, 0.02));
    model[2] = toModel([10, 2, -45], 0.02);
    const strict = selectControl(Float64Array.from(model.flat()), Float64Array.from(stated.flat()), sigmas, 5, 5);
    expect(strict.kept).toEqual([true, true, false, true, true]);
    expect(strict.residualM[2]).toBeGreaterThan(10);
    expect(Math.max(...strict.residualM.filter((_, k) => k !== 2))).toBeLessThan(0.1);
    expect(strict.similarity!.s).toBeCloseTo(60, 1);
  });

  it("leaves out no control point whose residual under the final similarity is within its limit", () => {
    // Five points over 2 km × 1 km, the model 2–4 cm off at each (a survey's honest noise):
    // a start fitted on few points may put one outside its limit, the final fit must not.
    const sigmas = new Array(5).fill(Math.hypot(0.02, 0.02, 0.03));
    let restored = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const rng = createRng(seed);
      const gauss = () => Math.sqrt(-2 * Math.log(Math.max(1e-12, rng()))) * Math.cos(2 * Math.PI * rng());
      const stated = [[0, 0, 0], [2000, 3, 0], [0, -2, -1000], [2000, 1, -1000], [1000, 0, -500]].map((p) => p.map((v) => v + 40 * (rng() - 0.5)));
      const model = stated.map((p) => p.map((v) => (v + 0.03 * gauss()) / 250));
      const selection = selectControl(Float64Array.from(model.flat()), Float64Array.from(stated.flat()), sigmas, 5, 5);
      selection.kept.forEach((kept, k) => {
        if (!kept) expect(selection.residualM[k], `seed ${seed}, point ${k}`).toBeGreaterThan(selection.limitM[k]);
      });
      restored += selection.kept.filter(Boolean).length;
    }
    expect(restored).toBeGreaterThan(0.95 * 5 * 200);
  });

  it("reports residuals east, north, up as estimated − stated", () => {
    // API frame: x east, y up, z south.
    expect(residualEnu([1, 2, 3], [0, 0, 0])).toEqual({ dx: 1, dy: -3, dz: 2 });
  });

  it("leaves the model untouched when fewer than three control points can be triangulated, and refuses malformed targets", () => {
    const cams = views();
    const model: SparseModel = { views: cams, unregistered: [], otherModelSizes: [], points: { count: 0, xyz: new Float64Array(0), rgb: new Uint8Array(0), error: new Float32Array(0), obsOffsets: Uint32Array.of(0), obsViews: new Uint32Array(0), obsKeypoints: new Uint32Array(0) } };
    const before = cams.map((v) => v.camFromWorld.t.slice());
    const target = (name: string, X: number[], role: ControlTarget["role"] = "control"): ControlTarget => ({
      name, role, position: [X[0] * 60, X[2] * 60, -X[1] * 60], sigma: { horizontal: 0.02, vertical: 0.03 },
      marks: cams.map((v, k) => ({ imageIndex: k, x: projectTo(v, X)[0], y: projectTo(v, X)[1] })),
    });
    const controlPoints = [target("A", [0.3, 0.05, 0]), target("B", [0.5, -0.05, 0]), target("K", [0.4, 0, 0], "check")];
    const report = applyControl({ model, images: cams.map((_, k) => image(k)), features: [], groupOfImage: new Uint32Array(6) }, { ...DEFAULTS, controlPoints });
    expect(report.applied).toBe(false);
    expect(report.reason).toMatch(/2 control points could be triangulated/);
    expect(report.points.map((p) => p.used)).toEqual([false, false, false]);
    cams.forEach((v, k) => expect(Array.from(v.camFromWorld.t)).toEqual(Array.from(before[k])));
    expect(() => checkControlTargets([controlPoints[0], controlPoints[0]])).toThrow(/named twice/);
    expect(() => checkControlTargets([{ ...controlPoints[0], sigma: { horizontal: 0, vertical: 0.03 } }])).toThrow(/positive horizontal and vertical σ/);
  });
});
