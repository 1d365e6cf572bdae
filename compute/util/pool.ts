/**
 * @module A fixed pool of worker_threads running one worker module, fed from a task queue.
 *
 * Workers are TypeScript modules: they are started with tsx's loader so the same code runs
 * under `tsx`, vitest and the compute service. A worker module calls `serveTasks(handler)`.
 */
import { availableParallelism } from "node:os";
import { Worker, parentPort, type TransferListItem } from "node:worker_threads";
import { useCompileCache } from "./compile-cache.js";

interface Pending<R> {
  task: unknown;
  transfer: TransferListItem[];
  resolve: (value: R) => void;
  reject: (error: Error) => void;
  onProgress?: (fraction: number) => void;
}

/** What a worker posts: its task's answer, or (before it) a fraction of the task done. */
type WorkerMessage<R> = { ok: boolean; value?: R; error?: string } | { progress: number };

export interface PoolOptions {
  /** Worker count; defaults to the machine's available parallelism. */
  size?: number;
  /** Data every worker receives once at start (`workerData`). */
  workerData?: unknown;
}

/** What a stage needs of a pool: its size and a way to run one task (WorkerPool, or an adapter over a shared pool). */
export interface TaskRunner<T, R> {
  readonly size: number;
  /** `onProgress` receives the fractions the worker reports while it runs the task (serveTasks' `report`). */
  run(task: T, transfer?: TransferListItem[], onProgress?: (fraction: number) => void): Promise<R>;
}

export class WorkerPool<T, R> implements TaskRunner<T, R> {
  private readonly idle: Worker[] = [];
  private readonly all: Worker[] = [];
  private readonly queue: Pending<R>[] = [];
  private readonly busy = new Map<Worker, Pending<R>>();
  private closed = false;
  /** Why the last worker was lost, for tasks that arrive once none is left. */
  private lastFailure: Error | null = null;

  constructor(moduleUrl: URL, options: PoolOptions = {}) {
    const size = Math.max(1, options.size ?? availableParallelism());
    useCompileCache();
    for (let i = 0; i < size; i++) {
      const worker = new Worker(moduleUrl, { execArgv: ["--import", "tsx"], workerData: options.workerData });
      worker.on("message", (msg: WorkerMessage<R>) => {
        if ("progress" in msg) this.busy.get(worker)?.onProgress?.(msg.progress);
        else this.settle(worker, msg);
      });
      worker.on("error", (err) => this.fail(worker, err));
      // A worker that exits without an 'error' (its module failed to load under this Node,
      // process.exit in a native module, an out-of-memory kill of the thread) must fail its
      // task too: otherwise the job waits forever, or the process ends with nothing to do.
      worker.on("exit", (code) => {
        if (!this.closed) this.fail(worker, new Error(`pool: a worker thread exited (code ${code}) before finishing its task; ${moduleUrl.pathname.split("/").slice(-2).join("/")} could not run under Node ${process.versions.node}`));
      });
      worker.unref();
      this.all.push(worker);
      this.idle.push(worker);
    }
  }

  get size(): number {
    return this.all.length;
  }

  run(task: T, transfer: TransferListItem[] = [], onProgress?: (fraction: number) => void): Promise<R> {
    if (this.closed) return Promise.reject(new Error("pool: closed"));
    if (this.all.length === 0) return Promise.reject(this.lastFailure ?? new Error("pool: no worker thread is running"));
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ task, transfer, resolve, reject, onProgress });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.all.map((w) => w.terminate()));
  }

  private pump(): void {
    while (this.idle.length > 0 && this.queue.length > 0) {
      const worker = this.idle.pop()!;
      const job = this.queue.shift()!;
      this.busy.set(worker, job);
      worker.ref();
      worker.postMessage(job.task, job.transfer);
    }
  }

  private settle(worker: Worker, msg: { ok: boolean; value?: R; error?: string }): void {
    const job = this.busy.get(worker);
    this.busy.delete(worker);
    worker.unref();
    this.idle.push(worker);
    if (job) {
      if (msg.ok) job.resolve(msg.value as R);
      else job.reject(new Error(msg.error ?? "pool: worker task failed"));
    }
    this.pump();
  }

  private fail(worker: Worker, err: Error): void {
    const job = this.busy.get(worker);
    this.busy.delete(worker);
    const index = this.all.indexOf(worker);
    if (index >= 0) this.all.splice(index, 1);
    this.lastFailure = err;
    const idleAt = this.idle.indexOf(worker);
    if (idleAt >= 0) this.idle.splice(idleAt, 1);
    job?.reject(err);
    // Fail everything queued when no worker is left, rather than hang.
    if (this.all.length === 0) for (const queued of this.queue.splice(0)) queued.reject(err);
  }
}

/**
 * Inside a worker module: answer each task with the handler's result (and its transfer list).
 * The handler may call `report(fraction)` while it works; the caller's `onProgress` gets it.
 */
export function serveTasks<T, R>(handler: (task: T, report: (fraction: number) => void) => Promise<{ value: R; transfer?: TransferListItem[] }> | { value: R; transfer?: TransferListItem[] }): void {
  if (!parentPort) throw new Error("serveTasks: not inside a worker");
  const port = parentPort;
  const report = (fraction: number) => port.postMessage({ progress: fraction });
  port.on("message", async (task: T) => {
    try {
      const { value, transfer } = await handler(task, report);
      port.postMessage({ ok: true, value }, transfer ?? []);
    } catch (err) {
      port.postMessage({ ok: false, error: err instanceof Error ? `${err.message}\n${err.stack}` : String(err) });
    }
  });
}

/**
 * The calling thread as a one-worker runner of a worker module's handler (the one it gives
 * `serveTasks`): one task at a time, in the order given, for stages too small to start threads.
 */
export function callingThread<T, R>(handler: (task: T) => Promise<{ value: R }> | { value: R }): TaskRunner<T, R> {
  let last: Promise<unknown> = Promise.resolve();
  return {
    size: 1,
    run: (task) => {
      const next = last.then(() => handler(task)).then((r) => r.value);
      last = next.catch(() => undefined);
      return next;
    },
  };
}

/**
 * A runner that keeps at most `limit` of its tasks on `runner` at once, the rest queued in order:
 * a stage written for one helper thread keeps that shape on a larger shared pool.
 */
export function atMost<T, R>(runner: TaskRunner<T, R>, limit: number): TaskRunner<T, R> {
  const size = Math.max(1, Math.min(limit, runner.size));
  const waiting: Array<() => void> = [];
  let running = 0;
  const next = (): void => {
    if (running >= size) return;
    const start = waiting.shift();
    if (start) {
      running++;
      start();
    }
  };
  return {
    size,
    run: (task, transfer, onProgress) =>
      new Promise<R>((resolve, reject) => {
        waiting.push(() => {
          runner.run(task, transfer, onProgress).then(resolve, reject).finally(() => {
            running--;
            next();
          });
        });
        next();
      }),
  };
}
