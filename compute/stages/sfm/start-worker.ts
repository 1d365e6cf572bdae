/**
 * @module The thread of start-thread.ts: runs each start it is given (starts.ts runStart) and
 * posts the answer to its port, then raises the answered flag the caller waits on.
 */
import { parentPort, workerData, type MessagePort } from "node:worker_threads";
import { toWire, type WireAnswer } from "./start-thread.js";
import { runStart, type StartTask } from "./starts.js";

const { answered, port } = workerData as { answered: Int32Array; port: MessagePort };

parentPort!.on("message", (task: StartTask) => {
  let wire: WireAnswer;
  try {
    wire = toWire(runStart(task));
  } catch (error) {
    wire = { ok: false, error: error instanceof Error ? error.stack ?? error.message : String(error) };
  }
  port.postMessage(wire);
  Atomics.store(answered, 0, 1);
  Atomics.notify(answered, 0);
});
