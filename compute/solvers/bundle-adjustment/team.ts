/**
 * @module A team of worker threads that share one bundle adjustment's passes over points and
 * observations with the calling thread (team-kernels.ts), synchronously.
 *
 * Why synchronous: the solver and its SfM callers are synchronous code, and a global
 * adjustment's iteration is tens of milliseconds to seconds, so the calling thread posts a
 * kernel through shared control words (Atomics.notify), does its own share, and blocks in
 * Atomics.wait until the workers are done; no event loop turn is needed. Node allows
 * Atomics.wait on the main thread.
 *
 * Failures are errors, never a silent wait: a worker that does not load within
 * STARTUP_TIMEOUT_MS, a kernel that throws in a worker, or a worker that has not finished its
 * share long after the caller finished an equal one (it died: its exit event cannot be
 * delivered while the caller blocks) fails the adjustment with the reason, and the team is
 * discarded so the next solve starts a new one.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { useCompileCache } from "../../util/compile-cache.js";
import { SharedArena } from "./shared-arena.js";
import { CONTROL, CONTROL_WORDS, ERROR_BYTES, MAX_WORKERS } from "./team-control.js";
import { KERNEL, runKernel, type KernelId, type SharedSolve, type ThreadContext } from "./team-kernels.js";

const STARTUP_TIMEOUT_MS = 60_000;
/** A worker is presumed dead when it has not finished this long after the caller finished its own share… */
const MIN_STALL_MS = 30_000;
/** …nor this many times the caller's own time. */
const STALL_FACTOR = 50;

export class BaTeam {
  readonly threads: number;
  /** Shared memory of the bound solve, reused by the next (shared-arena.ts). */
  readonly arena = new SharedArena();
  private readonly control = new Int32Array(new SharedArrayBuffer(4 * CONTROL_WORDS));
  private readonly errorText = new Uint8Array(new SharedArrayBuffer(ERROR_BYTES));
  private readonly workers: Worker[] = [];
  private broken = false;
  private bound = false;

  private constructor(threads: number) {
    this.threads = threads;
    useCompileCache();
    for (let t = 1; t < threads; t++) {
      const worker = new Worker(new URL("./team-worker.ts", import.meta.url), {
        execArgv: ["--import", "tsx"],
        workerData: { control: this.control, errorText: this.errorText, thread: t },
      });
      // Delivered between solves: the next solve then starts a new team.
      worker.on("exit", () => (this.broken = true));
      worker.on("error", () => (this.broken = true));
      worker.unref();
      this.workers.push(worker);
    }
  }

  /** Threads a team of `requested` would have (0 = every available core), bounded by MAX_WORKERS + 1. */
  static size(requested: number): number {
    return Math.max(1, Math.min(MAX_WORKERS + 1, requested === 0 ? availableParallelism() : requested));
  }

  /** The process's team of `threads` threads, started on first use (or after a failure). */
  static get(threads: number): BaTeam {
    if (!current || current.broken || current.threads !== threads) {
      current?.dispose();
      current = new BaTeam(threads);
    }
    return current;
  }

  /** Stops the current team, if any (its workers exit, and the shared memory they held is freed). */
  static close(): void {
    current?.dispose();
  }

  /** Hands a solve's shared arrays to every worker; blocks until each took them. */
  bind(shared: SharedSolve): void {
    if (this.bound) throw new Error("ba: the thread team is already bound to a solve");
    this.waitReady();
    Atomics.store(this.control, CONTROL.acks, 0);
    const generation = Atomics.load(this.control, CONTROL.generation);
    for (const worker of this.workers) worker.postMessage({ shared, generation });
    this.waitCount(CONTROL.acks, this.workers.length, STARTUP_TIMEOUT_MS, "take a solve's arrays");
    this.bound = true;
    this.throwIfFailed();
  }

  /** Runs `kernel` on every thread, the caller's share (thread 0) on `own`; returns when all are done. */
  run(kernel: KernelId, own: ThreadContext): void {
    Atomics.store(this.control, CONTROL.done, 0);
    this.post(kernel);
    const started = performance.now();
    let ownError: unknown = null;
    try {
      runKernel(own, kernel);
    } catch (error) {
      ownError = error;
    }
    const ownMs = performance.now() - started;
    this.waitCount(CONTROL.done, this.workers.length, Math.max(MIN_STALL_MS, STALL_FACTOR * ownMs), "finish its share of a bundle adjustment");
    if (ownError) throw ownError;
    this.throwIfFailed();
  }

  /** Lets the workers wait for the next solve (they stop holding the solve's arrays). */
  release(): void {
    if (!this.bound) return;
    this.bound = false;
    if (this.broken) return;
    Atomics.store(this.control, CONTROL.acks, 0);
    this.post(KERNEL.release);
    this.waitCount(CONTROL.acks, this.workers.length, MIN_STALL_MS, "leave a finished solve");
  }

  private post(kernel: KernelId): void {
    Atomics.store(this.control, CONTROL.kernel, kernel);
    Atomics.add(this.control, CONTROL.generation, 1);
    Atomics.notify(this.control, CONTROL.generation);
  }

  private waitReady(): void {
    for (let t = 1; t < this.threads; t++) {
      const deadline = performance.now() + STARTUP_TIMEOUT_MS;
      while (Atomics.load(this.control, CONTROL.ready + t) === 0) {
        const left = deadline - performance.now();
        if (left <= 0) this.fail(`ba: worker thread ${t} of the bundle-adjustment team did not start within ${STARTUP_TIMEOUT_MS / 1000} s (team-worker.ts could not load under Node ${process.versions.node})`);
        Atomics.wait(this.control, CONTROL.ready + t, 0, left);
      }
    }
  }

  private waitCount(word: number, count: number, timeoutMs: number, what: string): void {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const value = Atomics.load(this.control, word);
      if (value >= count) return;
      const left = deadline - performance.now();
      if (left <= 0) this.fail(`ba: a worker thread of the bundle-adjustment team did not ${what} within ${(timeoutMs / 1000).toFixed(1)} s; it has probably died`);
      Atomics.wait(this.control, word, value, left);
    }
  }

  private throwIfFailed(): void {
    if (Atomics.load(this.control, CONTROL.error) === 0) return;
    const end = this.errorText.indexOf(0);
    const text = new TextDecoder().decode(this.errorText.slice(0, end < 0 ? ERROR_BYTES : end));
    this.fail(`ba: a worker thread of the bundle-adjustment team failed: ${text}`);
  }

  private fail(message: string): never {
    this.dispose();
    throw new Error(message);
  }

  private dispose(): void {
    this.broken = true;
    this.bound = false;
    if (current === this) current = null;
    // A terminated Worker object outlives its thread, and its listeners kept this team and its
    // arena alive: 91 MiB still held when dense started after SfM of 65 photos (a heap
    // snapshot, bench-out/mem-snap.ts). Free the shared memory now, and let go of the team.
    this.arena.release();
    for (const worker of this.workers) {
      worker.removeAllListeners();
      worker.on("error", ignoreError);
      void worker.terminate();
    }
    this.workers.length = 0;
  }
}

/** A stopped worker's late error has nothing left to break. */
function ignoreError(): void {}

let current: BaTeam | null = null;

export interface TeamSolve {
  team: BaTeam;
  shared: SharedSolve;
  /** The calling thread's share: the workspace's own arrays. */
  own: ThreadContext;
}

