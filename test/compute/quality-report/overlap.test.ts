/**
 * The quality report's overlap grid (compute/stages/quality-report/overlap.ts countViews) counts a
 * view over a ground cell only where the view's lens shows it: past the radius where the lens's
 * radial mapping folds over (geometry/camera.ts foldRadius2), a cell lands back inside the frame
 * by the polynomial, though the photo never showed it.
 */
import { describe, expect, it } from "vitest";
import type { RegisteredView } from "../../../compute/scene/index.js";
import { countViews } from "../../../compute/stages/quality-report/overlap.js";

describe("quality-report/overlap", () => {
  it("counts no view over a cell past its lens's fold", () => {
    // A camera at the origin looking along +z; two cells at z = 1 on the ground y = 0, 20° and 60°
    // off the axis. With k1 −0.26 the mapping folds at 48.5°: the 60° cell would land at 0.38 of the
    // focal from the centre, inside the 200-px frame.
    const view: RegisteredView = {
      imageIndex: 0,
      name: "barrel",
      intrinsics: { width: 200, height: 200, focal: 200, cx: 100, cy: 100, k1: -0.26, k2: 0 },
      camFromWorld: { R: new Float64Array([1, 0, 0, 0, 1, 0, 0, 0, 1]), t: new Float64Array(3) },
    };
    const near = Math.tan((20 * Math.PI) / 180), far = Math.tan((60 * Math.PI) / 180);
    const cellSize = far - near;
    const grid = { cellSize, width: 2, height: 1, westX: near - cellSize / 2, northZ: 1 - cellSize / 2, groundY: new Float64Array(2) };
    expect(Array.from(countViews(grid, [view]))).toEqual([1, 0]);
    // The same lens without its fold's limit would count it: the polynomial puts it in the frame.
    const d = 1 - 0.26 * far * far;
    expect(200 * d * far + 100).toBeLessThan(200);
  });
});
