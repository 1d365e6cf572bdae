/**
 * @module The mesh stage's worker tasks: the cloud's depth images (see-through.ts), the second half
 * of the signed distance's sums (signed-distance.ts), a share of the ground sweep's planes
 * (ground-sweep.ts), of the vertex colours' views (project-colors.ts), and the simplification
 * (simplify.ts). Served by the stage's
 * own worker (worker.ts) or by a thread the pipeline shares with the texture stage
 * (pipeline/late-worker.ts).
 */
import type { TransferListItem } from "node:worker_threads";
import { scoreSweepTask, type GroundSweepTask } from "./ground-sweep.js";
import { colorSums, type ColorSums, type ColorTask } from "./project-colors.js";
import { depthImageTask, type DepthImageTask } from "./see-through.js";
import { latticeSums, scatterSums, type LatticeSums, type SignedDistanceTask } from "./signed-distance.js";
import { simplifyTask, type SimplifyResult, type SimplifyTask } from "./simplify.js";

/** What the mesh stage's worker is asked for. */
export type MeshTask = SignedDistanceTask | ColorTask | GroundSweepTask | DepthImageTask | SimplifyTask;
export type MeshResult = LatticeSums | ColorSums | number | Float32Array[] | SimplifyResult | null;

export async function runMeshTask(task: MeshTask): Promise<{ value: MeshResult; transfer?: TransferListItem[] }> {
  if (!("kind" in task)) {
    const sums = latticeSums(scatterSums(task.positions, task.normals, task.count, task.origin, task.options));
    return { value: sums, transfer: [sums.ii, sums.jj, sums.kk, sums.value, sums.weight].map((array) => array.buffer as ArrayBuffer) };
  }
  if (task.kind === "depthImages") {
    const depths = depthImageTask(task);
    return { value: depths, transfer: depths.map((depth) => depth.buffer as ArrayBuffer) };
  }
  if (task.kind === "simplify") {
    const simplified = await simplifyTask(task);
    return { value: simplified, transfer: simplified ? [simplified.mesh.positions.buffer as ArrayBuffer, simplified.mesh.indices.buffer as ArrayBuffer] : [] };
  }
  if (task.kind === "groundSweep") {
    // The scores are written into the task's shared array; the count says the work is done.
    return { value: scoreSweepTask(task) };
  }
  const sums = await colorSums({ positions: task.positions, indices: task.indices }, task.normals, task.views, task.images, task.options);
  return { value: sums, transfer: [sums.sum.buffer as ArrayBuffer, sums.weight.buffer as ArrayBuffer] };
}
