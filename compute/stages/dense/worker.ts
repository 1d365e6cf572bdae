/** @module Worker thread: PatchMatch for one reference view per task; buffers come and go as transferables. */
import { serveTasks } from "../../util/pool.js";
import { patchMatch, type PatchMatchInput, type PatchMatchOutput } from "./patchmatch.js";

export interface ViewTask extends PatchMatchInput {
  viewIndex: number;
}

export interface ViewResult extends PatchMatchOutput {
  viewIndex: number;
  wallMs: number;
  /** Solved as this many strips side by side (strips.ts); absent: whole. */
  strips?: number;
}

serveTasks<ViewTask, ViewResult>((task, report) => {
  const start = performance.now();
  const out = patchMatch(task, report);
  const value: ViewResult = { ...out, viewIndex: task.viewIndex, wallMs: performance.now() - start };
  const transfer = [out.depth.buffer as ArrayBuffer, out.normal.buffer as ArrayBuffer, out.cost.buffer as ArrayBuffer];
  if (out.priorAgrees) transfer.push(out.priorAgrees.buffer as ArrayBuffer);
  return { value, transfer };
});
