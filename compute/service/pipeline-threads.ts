/**
 * @module The service's pipeline threads (pipeline-thread.ts), kept between jobs.
 *
 * A job borrows an idle thread, or starts one; a thread that finished its job cleanly goes
 * back to wait for the next (at most `keep` wait), so the next job finds OpenCV.js loaded in
 * its front workers and the pipeline's code compiled. A thread that was cancelled, crashed or
 * exited is terminated and never reused: the next job starts a fresh one.
 */
import { Worker } from "node:worker_threads";
import { useCompileCache } from "../util/compile-cache.js";

export class PipelineThreads {
  private readonly idle: Worker[] = [];
  private closed = false;
  /** Threads started so far (tests check that jobs reuse them). */
  started = 0;

  constructor(private readonly keep: number) {}

  /** Threads waiting for a job. */
  get waiting(): number {
    return this.idle.length;
  }

  /** Starts one thread ahead of the first job. */
  prewarm(): void {
    if (this.idle.length === 0 && this.keep > 0 && !this.closed) this.idle.push(this.spawn());
  }

  acquire(): Worker {
    const thread = this.idle.pop() ?? this.spawn();
    thread.ref();
    return thread;
  }

  /** Gives back a thread whose job ended normally. */
  release(thread: Worker): void {
    thread.removeAllListeners("message");
    thread.removeAllListeners("error");
    thread.removeAllListeners("exit");
    if (this.closed || this.idle.length >= this.keep) {
      void thread.terminate();
      return;
    }
    this.watchIdle(thread);
    this.idle.push(thread);
  }

  /** Ends a thread that must not run another job (cancelled, crashed). */
  discard(thread: Worker): void {
    thread.removeAllListeners();
    thread.on("error", () => {}); // an error while it stops must not become an uncaught one
    void thread.terminate();
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.idle.splice(0).map((t) => t.terminate()));
  }

  private spawn(): Worker {
    useCompileCache();
    this.started++;
    const thread = new Worker(new URL("./pipeline-thread.ts", import.meta.url), { execArgv: ["--import", "tsx"] });
    this.watchIdle(thread);
    return thread;
  }

  /** An idle thread that dies (or fails to start) leaves the idle set; it never takes the process down. */
  private watchIdle(thread: Worker): void {
    const forget = () => {
      const at = this.idle.indexOf(thread);
      if (at >= 0) this.idle.splice(at, 1);
    };
    thread.on("error", forget);
    thread.on("exit", forget);
    // An idle thread must not keep the process alive.
    thread.unref();
  }
}
