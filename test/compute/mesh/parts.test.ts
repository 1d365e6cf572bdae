import { describe, expect, it } from "vitest";
import type { RegisteredView } from "../../../compute/scene/index.js";
import { BrickLattice } from "../../../compute/stages/mesh/brick-lattice.js";
import { chooseVoxelSize, DEFAULTS, run } from "../../../compute/stages/mesh/index.js";
import { orientTowardCameras } from "../../../compute/stages/mesh/orient.js";
import { medianSpacing, occupiedCells, PointGrid } from "../../../compute/stages/mesh/point-grid.js";
import { ReliefPoints, reliefNear } from "../../../compute/stages/mesh/plane-completion.js";
import { createRng } from "../../../compute/math/random.js";
import { cloudDepthImages, withMorePoints } from "../../../compute/stages/mesh/see-through.js";
import { VoxelHash } from "../../../compute/stages/mesh/voxel-hash.js";
import { planePoints, rng, spherePoints } from "./fixtures.js";

describe("mesh/voxel-hash", () => {
  it("agrees with a Map on random inserts and lookups, through several rehashes", () => {
    const random = rng(11);
    const hash = new VoxelHash(4);
    const reference = new Map<string, number>();
    for (let n = 0; n < 20_000; n++) {
      const [i, j, k] = [0, 1, 2].map(() => Math.floor(random() * 60) - 10);
      const key = `${i},${j},${k}`;
      const e = hash.insert(i, j, k);
      if (!reference.has(key)) reference.set(key, e);
      expect(e).toBe(reference.get(key));
    }
    expect(hash.count).toBe(reference.size);
    for (const [key, e] of reference) {
      const [i, j, k] = key.split(",").map(Number);
      expect(hash.find(i, j, k)).toBe(e);
      expect([hash.ii[e], hash.jj[e], hash.kk[e]]).toEqual([i, j, k]);
    }
    expect(hash.find(1000, 0, 0)).toBe(-1);
  });
});

describe("mesh/brick-lattice", () => {
  it("gives every node one id whose coordinates read back, and −1 outside existing bricks", () => {
    const lattice = new BrickLattice([0, 0, 0], 1, 2);
    const out = new Int32Array(3);
    const ids = new Set<number>();
    for (let i = 3; i < 13; i++) for (let j = 0; j < 6; j++) for (let k = 5; k < 9; k++) {
      const id = lattice.nodeOrCreate(i, j, k);
      ids.add(id);
      lattice.coordinates(id, out);
      expect(Array.from(out)).toEqual([i, j, k]);
      expect(lattice.node(i, j, k)).toBe(id);
    }
    expect(ids.size).toBe(10 * 6 * 4);
    expect(lattice.node(100, 100, 100)).toBe(-1);
  });
});

describe("mesh/point-grid", () => {
  it("finds the same nearest distances and radius neighbours as brute force", () => {
    const cloud = spherePoints(3000, 1, [0, 0, 0], 0.01, 5);
    const grid = new PointGrid(cloud.positions, cloud.count, 0.05);
    const random = rng(3);
    const p = cloud.positions;
    for (let q = 0; q < 200; q++) {
      const x = 2.4 * random() - 1.2, y = 2.4 * random() - 1.2, z = 2.4 * random() - 1.2;
      let best = Infinity;
      let within = 0;
      for (let i = 0; i < cloud.count; i++) {
        const d2 = (p[3 * i] - x) ** 2 + (p[3 * i + 1] - y) ** 2 + (p[3 * i + 2] - z) ** 2;
        best = Math.min(best, d2);
        if (d2 <= 0.08 ** 2) within++;
      }
      const found = grid.nearestDistance2(x, y, z, 0.3);
      if (best <= 0.09) expect(found).toBeCloseTo(best, 10);
      else expect(found).toBe(Infinity);
      let counted = 0;
      grid.forEachWithin(x, y, z, 0.08, () => { counted++; });
      expect(counted).toBe(within);
      expect(grid.hasPointWithin(x, y, z, 0.08)).toBe(within > 0);
      // The completions' clearance test: the same answer as the nearest distance's.
      for (const radius of [0.02, 0.08, 0.2]) expect(grid.hasPointNearer(x, y, z, radius)).toBe(grid.nearestDistance2(x, y, z, radius) < radius * radius);
    }
  });

  it("counts relief in a grid of its own as reliefNear does over every point, at any radius", () => {
    // A floor z = 0 (on a plane of its own), a wall x = 0.5 (its own plane, perpendicular), and
    // scattered relief: boxes' points standing on the floor.
    const random = rng(11);
    const positions: number[] = [], planeOf: number[] = [];
    for (let k = 0; k < 4000; k++) { positions.push(2 * random() - 1, 2 * random() - 1, 0.004 * (random() - 0.5)); planeOf.push(0); }
    for (let k = 0; k < 1000; k++) { positions.push(0.5, 2 * random() - 1, random()); planeOf.push(1); }
    for (let k = 0; k < 1500; k++) { positions.push(2 * random() - 1, 2 * random() - 1, 0.3 * random()); planeOf.push(-1); }
    const count = positions.length / 3;
    const cloud = new Float32Array(positions);
    const of = Int16Array.from(planeOf);
    const floor = { normal: [0, 0, 1] as [number, number, number], d: 0, inliers: new Uint32Array(0) };
    const planes = [floor, { normal: [1, 0, 0] as [number, number, number], d: 0.5, inliers: new Uint32Array(0) }];
    const dense = new PointGrid(cloud, count, 0.02);
    let agreed = 0, near = 0;
    for (const radius of [0.03, 0.1, 0.25]) {
      const relief = new ReliefPoints(cloud, count, of, planes, floor, 0.01, radius);
      for (let q = 0; q < 150; q++) {
        const p = [2 * random() - 1, 2 * random() - 1, 0.2 * random()];
        for (const minPoints of [1, 3, 12]) {
          const expected = reliefNear(dense, cloud, of, planes, p, floor, 0.01, radius, minPoints);
          expect(relief.near(p, radius, minPoints)).toBe(expected);
          agreed++;
          if (expected) near++;
        }
      }
    }
    // Both answers occur.
    expect(near).toBeGreaterThan(0.1 * agreed);
    expect(near).toBeLessThan(0.9 * agreed);
  });

  it("measures the median spacing of a regular grid of points as its pitch", () => {
    const n = 40;
    const positions = new Float32Array(3 * n * n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) positions.set([i * 0.1, 2, j * 0.1], 3 * (i * n + j));
    expect(medianSpacing(positions, n * n)).toBeCloseTo(0.1, 5);
  });

  it("measures the same spacing with a few far outliers present", () => {
    const n = 40;
    const positions = new Float32Array(3 * (n * n + 3));
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) positions.set([i * 0.1, 2, j * 0.1], 3 * (i * n + j));
    positions.set([1e4, 0, 0, -1e4, 5e3, 0, 0, 0, 1e4], 3 * n * n);
    expect(medianSpacing(positions, n * n + 3)).toBeCloseTo(0.1, 5);
  });

  it("takes the median of the sampled points' nearest-neighbour distances exactly, as a brute-force search finds them", () => {
    // An uneven cloud: a noisy sheet, a dense blob, exact duplicates (distance 0, left out) and strays.
    const rng = createRng(11);
    const count = 9_000;
    const positions = new Float32Array(3 * count);
    for (let i = 0; i < count; i++) {
      const kind = i % 10;
      const x = kind < 6 ? rng() * 4 : kind < 9 ? 1 + rng() * 0.2 : rng() * 40 - 20;
      const y = kind < 6 ? 0.01 * rng() : kind < 9 ? 1 + rng() * 0.2 : rng() * 40 - 20;
      const z = kind < 6 ? rng() * 4 : kind < 9 ? 1 + rng() * 0.2 : rng() * 40 - 20;
      positions.set([x, y, z], 3 * i);
    }
    for (let i = 0; i < 300; i++) positions.copyWithin(3 * (count - 1 - i), 3 * i, 3 * i + 3);
    // The definition, by brute force: the sample of every step-th point, neighbours within 4 × √(area / count) of the robust box.
    const sampleSize = 500;
    const step = Math.max(1, Math.floor(count / sampleSize));
    const sampled = Array.from({ length: Math.ceil(count / step) }, (_, k) => k * step);
    const extent = [0, 1, 2].map((a) => {
      const values = Array.from({ length: Math.ceil(count / Math.max(1, Math.floor(count / (4 * sampleSize)))) }, (_, k) => positions[3 * k * Math.max(1, Math.floor(count / (4 * sampleSize))) + a]).sort((p, q) => p - q);
      return values[Math.floor(0.98 * (values.length - 1))] - values[Math.floor(0.02 * (values.length - 1))];
    });
    const area = 2 * (extent[0] * extent[1] + extent[1] * extent[2] + extent[2] * extent[0]);
    const radius = 4 * Math.sqrt(area / count);
    const distances = sampled.flatMap((i) => {
      let best = Infinity;
      for (let j = 0; j < count; j++) {
        if (j === i) continue;
        const dx = positions[3 * j] - positions[3 * i], dy = positions[3 * j + 1] - positions[3 * i + 1], dz = positions[3 * j + 2] - positions[3 * i + 2];
        best = Math.min(best, dx * dx + dy * dy + dz * dz);
      }
      return best <= radius * radius && best > 0 ? [Math.sqrt(best)] : [];
    }).sort((p, q) => p - q);
    expect(medianSpacing(positions, count, sampleSize)).toBe(distances[distances.length >> 1]);
  });
});

describe("mesh/voxel size", () => {
  it("is the finest size unless the cells the points occupy (counted at a coarser probe size) predict more faces than oversample × budget", () => {
    expect(chooseVoxelSize(0.02, 0.08, 1000, { ...DEFAULTS, faceBudget: 1_000_000 })).toBe(0.02);
    // 62.5k cells of 0.08 → 1M cells of 0.02 → about 2M faces; the budget allows 2 × 50k, so 20× fewer cells.
    const coarse = chooseVoxelSize(0.02, 0.08, 62_500, { ...DEFAULTS, faceBudget: 50_000 });
    expect(coarse).toBeCloseTo(0.02 * Math.sqrt(20), 10);
  });

  it("counts occupied cells: a 1×1 square sampled densely covers about 1/h² cells of size h", () => {
    const cloud = planePoints(40_000, 0.5, 0);
    const cells = occupiedCells(cloud.positions, cloud.count, 0.05);
    expect(cells).toBeGreaterThanOrEqual(400);
    expect(cells).toBeLessThanOrEqual(441 * 2);
  });

  it("keeps the face budget on a dense cloud by coarsening the voxels before extraction", async () => {
    const cloud = spherePoints(60_000, 1, [0, 0, 0], 0.001, 9);
    const { mesh, report } = await run({ cloud, views: [] }, { faceBudget: 5000 });
    expect(mesh.faceCount).toBeLessThanOrEqual(5000);
    expect(report.counts.extractedFaces).toBeLessThanOrEqual(1.5 * DEFAULTS.oversample * 5000);
    expect(report.counts.extractedFaces).toBeGreaterThan(5000);
  });
});

function lookingAt(centre: [number, number, number]): RegisteredView {
  // Only the camera centre matters to orientation: R = I, t = −C.
  return { imageIndex: 0, name: "cam", intrinsics: { width: 100, height: 100, focal: 100, cx: 50, cy: 50, k1: 0, k2: 0 }, camFromWorld: { R: new Float64Array([1, 0, 0, 0, 1, 0, 0, 0, 1]), t: new Float64Array(centre.map((c) => -c)) } };
}

describe("mesh/orientation", () => {
  it("flips only normals that face away from every camera", () => {
    const cloud = planePoints(100, 1, 0);
    for (let i = 0; i < 50; i++) cloud.normals[3 * i + 1] = -1;
    const { normals, flipped } = orientTowardCameras(cloud.positions, cloud.normals, cloud.count, [lookingAt([0, 5, 0]), lookingAt([3, 4, 1])]);
    expect(flipped).toBe(50);
    for (let i = 0; i < cloud.count; i++) expect(normals[3 * i + 1]).toBe(1);
    expect(cloud.normals[1]).toBe(-1); // the input is not modified
  });

  it("meshes a plane whose normals are half flipped, given the cameras above it", async () => {
    const cloud = planePoints(4000, 1, 0.002);
    for (let i = 0; i < cloud.count; i += 2) cloud.normals[3 * i + 1] = -1;
    const { mesh, report } = await run({ cloud, views: [lookingAt([0, 3, 0])] });
    expect(report.counts.normalsFlipped).toBe(2000);
    expect(mesh.faceCount).toBeGreaterThan(1000);
    for (let v = 0; v < mesh.vertexCount; v++) expect(mesh.normals[3 * v + 1]).toBeGreaterThan(0.9);
  });
});

describe("mesh/see-through depth images", () => {
  it("grown by appended points, equal the whole cloud's", () => {
    const cloud = spherePoints(20_000, 1, [0, 0, 0], 0.01, 5);
    const view = (x: number): RegisteredView => ({ imageIndex: 0, name: `c${x}`, intrinsics: { width: 640, height: 480, focal: 500, cx: 320, cy: 240, k1: 0, k2: 0 }, camFromWorld: { R: new Float64Array([1, 0, 0, 0, 1, 0, 0, 0, 1]), t: new Float64Array([-x, 0, 4]) } });
    const views = [view(-1), view(0), view(1.5)];
    const whole = cloudDepthImages(cloud.positions, cloud.count, views);
    const grown = withMorePoints(cloudDepthImages(cloud.positions, 12_000, views), cloud.positions, 12_000, cloud.count);
    const firstOnly = cloudDepthImages(cloud.positions, 12_000, views);
    for (let k = 0; k < views.length; k++) {
      expect(grown[k].depth).toEqual(whole[k].depth);
      // The appended points matter: some pixels are nearer or newly covered.
      expect(firstOnly[k].depth).not.toEqual(whole[k].depth);
    }
  });
});
