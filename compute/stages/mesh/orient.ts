/**
 * @module Safety net for the orientation of the input normals. The signed distance needs
 * normals pointing out of the surface, i.e. towards the side the cameras are on; the dense
 * stage's normals face the camera that saw each point, but a normal that faces away from
 * every registered camera cannot be right (no camera saw that side), so it is flipped. Normals
 * facing at least one camera are left alone: "nearest camera" rules would wrongly flip points
 * seen across thin structures.
 */
import type { RegisteredView } from "../../scene/index.js";
import { cameraCenter } from "../../scene/index.js";

export function orientTowardCameras(positions: Float32Array, normals: Float32Array, count: number, views: RegisteredView[]): { normals: Float32Array; flipped: number } {
  if (views.length === 0) return { normals, flipped: 0 };
  const centres = new Float64Array(3 * views.length);
  views.forEach((view, v) => centres.set(cameraCenter(view.camFromWorld), 3 * v));
  const out = new Float32Array(normals);
  let flipped = 0;
  for (let i = 0; i < count; i++) {
    const px = positions[3 * i], py = positions[3 * i + 1], pz = positions[3 * i + 2];
    const nx = normals[3 * i], ny = normals[3 * i + 1], nz = normals[3 * i + 2];
    let facesACamera = false;
    for (let v = 0; v < views.length && !facesACamera; v++) {
      facesACamera = nx * (centres[3 * v] - px) + ny * (centres[3 * v + 1] - py) + nz * (centres[3 * v + 2] - pz) > 0;
    }
    if (facesACamera) continue;
    out[3 * i] = -nx; out[3 * i + 1] = -ny; out[3 * i + 2] = -nz;
    flipped++;
  }
  return { normals: out, flipped };
}
