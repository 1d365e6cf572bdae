import { describe, expect, it } from "vitest";
import { fillSmallHoles } from "../../../compute/stages/mesh/fill-holes.js";
import { boundaryEdges } from "./fixtures.js";

/**
 * An n×n grid of unit squares (two CCW triangles each, seen from +z), without the squares for
 * which `skip` is true; `lift` maps (x, y) to the vertex position (to fold the sheet).
 */
function grid(n: number, skip: (i: number, j: number) => boolean, lift: (x: number, y: number) => [number, number, number]) {
  const positions: number[] = [];
  for (let j = 0; j <= n; j++) for (let i = 0; i <= n; i++) positions.push(...lift(i, j));
  const at = (i: number, j: number): number => j * (n + 1) + i;
  const indices: number[] = [];
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
    if (skip(i, j)) continue;
    indices.push(at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j), at(i + 1, j + 1), at(i, j + 1));
  }
  return { positions: new Float32Array(positions), indices: new Uint32Array(indices) };
}

describe("mesh/fill-holes", () => {
  it("closes a small flat hole with consistently wound faces and leaves the outer border open", () => {
    const flat = grid(10, (i, j) => i >= 4 && i <= 5 && j >= 4 && j <= 5, (x, y) => [x, y, 0]);
    expect(boundaryEdges(flat.indices)).toBe(40 + 8);
    const { mesh, filled, fillFaces } = fillSmallHoles(flat, { maxEdges: 20, maxFlatness: 0.2 });
    expect(filled).toBe(1);
    expect(fillFaces).toBe(8);
    // Only the outer border (40 edges) is left, and every new face faces +z like the sheet.
    expect(boundaryEdges(mesh.indices)).toBe(40);
    const p = mesh.positions;
    for (let f = flat.indices.length; f < mesh.indices.length; f += 3) {
      const [a, b, c] = [mesh.indices[f], mesh.indices[f + 1], mesh.indices[f + 2]];
      const nz = (p[3 * b] - p[3 * a]) * (p[3 * c + 1] - p[3 * a + 1]) - (p[3 * b + 1] - p[3 * a + 1]) * (p[3 * c] - p[3 * a]);
      expect(nz).toBeGreaterThan(0);
    }
    // The new centre vertex sits in the middle of the hole.
    expect(Array.from(p.subarray(p.length - 3))).toEqual([5, 5, 0]);
  });

  it("leaves holes that are too long or not flat open", () => {
    const flat = grid(10, (i, j) => i >= 4 && i <= 5 && j >= 4 && j <= 5, (x, y) => [x, y, 0]);
    expect(fillSmallHoles(flat, { maxEdges: 6, maxFlatness: 0.2 }).filled).toBe(0);
    // A sheet folded by 90° along x = 5, the hole straddling the fold: its border is bent.
    const folded = grid(10, (i, j) => i >= 3 && i <= 6 && j >= 4 && j <= 5, (x, y) => (x <= 5 ? [x, y, 0] : [5, y, x - 5]));
    expect(fillSmallHoles(folded, { maxEdges: 40, maxFlatness: 0.2 }).filled).toBe(0);
  });

  it("closes a hole bent across the corner where two planes meet, to their line, and no other bent hole", () => {
    // The sheet folded by 90° along x = 5 (the floor z = 0, then the wall x = 5), the hole straddling the fold.
    const folded = grid(10, (i, j) => i >= 3 && i <= 6 && j >= 4 && j <= 5, (x, y) => (x <= 5 ? [x, y, 0] : [5, y, x - 5]));
    const floor = { normal: [0, 0, 1], d: 0 }, wall = { normal: [1, 0, 0], d: 5 };
    const creases = { planes: [floor, wall], maxOffPlanes: 0.5, maxRadius: 4 };
    const { mesh, filled, creases: closedOnCreases } = fillSmallHoles(folded, { maxEdges: 40, maxFlatness: 0.2, creases });
    expect(filled).toBe(1);
    expect(closedOnCreases).toBe(1);
    expect(boundaryEdges(mesh.indices)).toBe(40);
    // The fan's centre is on the corner's line, level with the hole's middle.
    expect(Array.from(mesh.positions.subarray(mesh.positions.length - 3))).toEqual([5, 5, 0]);
    // A corner of planes the hole does not follow, or one farther than maxRadius, closes nothing.
    const elsewhere = { planes: [floor, { normal: [1, 0, 0], d: 8 }], maxOffPlanes: 0.5, maxRadius: 4 };
    expect(fillSmallHoles(folded, { maxEdges: 40, maxFlatness: 0.2, creases: elsewhere }).filled).toBe(0);
    expect(fillSmallHoles(folded, { maxEdges: 40, maxFlatness: 0.2, creases: { ...creases, maxRadius: 1 } }).filled).toBe(0);
  });

  it("closes a pinhole whose border zigzags by less than maxDeviation around its plane", () => {
    // One missing square in a sheet whose vertices sit ±0.3 off z = 0 by the parity of x + y: the
    // hole's border is 0.3 off its plane at a radius of 0.77, bent by the relative rule alone.
    const zigzag = grid(10, (i, j) => i === 4 && j === 4, (x, y) => [x, y, (x + y) % 2 ? 0.3 : -0.3]);
    expect(fillSmallHoles(zigzag, { maxEdges: 20, maxFlatness: 0.2 }).filled).toBe(0);
    expect(fillSmallHoles(zigzag, { maxEdges: 20, maxFlatness: 0.2, maxDeviation: 0.2 }).filled).toBe(0);
    const { mesh, filled } = fillSmallHoles(zigzag, { maxEdges: 20, maxFlatness: 0.2, maxDeviation: 0.5 });
    expect(filled).toBe(1);
    expect(boundaryEdges(mesh.indices)).toBe(40);
  });

  it("closes pinholes that share a corner, each as its own loop", () => {
    // Squares (4, 4) and (5, 5) missing: their borders meet at the vertex (5, 5).
    const flat = grid(10, (i, j) => (i === 4 && j === 4) || (i === 5 && j === 5), (x, y) => [x, y, 0]);
    expect(boundaryEdges(flat.indices)).toBe(40 + 8);
    const { mesh, filled, fillFaces } = fillSmallHoles(flat, { maxEdges: 20, maxFlatness: 0.2 });
    expect(filled).toBe(2);
    expect(fillFaces).toBe(8);
    expect(boundaryEdges(mesh.indices)).toBe(40);
  });

  it("leaves the border of two pieces that touch at a corner open", () => {
    // Two 5 × 5 blocks meeting at the vertex (5, 5): their outer borders run round the surface.
    const pieces = grid(10, (i, j) => (i < 5) !== (j < 5), (x, y) => [x, y, 0]);
    expect(boundaryEdges(pieces.indices)).toBe(40);
    expect(fillSmallHoles(pieces, { maxEdges: 20, maxFlatness: 0.2 }).filled).toBe(0);
  });
});
