/**
 * @module One SfM start on a thread of its own (start-worker.ts), handed back synchronously.
 *
 * Why: a small upload without EXIF is rebuilt from two or three focal guesses and the models
 * cross-checked (index.ts), and most of a start runs on one thread (registration, triangulation,
 * the checks; only the bundle adjustments share their passes with a team). Two starts side by
 * side keep both cores busy. The stage is synchronous code, like the bundle adjustment's team
 * (solvers/bundle-adjustment/team.ts): the calling thread posts the start, runs its own, then
 * blocks in Atomics.wait until the thread has answered, and reads the answer with
 * receiveMessageOnPort; no event loop turn is needed.
 *
 * The thread builds the start's state from the same inputs, options and seed, so its models are
 * the ones the calling thread would make (its adjustments split their passes the same way).
 * A thread that gives no answer (it could not start, or died) is not an error: the caller runs
 * the start itself.
 */
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
import { PipelineError } from "../../scene/index.js";
import { useCompileCache } from "../../util/compile-cache.js";
import type { Outcome, StartAnswer, StartTask } from "./starts.js";

/** A refusal crosses threads as plain fields (a class does not survive structured cloning). */
export type WireAnswer = { ok: true; answer: Omit<StartAnswer, "outcome"> & { outcome: Omit<Outcome, "error"> & { error: WireError | null } } } | { ok: false; error: string };
interface WireError {
  code: string;
  message: string;
  suggestion: string;
}

export function toWire(answer: StartAnswer): WireAnswer {
  const { error } = answer.outcome;
  return { ok: true, answer: { ...answer, outcome: { ...answer.outcome, error: error && { code: error.code, message: error.message, suggestion: error.suggestion } } } };
}

function fromWire(wire: Extract<WireAnswer, { ok: true }>): StartAnswer {
  const { error } = wire.answer.outcome;
  return { ...wire.answer, outcome: { ...wire.answer.outcome, error: error && new PipelineError(error.code, error.message, error.suggestion) } };
}

/** How long past the caller's own start an answer is waited for: the thread's start-up, and a start slowed by sharing the cores. */
const MIN_WAIT_MS = 60_000;
const WAIT_FACTOR = 10;
/** A thread that has not loaded its module this long after it was made never will (it loads in about a second). */
const STARTUP_MS = 20_000;

/** The shared words: the answer's flag, and the thread's, raised once its module has loaded. */
export const ANSWERED = 0;
export const LOADED = 1;

export class StartThread {
  private readonly worker: Worker;
  /** ANSWERED: 1 once the thread has posted its answer to `port`; LOADED: 1 once its module runs. */
  private readonly flags = new Int32Array(new SharedArrayBuffer(8));
  private readonly madeAt = performance.now();
  private readonly port: MessagePort;
  private running = false;
  /** Set when an answer did not come in time: a late one must not pass for a later start's. */
  private broken = false;

  constructor() {
    useCompileCache();
    const channel = new MessageChannel();
    this.port = channel.port1;
    this.worker = new Worker(new URL("./start-worker.ts", import.meta.url), {
      execArgv: ["--import", "tsx"],
      workerData: { flags: this.flags, port: channel.port2 },
      transferList: [channel.port2],
    });
    // Its failures show as a missing answer (finish); an 'error' event must not end the process.
    this.worker.on("error", () => {});
    this.worker.unref();
  }

  /** Starts `task` on the thread; a thread that failed to answer before takes no more (the caller runs them). */
  begin(task: StartTask): void {
    if (this.broken) return;
    Atomics.store(this.flags, ANSWERED, 0);
    this.worker.postMessage(task);
    this.running = true;
  }

  /** Whether a start was begun and not yet finished. */
  get busy(): boolean {
    return this.running;
  }

  /**
   * The begun start's answer, waiting for it; null when the thread failed or gave none in time
   * (`ownMs`: how long the caller's own start took, which bounds the wait).
   */
  finish(ownMs: number): StartAnswer | null {
    if (!this.running) return null;
    this.running = false;
    const deadline = performance.now() + MIN_WAIT_MS + WAIT_FACTOR * ownMs;
    while (Atomics.load(this.flags, ANSWERED) === 0) {
      // A thread that never loaded (its 'error' cannot reach this blocked thread) is not waited for.
      const notLoaded = Atomics.load(this.flags, LOADED) === 0;
      const left = (notLoaded ? Math.min(deadline, this.madeAt + STARTUP_MS) : deadline) - performance.now();
      if (left <= 0) {
        this.broken = true;
        void this.worker.terminate();
        return null;
      }
      Atomics.wait(this.flags, ANSWERED, 0, Math.min(left, notLoaded ? 100 : left));
    }
    const received = receiveMessageOnPort(this.port)?.message as WireAnswer | undefined;
    return received?.ok ? fromWire(received) : null;
  }

  close(): void {
    this.running = false;
    void this.worker.terminate();
  }
}
