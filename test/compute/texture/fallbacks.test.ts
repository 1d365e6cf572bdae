/**
 * Fallback views in the texture stage (compute/stages/texture/view-scan.ts): a view that sees a
 * face more obliquely than minCosine (GRAZING), or with a corner outside its frame (PARTIAL), is
 * kept only for faces that no view sees whole and better (dropFallbacks). So ground seen from eye
 * height, and ground along the photos' bottom edges, is painted from the photos instead of left
 * untextured, and a wall that a frontal photo frames whole is never painted from a grazing photo
 * or from one that cuts it.
 */
import { describe, expect, it } from "vitest";
import type { Mesh, RegisteredView } from "../../../compute/scene/index.js";
import { DEFAULTS } from "../../../compute/stages/texture/index.js";
import { dropFallbacks, faceGeometry, GRAZING, PARTIAL, PARTIAL_REACH, scanView, type ScanOptions, type ViewObservations } from "../../../compute/stages/texture/view-scan.js";

function observations(view: number, faces: number[], fallback: number[]): ViewObservations {
  return {
    view,
    faces: Uint32Array.from(faces),
    quality: Float32Array.from(faces, (f) => 10 + f),
    colours: Float32Array.from(faces.flatMap((f) => [f, 100 + view, 200])),
    fallback: Uint8Array.from(fallback),
  };
}

const SIDE = 200;

/** A camera at (x, 0, -2) looking along +z, 200 px wide at focal 200 (±0.5 normalised). */
function frontalView(index: number, x: number): RegisteredView {
  const R = Float64Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1]);
  return { imageIndex: index, name: `view${index}`, intrinsics: { width: SIDE, height: SIDE, focal: SIDE, cx: SIDE / 2, cy: SIDE / 2, k1: 0, k2: 0 }, camFromWorld: { R, t: Float64Array.from([-x, 0, 2]) } };
}

function greyPhoto(): { rgb: Uint8Array; width: number; height: number; scale: number } {
  return { rgb: new Uint8Array(3 * SIDE * SIDE).fill(128), width: SIDE, height: SIDE, scale: 1 };
}

describe("texture/fallback views", () => {
  it("keeps a fallback view only for the faces that no view sees whole and better, with its quality and colour", () => {
    // Faces 0 and 1: view 0 frontal, view 1 grazing (and cutting face 1). Face 2: view 0 cuts it,
    // view 1 grazes it whole. Face 3: view 1 frontal only. Face 4: both views cut it.
    const { observations: kept, kept: fallbacksKept } = dropFallbacks([observations(0, [0, 1, 2, 4], [0, 0, PARTIAL, PARTIAL]), observations(1, [0, 1, 2, 3, 4], [GRAZING, GRAZING | PARTIAL, GRAZING, 0, PARTIAL | GRAZING])], 5);
    expect(Array.from(kept[0].faces)).toEqual([0, 1, 4]);
    expect(Array.from(kept[1].faces)).toEqual([2, 3, 4]);
    expect(Array.from(kept[1].quality)).toEqual([12, 13, 14]);
    expect(Array.from(kept[1].colours)).toEqual([2, 101, 200, 3, 101, 200, 4, 101, 200]);
    expect(Array.from(kept[1].fallback)).toEqual([GRAZING, 0, PARTIAL | GRAZING]);
    expect(fallbacksKept).toBe(3);
  });

  it("leaves views without fallback observations as they are", () => {
    const frontal = observations(0, [0, 1], [0, 0]);
    const { observations: kept, kept: fallbacksKept } = dropFallbacks([frontal], 2);
    expect(kept[0]).toBe(frontal);
    expect(fallbacksKept).toBe(0);
  });

  it("sees a face cut by the frame's edge as a partial view when its centroid is inside, and not otherwise", () => {
    // At depth 2 the frame spans x ∈ [-1, 1] around the camera. Face 0 straddles the right edge
    // with its centroid inside (corners at x 0.8 and 1.2, centroid 0.93); face 1's centroid is
    // outside (1.32); face 2 lies whole inside.
    const positions = Float32Array.from([
      0.8, -0.2, 0, 1.2, -0.2, 0, 0.8, 0.2, 0,
      0.95, -0.2, 0, 1.5, -0.2, 0, 1.5, 0.2, 0,
      -0.2, -0.2, 0, 0.2, -0.2, 0, -0.2, 0.2, 0,
    ]);
    const mesh: Mesh = { vertexCount: 9, faceCount: 3, positions, colors: new Uint8Array(27), normals: new Float32Array(27).fill(0).map((_, i) => (i % 3 === 2 ? -1 : 0)), indices: Uint32Array.from([0, 1, 2, 3, 4, 5, 6, 7, 8]) };
    const options: ScanOptions = { depthTolerance: 0.01, minCosine: DEFAULTS.minCosine, grazingMinCosine: DEFAULTS.grazingMinCosine, borderPixels: 2, frontalPower: 2 };
    const cut = scanView(mesh, faceGeometry(mesh), frontalView(0, 0), 0, greyPhoto(), options);
    expect(Array.from(cut.faces)).toEqual([0, 2]);
    expect(Array.from(cut.fallback)).toEqual([PARTIAL, 0]);
    // A second view, moved right, frames face 0 whole: the cut view's observation of it is dropped.
    const whole = scanView(mesh, faceGeometry(mesh), frontalView(1, 0.6), 1, greyPhoto(), options);
    expect(Array.from(whole.faces)).toContain(0);
    expect(whole.fallback[Array.from(whole.faces).indexOf(0)]).toBe(0);
    const { observations: kept } = dropFallbacks([cut, whole], 3);
    expect(Array.from(kept[0].faces)).toEqual([2]);
  });

  it("takes no cut face whose corner reaches far past the frame", () => {
    // Centroid inside (x 0.4), but a corner at x 3.3: 230 px past the right edge of a 200-px frame, beyond PARTIAL_REACH.
    const positions = Float32Array.from([-1.0, -0.2, 0, 3.3, -0.2, 0, -1.1, 0.2, 0]);
    const mesh: Mesh = { vertexCount: 3, faceCount: 1, positions, colors: new Uint8Array(9), normals: Float32Array.from([0, 0, -1, 0, 0, -1, 0, 0, -1]), indices: Uint32Array.from([0, 1, 2]) };
    const options: ScanOptions = { depthTolerance: 0.01, minCosine: DEFAULTS.minCosine, grazingMinCosine: DEFAULTS.grazingMinCosine, borderPixels: 2, frontalPower: 2 };
    expect(scanView(mesh, faceGeometry(mesh), frontalView(0, 0), 0, greyPhoto(), options).faces.length).toBe(0);
    expect(PARTIAL_REACH * SIDE).toBeLessThan(230);
  });
});
