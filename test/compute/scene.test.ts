import { describe, expect, it } from "vitest";
import { cameraCenter } from "../../compute/scene/camera.js";

describe("scene/camera", () => {
  it("computes the centre -Rᵀt of a rotated, translated camera", () => {
    // 90° about z: R maps world x to cam y.
    const R = new Float64Array([0, -1, 0, 1, 0, 0, 0, 0, 1]);
    const t = new Float64Array([1, 2, 3]);
    const c = cameraCenter({ R, t });
    // x_cam = R C + t = 0  =>  C = -Rᵀ t
    const back = [R[0] * c[0] + R[1] * c[1] + R[2] * c[2] + t[0], R[3] * c[0] + R[4] * c[1] + R[5] * c[2] + t[1], R[6] * c[0] + R[7] * c[1] + R[8] * c[2] + t[2]];
    for (const v of back) expect(Math.abs(v)).toBeLessThan(1e-12);
  });
});
