/**
 * @module A bundle-adjustment team's worker thread (team.ts). It waits for a solve's shared
 * arrays, then runs kernels as the solver's thread posts them through the control words, and
 * goes back to waiting for the next solve when released.
 */
import { parentPort, workerData } from "node:worker_threads";
import { CONTROL, ERROR_BYTES } from "./team-control.js";
import { KERNEL, runKernel, workerContext, type KernelId, type SharedSolve, type ThreadContext } from "./team-kernels.js";

const { control, errorText, thread } = workerData as { control: Int32Array; errorText: Uint8Array; thread: number };

function reportError(error: unknown): void {
  const message = new TextEncoder().encode(`thread ${thread}: ${error instanceof Error ? error.stack ?? error.message : String(error)}`).subarray(0, ERROR_BYTES);
  errorText.fill(0);
  errorText.set(message);
  Atomics.store(control, CONTROL.error, 1);
}

function finish(word: number): void {
  Atomics.add(control, word, 1);
  Atomics.notify(control, word);
}

/** Runs the kernels of one solve until the solver releases the team. Blocks this thread meanwhile. */
function serve(ctx: ThreadContext, generation: number): void {
  for (;;) {
    Atomics.wait(control, CONTROL.generation, generation);
    generation = Atomics.load(control, CONTROL.generation);
    const kernel = Atomics.load(control, CONTROL.kernel) as KernelId;
    if (kernel === KERNEL.release) {
      finish(CONTROL.acks);
      return;
    }
    try {
      runKernel(ctx, kernel);
    } catch (error) {
      reportError(error);
    }
    finish(CONTROL.done);
  }
}

parentPort!.on("message", (message: { shared: SharedSolve; generation: number }) => {
  let ctx: ThreadContext | null = null;
  try {
    ctx = workerContext(message.shared, thread);
  } catch (error) {
    reportError(error);
  }
  finish(CONTROL.acks);
  if (ctx) serve(ctx, message.generation);
});
Atomics.store(control, CONTROL.ready + thread, 1);
Atomics.notify(control, CONTROL.ready + thread);
