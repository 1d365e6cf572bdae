import { describe, expect, it } from "vitest";
import type { Mesh } from "../../../compute/scene/index.js";
import { run } from "../../../compute/stages/mesh/index.js";
import { boxDistance, boxPoints, colorAt, planePoints, spherePoints } from "./fixtures.js";

/** Edges used by exactly one face (holes and open borders) and by more than two (non-manifold). */
function edgeCounts(mesh: Mesh): { boundary: number; nonManifold: number; total: number } {
  const uses = new Map<number, number>();
  const idx = mesh.indices;
  for (let f = 0; f < idx.length; f += 3) {
    for (let e = 0; e < 3; e++) {
      const a = idx[f + e], b = idx[f + ((e + 1) % 3)];
      const key = Math.min(a, b) * mesh.vertexCount + Math.max(a, b);
      uses.set(key, (uses.get(key) ?? 0) + 1);
    }
  }
  let boundary = 0, nonManifold = 0;
  for (const n of uses.values()) {
    if (n === 1) boundary++;
    if (n > 2) nonManifold++;
  }
  return { boundary, nonManifold, total: uses.size };
}

/** Six times the signed volume: positive when faces are counter-clockwise seen from outside. */
function signedVolume6(mesh: Mesh): number {
  const p = mesh.positions;
  let sum = 0;
  for (let f = 0; f < mesh.faceCount; f++) {
    const [a, b, c] = [0, 1, 2].map((k) => 3 * mesh.indices[3 * f + k]);
    sum += p[a] * (p[b + 1] * p[c + 2] - p[b + 2] * p[c + 1]) - p[a + 1] * (p[b] * p[c + 2] - p[b + 2] * p[c]) + p[a + 2] * (p[b] * p[c + 1] - p[b + 1] * p[c]);
  }
  return sum;
}

function faceCentroid(mesh: Mesh, f: number): number[] {
  return [0, 1, 2].map((a) => (mesh.positions[3 * mesh.indices[3 * f] + a] + mesh.positions[3 * mesh.indices[3 * f + 1] + a] + mesh.positions[3 * mesh.indices[3 * f + 2] + a]) / 3);
}

function checkWellFormed(mesh: Mesh): void {
  expect(mesh.positions.length).toBe(3 * mesh.vertexCount);
  expect(mesh.normals.length).toBe(3 * mesh.vertexCount);
  expect(mesh.colors.length).toBe(3 * mesh.vertexCount);
  expect(mesh.indices.length).toBe(3 * mesh.faceCount);
  for (let i = 0; i < mesh.indices.length; i++) expect(mesh.indices[i]).toBeLessThan(mesh.vertexCount);
  for (let v = 0; v < mesh.vertexCount; v++) {
    expect(Math.hypot(mesh.normals[3 * v], mesh.normals[3 * v + 1], mesh.normals[3 * v + 2])).toBeCloseTo(1, 4);
  }
}

describe("mesh stage", () => {
  const centre = [0.3, -0.2, 0.5];

  it("meshes a noisy sphere: vertices within 0.3 voxel of the true surface, closed, outward, coloured, within budget", async () => {
    const cloud = spherePoints(20_000, 1, centre, 0.003);
    const { mesh, report } = await run({ cloud, views: [] }, { faceBudget: 20_000 });
    const h = report.counts.voxelSize;
    checkWellFormed(mesh);
    expect(mesh.faceCount).toBeLessThanOrEqual(20_000);
    expect(mesh.faceCount).toBeGreaterThan(15_000);
    let worst = 0;
    let outward = 0;
    let colourError = 0;
    for (let v = 0; v < mesh.vertexCount; v++) {
      const d = [0, 1, 2].map((a) => mesh.positions[3 * v + a] - centre[a]);
      const r = Math.hypot(d[0], d[1], d[2]);
      worst = Math.max(worst, Math.abs(r - 1));
      if ((d[0] * mesh.normals[3 * v] + d[1] * mesh.normals[3 * v + 1] + d[2] * mesh.normals[3 * v + 2]) / r > 0.9) outward++;
      const expected = colorAt(mesh.positions[3 * v], mesh.positions[3 * v + 1], mesh.positions[3 * v + 2]);
      for (let a = 0; a < 3; a++) colourError = Math.max(colourError, Math.abs(mesh.colors[3 * v + a] - expected[a]));
    }
    // Tolerance: 0.3 voxel (the tangent-plane average is biased inwards by about d²/2ρ on a
    // curved surface, d ≤ 2.5 voxels; noise σ is 0.12 voxel).
    expect(worst).toBeLessThan(0.3 * h);
    expect(outward).toBeGreaterThanOrEqual(0.999 * mesh.vertexCount);
    expect(signedVolume6(mesh)).toBeGreaterThan(0);
    expect(signedVolume6(mesh) / 6).toBeCloseTo((4 / 3) * Math.PI, 1);
    // Colours vary by about 100 per unit of position; a voxel is 0.025.
    expect(colourError).toBeLessThanOrEqual(8);
    const edges = edgeCounts(mesh);
    expect(edges.nonManifold).toBe(0);
    expect(edges.boundary).toBeLessThanOrEqual(0.001 * edges.total);
  });

  it("meshes a box: half the vertices within 0.2 voxel, 95% within 0.6, all within 2 (edges and corners are rounded off), honouring a small budget", async () => {
    const half: [number, number, number] = [1, 0.6, 0.8];
    const cloud = boxPoints(30_000, half, 0.003);
    const { mesh, report } = await run({ cloud, views: [] }, { faceBudget: 3000 });
    const h = report.counts.voxelSize;
    checkWellFormed(mesh);
    expect(mesh.faceCount).toBeLessThanOrEqual(3000);
    const errors = Array.from({ length: mesh.vertexCount }, (_, v) => boxDistance(mesh.positions.subarray(3 * v, 3 * v + 3), half) / h).sort((a, b) => a - b);
    // The simplifier keeps vertices on the rounded edges and corners, so the median is above the faces' own error.
    expect(errors[errors.length >> 1]).toBeLessThan(0.2);
    expect(errors[Math.floor(0.95 * errors.length)]).toBeLessThan(0.6);
    expect(errors[errors.length - 1]).toBeLessThan(2);
    expect(signedVolume6(mesh) / 6).toBeCloseTo(8 * half[0] * half[1] * half[2], 1);
    const edges = edgeCounts(mesh);
    expect(edges.boundary).toBeLessThanOrEqual(0.005 * edges.total);
  });

  it("leaves an open plane patch open: no balloon, every face within trimDistance of the points", async () => {
    const cloud = planePoints(10_000, 1, 0.002);
    const { mesh, report } = await run({ cloud, views: [] }, { faceBudget: 50_000 });
    const trim = report.counts.trimDistance;
    checkWellFormed(mesh);
    expect(mesh.faceCount).toBeGreaterThan(1000);
    // Brute force, independent of the stage's grid, on every 4th face to keep the test quick.
    const p = cloud.positions;
    let farFaces = 0;
    for (let f = 0; f < mesh.faceCount; f++) {
      const c = faceCentroid(mesh, f);
      if (f % 4 === 0) {
        let best = Infinity;
        for (let i = 0; i < cloud.count; i++) best = Math.min(best, (p[3 * i] - c[0]) ** 2 + (p[3 * i + 1] - c[1]) ** 2 + (p[3 * i + 2] - c[2]) ** 2);
        if (Math.sqrt(best) > trim) farFaces++;
      }
      // Nothing past the patch's edge by more than the trim distance, nothing off the plane.
      expect(Math.max(Math.abs(c[0]), Math.abs(c[2])) - 1).toBeLessThan(trim);
      expect(Math.abs(c[1])).toBeLessThan(0.3 * report.counts.voxelSize);
    }
    // Faces over sampling gaps inside the patch may be kept (see trimFaces); allow 1% of them.
    expect(farFaces).toBeLessThanOrEqual(0.01 * (mesh.faceCount / 4));
    let up = 0;
    for (let v = 0; v < mesh.vertexCount; v++) if (mesh.normals[3 * v + 1] > 0.9) up++;
    expect(up).toBe(mesh.vertexCount);
    expect(edgeCounts(mesh).boundary).toBeGreaterThan(0);
  });

  it("returns an empty mesh with a warning when there is nothing to mesh", async () => {
    const { mesh, report } = await run({ cloud: spherePoints(5, 1, centre, 0), views: [] });
    expect(mesh.faceCount).toBe(0);
    expect(report.warnings.length).toBeGreaterThan(0);
  });
});
