import { describe, expect, it } from "vitest";
import { coarserParams } from "../../../compute/stages/dense/pyramid.js";
import { windowOffsets } from "../../../compute/stages/dense/window.js";

describe("PatchMatch window patterns", () => {
  it("a square window holds every sample of its grid, a checkerboard the centre's colour of them over the same pixels", () => {
    const square = windowOffsets(3, 2, "square");
    const checker = windowOffsets(3, 2, "checker");
    expect(square.dx.length).toBe(49);
    expect(checker.dx.length).toBe(25);
    const pairs = (w: { dx: number[]; dy: number[] }) => w.dx.map((x, i) => `${x},${w.dy[i]}`);
    const squareSet = new Set(pairs(square));
    for (const [i, pair] of pairs(checker).entries()) {
      expect(squareSet.has(pair)).toBe(true);
      expect((checker.dx[i] / 2 + checker.dy[i] / 2) % 2 === 0).toBe(true);
    }
    // Same reach: the corners and the centre are samples of both.
    for (const pair of ["-6,-6", "6,-6", "-6,6", "6,6", "0,0"]) expect(pairs(checker)).toContain(pair);
    // Symmetric about the centre, so the window's plane fit is not pulled to one side.
    expect(checker.dx.reduce((a, b) => a + b, 0)).toBe(0);
    expect(checker.dy.reduce((a, b) => a + b, 0)).toBe(0);
  });

  it("the coarser levels take the coarse pattern, the working level keeps its own", () => {
    const fine = { pyramidLevels: 2, windowPattern: "square" as const, coarseWindowPattern: "checker" as const };
    const coarse = coarserParams(fine);
    expect(coarse.windowPattern).toBe("checker");
    expect(coarserParams(coarse).windowPattern).toBe("checker");
    expect(fine.windowPattern).toBe("square");
    expect(coarserParams({ pyramidLevels: 1, windowPattern: "square" as const }).windowPattern).toBe("square");
  });
});
