/**
 * @module The thread of start-thread.ts: runs each start it is given (starts.ts runStart) and
 * posts the answer to its port, then raises the answered flag the caller waits on.
 */
import { parentPort, workerData, type MessagePort } from "node:worker_threads";
import { ANSWERED, LOADED, toWire, type WireAnswer } from "./start-thread.js";
import { runStart, type StartTask } from "./starts.js";

const { flags, port } = workerData as { flags: Int32Array; port: MessagePort };
Atomics.store(flags, LOADED, 1);

parentPort!.on("message", (task: StartTask) => {
  let wire: WireAnswer;
  try {
    wire = toWire(runStart(task));
  } catch (error) {
    wire = { ok: false, error: error instanceof Error ? error.stack ?? error.message : String(error) };
  }
  port.postMessage(wire);
  Atomics.store(flags, ANSWERED, 1);
  Atomics.notify(flags, ANSWERED);
});
