import { describe, expect, it } from "vitest";
import { boundingSphere, frustumPlanes, sphereMeetsFrustum } from "../../../compute/geometry/frustum.js";
import { angleAxisToMatrix } from "../../../compute/geometry/rotation.js";
import { createRng, gaussian } from "../../../compute/math/random.js";

/** Pixel of X in a camera without distortion, or null behind it. */
function project(R: Float64Array, t: Float64Array, f: number, cx: number, cy: number, X: ArrayLike<number>): [number, number] | null {
  const z = R[6] * X[0] + R[7] * X[1] + R[8] * X[2] + t[2];
  if (z <= 0) return null;
  return [(f * (R[0] * X[0] + R[1] * X[1] + R[2] * X[2] + t[0])) / z + cx, (f * (R[3] * X[0] + R[4] * X[1] + R[5] * X[2] + t[1])) / z + cy];
}

describe("sphere against frustum", () => {
  it("never says no when a point of the sphere projects into the image, and says no for most clusters it cannot see", () => {
    const rng = createRng(3);
    const [width, height, f, cx, cy] = [640, 480, 500, 330, 235];
    let visibleClusters = 0;
    let skipped = 0;
    let invisible = 0;
    for (let trial = 0; trial < 400; trial++) {
      const R = angleAxisToMatrix([0.6 * gaussian(rng), 0.6 * gaussian(rng), 0.6 * gaussian(rng)]);
      const t = new Float64Array([gaussian(rng), gaussian(rng), 4 + gaussian(rng)]);
      // A cluster of 30 points round a random centre, 0.1–1 across.
      const centre = [4 * gaussian(rng), 4 * gaussian(rng), 4 * gaussian(rng)];
      const spread = 0.1 + 0.9 * rng();
      const xyz = new Float64Array(90);
      for (let p = 0; p < 30; p++) for (let a = 0; a < 3; a++) xyz[3 * p + a] = centre[a] + spread * gaussian(rng);
      const sphere = boundingSphere(xyz, Array.from({ length: 30 }, (_, p) => p));
      const meets = sphereMeetsFrustum(sphere, frustumPlanes(R, t, f, cx, cy, width, height));
      let seen = false;
      for (let p = 0; p < 30 && !seen; p++) {
        const uv = project(R, t, f, cx, cy, xyz.subarray(3 * p, 3 * p + 3));
        seen = uv !== null && uv[0] >= 0 && uv[1] >= 0 && uv[0] < width && uv[1] < height;
      }
      if (seen) {
        visibleClusters++;
        expect(meets).toBe(true);
      } else {
        invisible++;
        if (!meets) skipped++;
      }
    }
    expect(visibleClusters).toBeGreaterThan(20);
    expect(skipped / invisible).toBeGreaterThan(0.5);
  });

  it("an empty sphere meets nothing", () => {
    const planes = frustumPlanes(new Float64Array([1, 0, 0, 0, 1, 0, 0, 0, 1]), new Float64Array(3), 500, 320, 240, 640, 480);
    expect(sphereMeetsFrustum(boundingSphere(new Float64Array(0), []), planes)).toBe(false);
    expect(sphereMeetsFrustum(new Float64Array([0, 0, 5, 0.1]), planes)).toBe(true);
    expect(sphereMeetsFrustum(new Float64Array([0, 0, -5, 0.1]), planes)).toBe(false);
  });
});
