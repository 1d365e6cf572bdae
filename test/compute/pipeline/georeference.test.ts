/**
 * The georeference step: a model placed by its photos' GPS fixes lands in the UTM zone's metres
 * (the similarity recovers a known scale, rotation and offset), fixes that spread too little give
 * none, and the deliverables carry the system: LAS with its real coordinates and WKT, glTF
 * turned upright at its root, cameras that still project the points where they did.
 */
import { describe, expect, it } from "vitest";
import type { Document } from "@gltf-transform/core";
import { enuToGeodetic } from "../../../compute/geometry/geodesy.js";
import { angleAxisToMatrix } from "../../../compute/geometry/rotation.js";
import { createRng } from "../../../compute/math/random.js";
import { epsgEntry, transformBetween, utmEpsg, WGS84_GEOGRAPHIC } from "../../../compute/pipeline/crs.js";
import { locate, surveyInputs } from "../../../compute/pipeline/locate.js";
import { mapCamera, type ImageRef, type RegisteredView, type SparseModel } from "../../../compute/scene/index.js";
import { buildGltfDocument, writeLas } from "../../../compute/stages/export/index.js";

const REFERENCE = { latitudeDeg: 47.3769, longitudeDeg: 8.5417, heightM: 408 };

/** A survey of `side`² cameras 60 m above ground, points on the ground; the model is the true ENU scene turned, scaled by 1/40 and shifted. */
function gpsSurvey(spacingM: number, gpsSigmaM: number): { model: SparseModel; images: ImageRef[]; enuOfModel: (p: number[]) => number[] } {
  const rng = createRng(3);
  const turn = angleAxisToMatrix([0.14, 0.7, 0.07]);
  const scale = 1 / 40;
  const shift = [3, -1, 2];
  // Model = scale · turn · enuAsApi + shift, with enuAsApi = (east, up, −north).
  const toModel = (enu: number[]) => {
    const api = [enu[0], enu[2], -enu[1]];
    return [0, 1, 2].map((a) => scale * (turn[3 * a] * api[0] + turn[3 * a + 1] * api[1] + turn[3 * a + 2] * api[2]) + shift[a]);
  };
  const enuOfModel = (p: number[]) => {
    const d = [0, 1, 2].map((a) => (p[a] - shift[a]) / scale);
    const api = [0, 1, 2].map((a) => turn[a] * d[0] + turn[3 + a] * d[1] + turn[6 + a] * d[2]);
    return [api[0], -api[2], api[1]];
  };
  const views: RegisteredView[] = [];
  const images: ImageRef[] = [];
  for (let i = 0; i < 16; i++) {
    const enu = [(i % 4) * spacingM, Math.floor(i / 4) * spacingM, 60];
    const c = toModel(enu);
    // A camera looking along the model's −y of the turned frame; its orientation does not matter here.
    const R = new Float64Array(turn);
    const t = new Float64Array([0, 1, 2].map((a) => -(R[3 * a] * c[0] + R[3 * a + 1] * c[1] + R[3 * a + 2] * c[2])));
    views.push({ imageIndex: i, name: `p${i}.jpg`, intrinsics: { width: 4000, height: 3000, focal: 3000, cx: 2000, cy: 1500, k1: 0, k2: 0 }, camFromWorld: { R, t } });
    const noisy = [enu[0] + gpsSigmaM * (rng() - 0.5) * 2, enu[1] + gpsSigmaM * (rng() - 0.5) * 2, enu[2] + gpsSigmaM * (rng() - 0.5) * 2];
    const fix = enuToGeodetic(noisy as [number, number, number], REFERENCE);
    images.push({ name: `p${i}.jpg`, gps: { latitudeDeg: fix.latitudeDeg, longitudeDeg: fix.longitudeDeg, altitudeM: fix.heightM } } as unknown as ImageRef);
  }
  const count = 50;
  const xyz = new Float64Array(3 * count);
  for (let p = 0; p < count; p++) xyz.set(toModel([rng() * 3 * spacingM, rng() * 3 * spacingM, rng()]), 3 * p);
  const points = { count, xyz, rgb: new Uint8Array(3 * count), error: new Float32Array(count), obsOffsets: new Uint32Array(count + 1), obsViews: new Uint32Array(0), obsKeypoints: new Uint32Array(0) };
  return { model: { views, unregistered: [], points, otherModelSizes: [] }, images, enuOfModel };
}

describe("pipeline/georeference", () => {
  it("holds a GPS survey in its UTM zone's metres, within the fixes' noise", () => {
    const { model, images } = gpsSurvey(40, 0.5);
    const { located } = locate(images, model);
    expect(located).not.toBeNull();
    const code = utmEpsg(REFERENCE.longitudeDeg, REFERENCE.latitudeDeg);
    expect(located!.frame.crs).toBe(`EPSG:${code}`);
    // The model's scale was 1/40: metres per model unit 40, to the fixes' noise over a 120 m block.
    expect(located!.modelToTarget.s).toBeGreaterThan(40 * 0.99);
    expect(located!.modelToTarget.s).toBeLessThan(40 * 1.01);
    // The first camera, carried into the survey frame and shifted back, is at its true UTM position.
    const toUtm = transformBetween(WGS84_GEOGRAPHIC, epsgEntry(code)!.proj4);
    const truth = toUtm([REFERENCE.longitudeDeg, REFERENCE.latitudeDeg, REFERENCE.heightM + 60]);
    const surveyed = surveyInputs(located, { views: model.views, cloud: { count: 0, positions: new Float32Array(0), colors: new Uint8Array(0), normals: new Float32Array(0) }, mesh: null });
    const { R, t } = surveyed.views[0].camFromWorld;
    const centre = [0, 1, 2].map((a) => -(R[a] * t[0] + R[3 + a] * t[1] + R[6 + a] * t[2]));
    const offset = located!.frame.offset;
    expect(Math.abs(centre[0] + offset[0] - truth[0])).toBeLessThan(0.6);
    expect(Math.abs(centre[1] + offset[1] - truth[1])).toBeLessThan(0.6);
    expect(Math.abs(centre[2] + offset[2] - truth[2])).toBeLessThan(0.6);
  });

  it("gives no georeference where the fixes spread too little against their scatter", () => {
    const { model, images } = gpsSurvey(1, 3);
    const placed = locate(images, model);
    expect(placed.located).toBeNull();
    expect(placed.refused).toMatch(/too little spread/);
  });

  it("keeps every projection when cameras and points move by a similarity", () => {
    const { model } = gpsSurvey(40, 0);
    const sim = { R: angleAxisToMatrix([0.4, 0.12, 0]), s: 7, t: new Float64Array([5, -2, 9]) };
    const view = model.views[3];
    const p = [model.points.xyz[0], model.points.xyz[1], model.points.xyz[2]];
    const project = (cam: { R: Float64Array; t: Float64Array }, q: number[]) => {
      const x = [0, 1, 2].map((a) => cam.R[3 * a] * q[0] + cam.R[3 * a + 1] * q[1] + cam.R[3 * a + 2] * q[2] + cam.t[a]);
      return [x[0] / x[2], x[1] / x[2]];
    };
    const moved = [0, 1, 2].map((a) => sim.s * (sim.R[3 * a] * p[0] + sim.R[3 * a + 1] * p[1] + sim.R[3 * a + 2] * p[2]) + sim.t[a]);
    const before = project(view.camFromWorld, p);
    const after = project(mapCamera(sim, view.camFromWorld), moved);
    expect(after[0]).toBeCloseTo(before[0], 9);
    expect(after[1]).toBeCloseTo(before[1], 9);
  });

  it("writes LAS in the system's own coordinates with its WKT, and glTF upright", async () => {
    const wkt = epsgEntry(32632)!.wkt;
    const offset: [number, number, number] = [465403, 5247151, 0];
    const cloud = { count: 2, positions: new Float32Array([1.25, -3.5, 408.125, -20, 40, 412]), colors: new Uint8Array(6), normals: new Float32Array(6) };
    const las = writeLas(cloud, { offset, wkt });
    const view = new DataView(las.buffer, las.byteOffset, las.byteLength);
    expect(view.getUint32(100, true)).toBe(1);
    expect(view.getFloat64(131, true)).toBe(0.001);
    const pointsAt = view.getUint32(96, true);
    const vlrText = new TextDecoder().decode(las.subarray(375 + 54, pointsAt - 1));
    expect(vlrText).toBe(wkt);
    expect(new TextDecoder().decode(las.subarray(375 + 2, 375 + 17))).toBe("LASF_Projection");
    expect(view.getUint16(375 + 18, true)).toBe(2112);
    const real = [0, 1, 2].map((a) => view.getInt32(pointsAt + 4 * a, true) * view.getFloat64(131 + 8 * a, true) + view.getFloat64(155 + 8 * a, true));
    expect(real[0]).toBeCloseTo(465403 + 1.25, 6);
    expect(real[1]).toBeCloseTo(5247151 - 3.5, 6);
    expect(real[2]).toBeCloseTo(408.125, 6);
    // Header bounds are the system's coordinates too.
    expect(view.getFloat64(179, true)).toBeCloseTo(465403 + 1.25, 6);
    expect(view.getFloat64(187, true)).toBeCloseTo(465403 - 20, 6);

    const doc: Document = await buildGltfDocument({ views: [], cloud, mesh: null, georeference: { crs: "EPSG:32632", offset } });
    const root = doc.getRoot().getDefaultScene()!.listChildren()[0];
    expect(root.getName()).toBe("georeferenced");
    expect(root.getExtras()).toEqual({ georeference: { crs: "EPSG:32632", offset } });
    // The root turns up (z) into glTF's y: a point at height h shows at y = h.
    const world = root.getWorldMatrix();
    const up = [world[8], world[9], world[10]];
    expect(up[1]).toBeCloseTo(1, 9);
  });
});

describe("pipeline/locate output_crs", () => {
  it("takes EPSG codes and ODM's UTM shorthand, and refuses a PROJ string (no code for the WKT)", async () => {
    const { outputEpsgOf } = await import("../../../compute/pipeline/locate.js");
    expect(outputEpsgOf(undefined)).toBeUndefined();
    expect(outputEpsgOf("EPSG:2056")).toBe(2056);
    expect(outputEpsgOf("WGS84 UTM 33N")).toBe(32633);
    expect(() => outputEpsgOf("+proj=utm +zone=33 +datum=WGS84 +units=m")).toThrow(/names no EPSG code/);
  });
});
