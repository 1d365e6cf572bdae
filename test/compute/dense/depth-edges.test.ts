import { describe, expect, it } from "vitest";
import { depthEdgeMask, frontalPlaneMask, type PlaneMap } from "../../../compute/stages/dense/depth-edges.js";
import { createRng } from "../../../compute/math/random.js";

const WIDTH = 120;
const HEIGHT = 90;
const FOCAL = 100;
const CX = WIDTH / 2;
const CY = HEIGHT / 2;

/** A map of planes n·X = ρ (camera frame), the one of each pixel chosen by `planeOf(col, row)`. */
function planeMap(planeOf: (col: number, row: number) => { n: [number, number, number]; rho: number }): PlaneMap {
  const depth = new Float32Array(WIDTH * HEIGHT);
  const normal = new Float32Array(3 * WIDTH * HEIGHT);
  for (let row = 0; row < HEIGHT; row++) {
    for (let col = 0; col < WIDTH; col++) {
      const { n, rho } = planeOf(col, row);
      const p = row * WIDTH + col;
      depth[p] = rho / (n[0] * ((col + 0.5 - CX) / FOCAL) + n[1] * ((row + 0.5 - CY) / FOCAL) + n[2]);
      normal.set(n, 3 * p);
    }
  }
  return { width: WIDTH, height: HEIGHT, focal: FOCAL, cx: CX, cy: CY, depth, normal };
}

function marked(mask: Uint8Array): number {
  return mask.reduce((s, v) => s + v, 0);
}

describe("depth edges of a level's planes", () => {
  it("marks the band within the window's reach of a step in depth, and nothing else", () => {
    // A wall at depth 10 with a 2 % relief standing out from column 60 on.
    const map = planeMap((col) => ({ n: [0, 0, -1], rho: col < 60 ? -10 : -9.8 }));
    const mask = depthEdgeMask(map, 6, 0.01, 1);
    for (let row = 1; row < HEIGHT - 1; row++) {
      for (let col = 1; col < WIDTH - 1; col++) {
        const expected = col >= 54 && col < 66 ? 1 : 0;
        expect(mask[row * WIDTH + col], `pixel (${col}, ${row})`).toBe(expected);
      }
    }
    // A 2 % step is no edge to a 3 % tolerance.
    expect(marked(depthEdgeMask(map, 6, 0.03, 1))).toBe(0);
  });

  it("does not mark a floor seen at a grazing angle, whose depth changes fast across the image", () => {
    // A floor 1.5 below the camera (y down), the camera pitched 30° down: the top row sees it
    // 6.6° from grazing at depth 13, the bottom row at depth 1.7.
    const pitch = (30 * Math.PI) / 180;
    const floor = planeMap(() => ({ n: [0, -Math.cos(pitch), -Math.sin(pitch)], rho: -1.5 }));
    const columnDepths = floor.depth.filter((_, p) => p % WIDTH === 60);
    expect(Math.min(...columnDepths)).toBeGreaterThan(0);
    expect(Math.max(...columnDepths) / Math.min(...columnDepths)).toBeGreaterThan(5);
    expect(marked(depthEdgeMask(floor, 6, 0.001, 1))).toBe(0);
    // Depths ±1.5 % off along the rays of its grazing rows (the top 20, seen 6.6–16° from grazing),
    // as a plain floor's are: along the normal that is under 0.5 % of the depth, no edge at 1 %.
    const rng = createRng(7);
    const noisy = { ...floor, depth: floor.depth.map((d, p) => (p < 21 * WIDTH ? d * (1 + 0.015 * (2 * rng() - 1)) : d)) };
    expect(marked(depthEdgeMask(noisy, 6, 0.01, 1))).toBe(0);
    // The same floor with a kerb: 5 % nearer from row 45 down, marked within the reach of it.
    const kerb = planeMap((_, row) => ({ n: [0, -Math.cos(pitch), -Math.sin(pitch)], rho: row < 45 ? -1.5 : -1.425 }));
    const mask = depthEdgeMask(kerb, 6, 0.01, 1);
    for (let p = 0; p < mask.length; p++) {
      const row = Math.floor(p / WIDTH);
      const col = p % WIDTH;
      if (row < 1 || row >= HEIGHT - 1 || col < 1 || col >= WIDTH - 1) expect(mask[p]).toBe(0);
      else expect(mask[p], `pixel (${col}, ${row})`).toBe(row >= 39 && row < 51 ? 1 : 0);
    }
  });

  it("marks the planes that face the camera and not a floor seen at a grazing angle", () => {
    // A wall facing the camera: every ray meets it within 31° of its normal (cosine ≥ 0.86).
    const wall = planeMap(() => ({ n: [0, 0, -1], rho: -10 }));
    expect(marked(frontalPlaneMask(wall, 0.8, 1))).toBe((WIDTH - 2) * (HEIGHT - 2));
    // The same wall turned 60° about the vertical: its rays meet it 29–89° from its normal, so a
    // cosine of 0.8 (37°) keeps only the columns on the side turned toward the camera.
    const turn = (60 * Math.PI) / 180;
    const turned = planeMap(() => ({ n: [Math.sin(turn), 0, -Math.cos(turn)], rho: -10 }));
    const kept = frontalPlaneMask(turned, 0.8, 1);
    for (let col = 1; col < WIDTH - 1; col++) {
      const rx = (col + 0.5 - CX) / FOCAL, ry = (45.5 - CY) / FOCAL;
      const cosine = Math.abs(Math.sin(turn) * rx - Math.cos(turn)) / Math.hypot(rx, ry, 1);
      expect(kept[45 * WIDTH + col], `column ${col}, cosine ${cosine.toFixed(3)}`).toBe(cosine >= 0.8 ? 1 : 0);
    }
    // A floor 1.5 below a camera pitched 10° down (its rows 14° up to 34° down) is seen at most 34°
    // from grazing (cosine 0.56): nothing is frontal at 0.6.
    const pitch = (10 * Math.PI) / 180;
    const floor = planeMap(() => ({ n: [0, -Math.cos(pitch), -Math.sin(pitch)], rho: -1.5 }));
    expect(marked(frontalPlaneMask(floor, 0.6, 1))).toBe(0);
    // Its normals pointing away from the camera say the same: the cosine's sign does not count.
    const flipped = { ...floor, normal: floor.normal.map((v) => -v) };
    expect(marked(frontalPlaneMask(flipped, 0.6, 1))).toBe(0);
    expect(marked(frontalPlaneMask({ ...wall, normal: wall.normal.map((v) => -v) }, 0.8, 1))).toBe((WIDTH - 2) * (HEIGHT - 2));
  });
});
