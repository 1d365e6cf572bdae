import { describe, expect, it } from "vitest";
import { estimateEssential, fivePoint } from "../../../compute/geometry/essential.js";
import { estimateFundamental } from "../../../compute/geometry/fundamental.js";
import { estimateHomography } from "../../../compute/geometry/homography.js";
import { estimatePnp, p3p } from "../../../compute/geometry/pnp.js";
import { triangulateTwoView } from "../../../compute/geometry/triangulation.js";
import { identityTransform } from "../../../compute/geometry/types.js";
import { createRng } from "../../../compute/math/random.js";

const robust = { confidence: 0.99, maxIterations: 50, rng: createRng(1) };

describe("geometry on degenerate input fails as a value, never a throw or NaN pose", () => {
  it("identical correspondences", () => {
    const x = new Float64Array(40).fill(0.1);
    expect(fivePoint(x.subarray(0, 10), x.subarray(0, 10))).toEqual([]);
    const e = estimateEssential(x, x, 20, { ...robust, thresholdPx: 2, focal: 1000 });
    if (e) expect(e.E.every(Number.isFinite)).toBe(true);
    const f = estimateFundamental(x, x, 20, { ...robust, thresholdPx: 2 });
    if (f) expect(f.F.every(Number.isFinite)).toBe(true);
    const h = estimateHomography(x, x, 20, { ...robust, thresholdPx: 2 });
    if (h) expect(h.H.every(Number.isFinite)).toBe(true);
  });

  it("too few correspondences", () => {
    const x = new Float64Array([0, 0, 1, 1, 2, 0]);
    expect(estimateEssential(x, x, 3, { ...robust, thresholdPx: 2, focal: 1000 })).toBeNull();
    expect(estimateFundamental(x, x, 3, { ...robust, thresholdPx: 2 })).toBeNull();
    expect(estimateHomography(x, x, 3, { ...robust, thresholdPx: 2 })).toBeNull();
    expect(estimatePnp(x, new Float64Array(9), 3, { ...robust, thresholdPx: 2, focal: 1000 })).toBeNull();
  });

  it("P3P with coincident world points, and rays that do not meet", () => {
    const bearings = new Float64Array([0, 0, 1, 0.1, 0, 0.995, 0, 0.1, 0.995]);
    expect(p3p(bearings, new Float64Array([1, 1, 1, 1, 1, 1, 0, 0, 5]))).toEqual([]);
    const collinear = p3p(bearings, new Float64Array([0, 0, 5, 1, 0, 5, 2, 0, 5]));
    for (const pose of collinear) expect(pose.R.every(Number.isFinite) && pose.t.every(Number.isFinite)).toBe(true);
    // Two views with no baseline see the same ray: the point is at infinity.
    expect(triangulateTwoView(identityTransform(), identityTransform(), [0.1, 0.2], [0.1, 0.2])).toBeNull();
  });
});
