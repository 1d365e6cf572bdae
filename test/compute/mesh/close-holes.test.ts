/**
 * Closing large enclosed holes (compute/stages/mesh/close-holes.ts): a flat sheet with a wide
 * hole, seen by one camera from above. With nothing behind the hole (a plain surface that
 * stereo left empty) the hole is closed, watertight, with faces as small as the sheet's and
 * wound like it; with points seen behind it (a real opening) it stays; the outer border of the
 * sheet is never closed.
 */
import { describe, expect, it } from "vitest";
import { closeEnclosedHoles, type EnclosedHoleOptions } from "../../../compute/stages/mesh/close-holes.js";
import type { RegisteredView } from "../../../compute/scene/index.js";
import { boundaryEdges } from "./fixtures.js";

const OPTIONS: EnclosedHoleOptions = { maxEdges: 4000, maxFlatness: 0.1, minAlignment: 0.8, maxSeeThrough: 0.1, maxSamples: 2000 };
const STEP = 0.05;
const N = 40; // 2 × 2 sheet of 0.05 squares

/** The sheet z = 0 over [-1, 1]², squares of STEP (CCW seen from +z), without those whose centre is inside |x|, |y| < hole. */
function sheetWithHole(hole: number) {
  const positions: number[] = [];
  for (let j = 0; j <= N; j++) for (let i = 0; i <= N; i++) positions.push(-1 + i * STEP, -1 + j * STEP, 0);
  const at = (i: number, j: number) => j * (N + 1) + i;
  const indices: number[] = [];
  for (let j = 0; j < N; j++) for (let i = 0; i < N; i++) {
    const cx = -1 + (i + 0.5) * STEP, cy = -1 + (j + 0.5) * STEP;
    if (Math.abs(cx) < hole && Math.abs(cy) < hole) continue;
    indices.push(at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j), at(i + 1, j + 1), at(i, j + 1));
  }
  return { positions: new Float32Array(positions), indices: new Uint32Array(indices) };
}

/** A camera 3 above the origin looking straight down. */
const OVERHEAD: RegisteredView = {
  imageIndex: 0,
  name: "overhead.jpg",
  intrinsics: { width: 640, height: 480, focal: 400, cx: 320, cy: 240, k1: 0, k2: 0 },
  camFromWorld: { R: new Float64Array([1, 0, 0, 0, -1, 0, 0, 0, -1]), t: new Float64Array([0, 0, 3]) },
};

/** Dense points on the sheet outside the hole, and optionally on a floor 1 below it. */
function cloud(hole: number, floorBelow: boolean) {
  const points: number[] = [];
  for (let y = -1; y <= 1; y += 0.01) for (let x = -1; x <= 1; x += 0.01) {
    if (!(Math.abs(x) < hole && Math.abs(y) < hole)) points.push(x, y, 0);
    if (floorBelow) points.push(x, y, -1);
  }
  return { positions: new Float32Array(points), count: points.length / 3, views: [OVERHEAD] };
}

describe("mesh/close-holes", () => {
  it("closes a wide hole that the camera does not see through: watertight, small faces, wound like the sheet, on its plane", () => {
    const sheet = sheetWithHole(0.5); // a 1 × 1 hole, 80 boundary edges
    expect(boundaryEdges(sheet.indices)).toBe(4 * N + 80);
    const { mesh, report } = closeEnclosedHoles(sheet, cloud(0.5, false), STEP, OPTIONS);
    expect(report).toMatchObject({ closed: 1, seeThrough: 0 });
    expect(boundaryEdges(mesh.indices)).toBe(4 * N); // only the sheet's outer border is left
    const p = mesh.positions;
    let largest = 0;
    for (let f = sheet.indices.length; f < mesh.indices.length; f += 3) {
      const [a, b, c] = [mesh.indices[f], mesh.indices[f + 1], mesh.indices[f + 2]].map((i) => [p[3 * i], p[3 * i + 1], p[3 * i + 2]]);
      const nz = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
      expect(nz).toBeGreaterThan(0); // faces +z, like the sheet
      for (const v of [a, b, c]) expect(Math.abs(v[2])).toBeLessThan(1e-6);
      largest = Math.max(largest, nz / 2);
    }
    // The filled area is the hole's, in faces no larger than two of the sheet's.
    let filledArea = 0;
    for (let f = sheet.indices.length; f < mesh.indices.length; f += 3) {
      const [a, b, c] = [mesh.indices[f], mesh.indices[f + 1], mesh.indices[f + 2]].map((i) => [p[3 * i], p[3 * i + 1]]);
      filledArea += ((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])) / 2;
    }
    expect(filledArea).toBeCloseTo(1, 6);
    expect(largest).toBeLessThanOrEqual(STEP * STEP + 1e-9);
  });

  it("leaves a hole open when the camera sees points behind it (an opening, not a plain surface)", () => {
    const sheet = sheetWithHole(0.5);
    const { mesh, report } = closeEnclosedHoles(sheet, cloud(0.5, true), STEP, OPTIONS);
    expect(report).toMatchObject({ closed: 0, seeThrough: 1 });
    expect(mesh.indices.length).toBe(sheet.indices.length);
  });

  it("never tents over the outer border of an open surface", () => {
    const sheet = sheetWithHole(0); // no hole: only the outer border, planar and long
    const { mesh, report } = closeEnclosedHoles(sheet, cloud(0, false), STEP, OPTIONS);
    expect(report).toMatchObject({ closed: 0, notInSurface: 1 });
    expect(mesh.indices.length).toBe(sheet.indices.length);
  });
});
