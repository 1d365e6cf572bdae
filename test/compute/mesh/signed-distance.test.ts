/**
 * The signed distance (compute/stages/mesh/signed-distance.ts), summed in two halves: the second
 * on a worker thread or on this one, the same lattice to the bit; and its values, the distance to
 * the points' tangent plane.
 */
import { describe, expect, it } from "vitest";
import { buildSignedDistance, type LatticeSums, type SignedDistanceTask } from "../../../compute/stages/mesh/signed-distance.js";
import { WorkerPool } from "../../../compute/util/pool.js";

/** A tilted plane z = 0.3·x + 0.1·y + 0.2, sampled every 0.01 over [-1, 1]², with its unit normal. */
function tiltedPlane() {
  const positions: number[] = [];
  for (let y = -1; y <= 1 + 1e-9; y += 0.01) for (let x = -1; x <= 1 + 1e-9; x += 0.01) positions.push(x, y, 0.3 * x + 0.1 * y + 0.2);
  const count = positions.length / 3;
  const length = Math.hypot(-0.3, -0.1, 1);
  const normals = new Float32Array(3 * count);
  for (let i = 0; i < count; i++) normals.set([-0.3 / length, -0.1 / length, 1 / length], 3 * i);
  return { positions: new Float32Array(positions), normals, count, unit: [-0.3 / length, -0.1 / length, 1 / length] };
}

describe("mesh/signed-distance", () => {
  it("sums its second half on a worker to the same bits as on this thread, and measures the distance to the plane", async () => {
    const plane = tiltedPlane();
    const options = { spacing: 0.02, supportVoxels: 2.5, stride: 3 };
    const here = await buildSignedDistance(plane.positions, plane.normals, plane.count, options);
    const pool = new WorkerPool<SignedDistanceTask, LatticeSums>(new URL("../../../compute/stages/mesh/worker.ts", import.meta.url), { size: 1 });
    let there;
    try {
      there = await buildSignedDistance(plane.positions, plane.normals, plane.count, options, pool);
    } finally {
      await pool.close();
    }
    expect(there.brickCount).toBe(here.brickCount);
    expect(there.slotCount).toBe(here.slotCount);
    expect(there.value.subarray(0, there.slotCount)).toEqual(here.value.subarray(0, here.slotCount));
    expect(there.weight.subarray(0, there.slotCount)).toEqual(here.weight.subarray(0, here.slotCount));
    // Every node away from the sampled square's edge holds its distance to the plane.
    const ijk = new Int32Array(3);
    let checked = 0;
    for (let n = 0; n < here.slotCount; n++) {
      if (!(here.weight[n] > 0)) continue;
      here.coordinates(n, ijk);
      const x = here.origin[0] + ijk[0] * options.spacing, y = here.origin[1] + ijk[1] * options.spacing, z = here.origin[2] + ijk[2] * options.spacing;
      if (Math.abs(x) > 0.8 || Math.abs(y) > 0.8) continue;
      const distance = plane.unit[0] * x + plane.unit[1] * y + plane.unit[2] * (z - 0.2);
      expect(here.value[n]).toBeCloseTo(distance, 5);
      checked++;
    }
    expect(checked).toBeGreaterThan(10_000);
  });

  it("sums the second half here when the worker fails", async () => {
    const plane = tiltedPlane();
    const options = { spacing: 0.02, supportVoxels: 2.5, stride: 1 };
    const here = await buildSignedDistance(plane.positions, plane.normals, plane.count, options);
    const failing = { size: 1, run: () => Promise.reject(new Error("pool: a worker thread exited (code 1) before finishing its task")) };
    const fallen = await buildSignedDistance(plane.positions, plane.normals, plane.count, options, failing);
    expect(fallen.value.subarray(0, fallen.slotCount)).toEqual(here.value.subarray(0, here.slotCount));
  });
});
