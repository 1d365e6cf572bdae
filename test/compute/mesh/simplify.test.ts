import { afterAll, describe, expect, it } from "vitest";
import { simplifyAhead, simplifyToBudget, type SimplifyResult, type SimplifyTask } from "../../../compute/stages/mesh/simplify.js";
import type { RawMesh } from "../../../compute/stages/mesh/surface-nets.js";
import type { MeshResult, MeshTask } from "../../../compute/stages/mesh/worker-task.js";
import { WorkerPool, type TaskRunner } from "../../../compute/util/pool.js";

/** A bumpy n × n grid of 2n² faces: edge collapses have an order to follow. */
function bumpyGrid(n: number): RawMesh {
  const positions = new Float32Array((n + 1) * (n + 1) * 3);
  for (let y = 0, k = 0; y <= n; y++) for (let x = 0; x <= n; x++, k += 3) {
    positions.set([x / n, y / n, 0.02 * Math.sin(0.37 * x) * Math.cos(0.23 * y)], k);
  }
  const indices = new Uint32Array(6 * n * n);
  for (let y = 0, k = 0; y < n; y++) for (let x = 0; x < n; x++, k += 6) {
    const a = y * (n + 1) + x, c = a + n + 1;
    indices.set([a, a + 1, c + 1, a, c + 1, c], k);
  }
  return { positions, indices };
}

const pool = new WorkerPool<MeshTask, MeshResult>(new URL("../../../compute/stages/mesh/worker.ts", import.meta.url), { size: 1 });
afterAll(() => pool.close());

/** The pool as the stage's simplify runner, counting the tasks it answered. */
function counted(): { runner: TaskRunner<SimplifyTask, SimplifyResult | null>; answers: Array<SimplifyResult | null> } {
  const answers: Array<SimplifyResult | null> = [];
  const runner: TaskRunner<SimplifyTask, SimplifyResult | null> = {
    size: 1,
    run: (task, transfer) => (pool.run(task, transfer) as Promise<SimplifyResult | null>).then((r) => (answers.push(r), r)),
  };
  return { runner, answers };
}

describe("simplification on the helper thread", () => {
  it("gives the faces this thread would, from a copy of the mesh", async () => {
    const mesh = bumpyGrid(100);
    const before = mesh.indices.slice();
    const here = await simplifyToBudget(mesh, 5000);
    const { runner, answers } = counted();
    const ahead = simplifyAhead(runner, 20_000, mesh.positions.length / 3, 5000);
    const there = await ahead.simplify(mesh);
    expect(answers).toHaveLength(1);
    expect(answers[0]).not.toBeNull();
    expect(there.mesh.indices.length).toBe(3 * 5000);
    expect(there.mesh.indices).toEqual(here.mesh.indices);
    expect(there.mesh.positions).toEqual(mesh.positions);
    expect(there.error).toBe(here.error);
    expect(there.sloppy).toBe(false);
    // The mesh was copied, not moved: this thread still holds it whole.
    expect(mesh.indices).toEqual(before);
  });

  it("simplifies here when the helper fails", async () => {
    const mesh = bumpyGrid(60);
    const failing: TaskRunner<SimplifyTask, SimplifyResult | null> = { size: 1, run: () => Promise.reject(new Error("thread lost")) };
    const result = await simplifyAhead(failing, 7200, mesh.positions.length / 3, 2000).simplify(mesh);
    expect(result.mesh.indices).toEqual((await simplifyToBudget(mesh, 2000)).mesh.indices);
  });

  it("frees the helper when the cleaned mesh is within the budget, or when no mesh comes", async () => {
    const mesh = bumpyGrid(20);
    const { runner, answers } = counted();
    const within = await simplifyAhead(runner, 5000, 2000, 800).simplify(mesh);
    expect(within.mesh).toBe(mesh);
    const cancelled = simplifyAhead(runner, 5000, 2000, 100);
    cancelled.cancel();
    // The helper answers both (with nothing) and takes the next task.
    const next = await simplifyAhead(runner, 800, 441, 100).simplify(mesh);
    expect(next.mesh.indices.length).toBeLessThanOrEqual(300);
    expect(answers).toHaveLength(3);
    expect(answers.slice(0, 2)).toEqual([null, null]);
  });
});
