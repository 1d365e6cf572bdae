/** @module Worker thread of the mesh stage: the second half of the signed distance's sums (signed-distance.ts). */
import { serveTasks } from "../../util/pool.js";
import { latticeSums, scatterSums, type LatticeSums, type SignedDistanceTask } from "./signed-distance.js";

serveTasks<SignedDistanceTask, LatticeSums>((task) => {
  const sums = latticeSums(scatterSums(task.positions, task.normals, task.count, task.origin, task.options));
  return { value: sums, transfer: [sums.ii, sums.jj, sums.kk, sums.value, sums.weight].map((array) => array.buffer as ArrayBuffer) };
});
