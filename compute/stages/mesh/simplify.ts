/**
 * @module Simplification to a face budget with meshoptimizer (Kapoulkine), whose simplifier
 * collapses edges in order of quadric error (Garland & Heckbert, SIGGRAPH 1997).
 */
import { MeshoptSimplifier } from "meshoptimizer";
import type { RawMesh } from "./surface-nets.js";

export interface SimplifyResult {
  mesh: RawMesh;
  /** Relative error reported by the simplifier (fraction of the mesh extent). */
  error: number;
  sloppy: boolean;
}

/**
 * Reduces the mesh to at most `maxFaces` faces. The error bound is generous because the
 * budget is what matters; edge collapses still go in order of error, so flat regions go
 * first. If topology blocks the target, the sloppy simplifier (vertex clustering) finishes.
 */
export async function simplifyToBudget(mesh: RawMesh, maxFaces: number): Promise<SimplifyResult> {
  const faceCount = mesh.indices.length / 3;
  if (faceCount <= maxFaces) return { mesh, error: 0, sloppy: false };
  await MeshoptSimplifier.ready;
  const target = 3 * maxFaces;
  let [indices, error] = MeshoptSimplifier.simplify(mesh.indices, mesh.positions, 3, target, 1, []);
  let sloppy = false;
  if (indices.length > target) {
    [indices, error] = MeshoptSimplifier.simplifySloppy(indices, mesh.positions, 3, null, target, 1);
    sloppy = true;
  }
  return { mesh: { positions: mesh.positions, indices }, error, sloppy };
}
