/**
 * @module Simplification to a face budget with meshoptimizer (Kapoulkine), whose simplifier
 * collapses edges in order of quadric error (Garland & Heckbert, SIGGRAPH 1997).
 *
 * On the stage's helper thread (`simplifyAhead`): meshoptimizer's first large call in a thread
 * takes about twice as long as the next (0.45–0.51 s against 0.19–0.22 s for a 520k-face grid to
 * 200,000 faces), all of it its WebAssembly memory's first touch (page faults). The helper grows
 * and touches its memory while this thread cleans the mesh up, then simplifies; the main thread
 * would have paid the first touch itself (docs/decisions.md, "The simplifier runs on the helper,
 * its memory touched ahead").
 */
import { MessageChannel, type MessagePort } from "node:worker_threads";
import { MeshoptSimplifier } from "meshoptimizer";
import type { TaskRunner } from "../../util/pool.js";
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

/**
 * Makes this thread's simplifier allocate, and so touch, the memory a mesh of this size needs:
 * a simplification of as many degenerate faces to their own count, which sets up every array and
 * collapses nothing.
 */
export async function touchSimplifierMemory(faces: number, vertices: number): Promise<void> {
  await MeshoptSimplifier.ready;
  MeshoptSimplifier.simplify(new Uint32Array(3 * faces), new Float32Array(3 * Math.max(1, vertices)), 3, 3 * faces, 1, []);
}

/** The helper's task: touch the memory for the extracted mesh's size, then simplify the mesh the port brings (null: none). */
export interface SimplifyTask {
  kind: "simplify";
  faces: number;
  vertices: number;
  maxFaces: number;
  meshPort: MessagePort;
}

/** Runs a SimplifyTask on the helper thread. */
export async function simplifyTask(task: SimplifyTask): Promise<SimplifyResult | null> {
  await touchSimplifierMemory(task.faces, task.vertices);
  const mesh = await new Promise<RawMesh | null>((resolve) => {
    task.meshPort.once("message", resolve);
    task.meshPort.once("close", () => resolve(null));
  });
  task.meshPort.close();
  return mesh ? simplifyToBudget(mesh, task.maxFaces) : null;
}

/** What the main thread holds of a simplification started on the helper. */
export interface SimplifyAhead {
  /** Simplifies the cleaned mesh on the helper (a copy of it), or on this thread if the helper failed. */
  simplify(mesh: RawMesh): Promise<SimplifyResult>;
  /** Frees the helper when no mesh will come. */
  cancel(): void;
}

/**
 * Starts a simplification on `helper` for a mesh of about `faces` faces on `vertices` vertices:
 * the helper touches its simplifier's memory at once, and waits for the mesh. The result is the
 * one simplifyToBudget gives on this thread.
 */
export function simplifyAhead(helper: TaskRunner<SimplifyTask, SimplifyResult | null>, faces: number, vertices: number, maxFaces: number): SimplifyAhead {
  const { port1, port2 } = new MessageChannel();
  const answer = helper.run({ kind: "simplify", faces, vertices, maxFaces, meshPort: port2 }, [port2]).catch(() => null);
  let sent = false;
  const send = (mesh: RawMesh | null): void => {
    if (sent) return;
    sent = true;
    // Copied, not transferred: if the helper fails, this thread still has the mesh to simplify.
    port1.postMessage(mesh && { positions: mesh.positions, indices: mesh.indices });
  };
  return {
    async simplify(mesh) {
      if (mesh.indices.length / 3 <= maxFaces) {
        send(null);
        port1.close();
        return { mesh, error: 0, sloppy: false };
      }
      send(mesh);
      const result = await answer;
      port1.close();
      return result ?? simplifyToBudget(mesh, maxFaces);
    },
    cancel() {
      send(null);
      port1.close();
    },
  };
}
