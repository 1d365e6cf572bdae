/**
 * The texture's data term prefers frontal views (compute/stages/texture/view-scan.ts, option
 * `frontalPower`): a small square seen straight on from a distance of 2 and at 60° from a
 * distance of 1.2, where the oblique view's projection is the larger (cos θ / d²: 0.5 / 1.2² =
 * 0.35 against 1 / 2² = 0.25 of the square's area, in focal lengths squared). By area alone
 * (Waechter et al.'s gradient magnitude integral on a photo of even gradient) the oblique view
 * textures the square; weighed by the resolution along the face's worst direction, the frontal
 * one does.
 */
import { describe, expect, it } from "vitest";
import type { Mesh, RegisteredView } from "../../../compute/scene/index.js";
import { DEFAULTS } from "../../../compute/stages/texture/index.js";
import { faceGeometry, scanView, type ScanOptions } from "../../../compute/stages/texture/view-scan.js";

const SIDE = 200;
const FOCAL = 200;

/** A square of side 0.2 at z = 0 around (0.5, 0.5), two triangles: small against the distances, so perspective barely varies across it. */
function square(): Mesh {
  const positions = Float32Array.from([0.4, 0.4, 0, 0.6, 0.4, 0, 0.6, 0.6, 0, 0.4, 0.6, 0]);
  return { vertexCount: 4, faceCount: 2, positions, colors: new Uint8Array(12), normals: Float32Array.from([0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1]), indices: Uint32Array.from([0, 1, 2, 0, 2, 3]) };
}

/** A camera at `centre` looking at `target` (x right, y down, z forward), row-major camFromWorld. */
function lookAt(index: number, centre: number[], target: number[]): RegisteredView {
  const sub = (a: number[], b: number[]) => a.map((v, i) => v - b[i]);
  const cross = (a: number[], b: number[]) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  const unit = (a: number[]) => a.map((v) => v / Math.hypot(...a));
  const z = unit(sub(target, centre));
  const x = unit(cross(z, [0, 1, 0.3]));
  const y = cross(z, x);
  const R = Float64Array.from([...x, ...y, ...z]);
  const t = Float64Array.from([0, 1, 2].map((r) => -(R[3 * r] * centre[0] + R[3 * r + 1] * centre[1] + R[3 * r + 2] * centre[2])));
  return { imageIndex: index, name: `view${index}`, intrinsics: { width: SIDE, height: SIDE, focal: FOCAL, cx: SIDE / 2, cy: SIDE / 2, k1: 0, k2: 0 }, camFromWorld: { R, t } };
}

/** A photo whose gradient is the same everywhere (a ramp along x), so only geometry ranks the views. */
function rampPhoto(): { rgb: Uint8Array; width: number; height: number; scale: number } {
  const rgb = new Uint8Array(3 * SIDE * SIDE);
  for (let y = 0; y < SIDE; y++) for (let x = 0; x < SIDE; x++) rgb.fill(Math.round(x / 2), 3 * (y * SIDE + x), 3 * (y * SIDE + x) + 3);
  return { rgb, width: SIDE, height: SIDE, scale: 1 };
}

function qualities(frontalPower: number): { frontal: Float32Array; oblique: Float32Array } {
  const mesh = square();
  const faces = faceGeometry(mesh);
  const centre = [0.5, 0.5, 0];
  const frontal = lookAt(0, [0.5, 0.5, 2], centre);
  const angle = (60 * Math.PI) / 180;
  const oblique = lookAt(1, [0.5 + 1.2 * Math.sin(angle), 0.5, 1.2 * Math.cos(angle)], centre);
  const options: ScanOptions = { depthTolerance: 0.01, minCosine: DEFAULTS.minCosine, grazingMinCosine: DEFAULTS.grazingMinCosine, borderPixels: 2, frontalPower };
  const a = scanView(mesh, faces, frontal, 0, rampPhoto(), options);
  const b = scanView(mesh, faces, oblique, 1, rampPhoto(), options);
  expect(Array.from(a.faces)).toEqual([0, 1]);
  expect(Array.from(b.faces)).toEqual([0, 1]);
  return { frontal: a.quality, oblique: b.quality };
}

describe("texture/data term", () => {
  it("textures a square from the frontal view, not from the closer oblique view whose projection is larger", () => {
    const byArea = qualities(0);
    for (const f of [0, 1]) expect(byArea.oblique[f]).toBeGreaterThan(byArea.frontal[f]);
    expect(DEFAULTS.frontalPower).toBe(2);
    const weighed = qualities(DEFAULTS.frontalPower);
    for (const f of [0, 1]) expect(weighed.frontal[f]).toBeGreaterThan(1.5 * weighed.oblique[f]);
  });
});
