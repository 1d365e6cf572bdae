/**
 * @module The worker threads of the front of the pipeline: features, matching, then the
 * keypoints' refinement.
 *
 * Why one pool for two stages: a worker thread spends about half a second of CPU before its
 * first task (the TypeScript loader, then OpenCV.js's 10 MB of JavaScript and WebAssembly).
 * Started before ingest, the threads initialise while the uploads decode; kept for matching,
 * the matching stage needs no threads of its own. A long-lived process (the compute service)
 * keeps them between jobs as well (KeptFrontWorkers), so a job finds them loaded.
 */
import type { FeatureResult, FeatureTask } from "../stages/features/detect.js";
import type { ViewsResult, ViewsTask } from "../stages/features/views.js";
import type { PairResult, PairTask } from "../stages/matching/pair.js";
import type { ViewPairResult, ViewPairTask } from "../stages/matching/view-matches.js";
import type { ImageTask, ImageTaskResult } from "../stages/keypoints/image-task.js";
import { type TaskRunner, WorkerPool } from "../util/pool.js";

export type FrontTask = { stage: "features"; task: FeatureTask } | { stage: "views"; task: ViewsTask } | { stage: "matching"; task: PairTask } | { stage: "viewPairs"; task: ViewPairTask } | { stage: "keypoints"; task: ImageTask } | { stage: "ping" };
export type FrontResult = FeatureResult | ViewsResult | PairResult | ViewPairResult | ImageTaskResult;

export interface FrontWorkers {
  features: TaskRunner<FeatureTask, FeatureResult>;
  /** Simulated oblique views of an image (features/views.ts), for the wide-baseline matching. */
  views: TaskRunner<ViewsTask, ViewsResult>;
  matching: TaskRunner<PairTask, PairResult>;
  /** A pair matched view by view against simulated oblique views (matching/view-matches.ts). */
  viewPairs: TaskRunner<ViewPairTask, ViewPairResult>;
  /**
   * One image's keypoint patches (keypoints/image-task.ts). Loaded threads: the stage's own pool
   * cost each thread its start, so a job under 20,000 observations refined on one thread
   * (keypoints/index.ts OBSERVATIONS_PER_WORKER).
   */
  keypoints: TaskRunner<ImageTask, ImageTaskResult>;
  /** Resolves once every worker has loaded, with each one's OpenCV.js heap size in bytes. */
  heapBytes(): Promise<number[]>;
  close(): Promise<void>;
}

/** Starts `count` front workers (at least one); they begin loading at once. */
export function startFrontWorkers(count: number): FrontWorkers {
  const pool = new WorkerPool<FrontTask, FrontResult | number>(new URL("./front-worker.ts", import.meta.url), { size: Math.max(1, count) });
  return {
    features: { size: pool.size, run: (task, transfer) => pool.run({ stage: "features", task }, transfer) as Promise<FeatureResult> },
    views: { size: pool.size, run: (task, transfer) => pool.run({ stage: "views", task }, transfer) as Promise<ViewsResult> },
    matching: { size: pool.size, run: (task, transfer) => pool.run({ stage: "matching", task }, transfer) as Promise<PairResult> },
    viewPairs: { size: pool.size, run: (task, transfer) => pool.run({ stage: "viewPairs", task }, transfer) as Promise<ViewPairResult> },
    keypoints: { size: pool.size, run: (task, transfer) => pool.run({ stage: "keypoints", task }, transfer) as Promise<ImageTaskResult> },
    // Pings sent together while the pool is idle go to different workers (one task per idle worker).
    heapBytes: () => Promise.all(Array.from({ length: pool.size }, () => pool.run({ stage: "ping" }) as Promise<number>)),
    close: () => pool.close(),
  };
}

/** How the pipeline gets its front workers for a job and gives them back. */
export interface FrontLease {
  acquire(count: number): FrontWorkers;
  /** Called once features and matching are done. */
  release(front: FrontWorkers): Promise<void>;
}

/** Workers taken from a lease, given back once by whichever of the holder's paths comes first. */
export interface HeldFront {
  workers: FrontWorkers;
  /** Whether they have not been given back yet. */
  readonly held: boolean;
  giveBack(): Promise<void>;
}

export function holdFront(lease: FrontLease, count: number): HeldFront {
  const workers = lease.acquire(count);
  let held = true;
  return {
    workers,
    get held() {
      return held;
    },
    async giveBack() {
      if (!held) return;
      held = false;
      await lease.release(workers);
    },
  };
}

/** A job of its own (the CLI, the benches' cold runs): start the workers, close them after matching. */
export const FRESH_FRONT: FrontLease = {
  acquire: (count) => startFrontWorkers(count),
  release: (front) => front.close(),
};

/**
 * OpenCV.js's heap never shrinks; a worker whose heap grew past this (a job of large photos)
 * is closed after its job rather than kept holding the memory through dense stereo and idle
 * time. 256 MiB is twice the initial heap: 640 to 1600-px photos stay under it.
 */
export const KEEP_MAX_HEAP_BYTES = 256 * 1024 * 1024;

/**
 * Front workers kept between the jobs of one long-lived thread (the compute service's pipeline
 * threads): a job finds them loaded, which on a 10-image job of 640-px photos saves about half
 * a second of its six. Workers are replaced (`prepare`) when a job left their heaps large or
 * the count changed.
 */
export class KeptFrontWorkers implements FrontLease {
  private front: { workers: FrontWorkers; count: number } | null = null;
  private leased = false;

  constructor(private readonly maxHeapBytes = KEEP_MAX_HEAP_BYTES) {}

  /** Starts the workers ahead of the next job if none are kept. */
  prepare(count: number): void {
    if (!this.front) this.front = { workers: startFrontWorkers(count), count };
  }

  acquire(count: number): FrontWorkers {
    if (this.leased) return startFrontWorkers(count); // a second job at once gets its own
    if (this.front && this.front.count !== count) {
      void this.front.workers.close();
      this.front = null;
    }
    this.prepare(count);
    this.leased = true;
    return this.front!.workers;
  }

  async release(workers: FrontWorkers): Promise<void> {
    if (this.front?.workers !== workers) return workers.close();
    this.leased = false;
    const heaps = await workers.heapBytes().catch(() => [Infinity]);
    // A worker that crashed left the pool smaller: replace the whole set.
    if (heaps.length < this.front.count || Math.max(...heaps) > this.maxHeapBytes) {
      this.front = null;
      await workers.close();
    }
  }

  /** Whether loaded workers are waiting for the next job (tests, reports). */
  get kept(): boolean {
    return this.front !== null && !this.leased;
  }

  async close(): Promise<void> {
    const front = this.front;
    this.front = null;
    await front?.workers.close();
  }
}
