/**
 * @module The texture stage's threads: a pool of workers for its photo tasks (view-task.ts), or
 * the calling thread alone, and the levelling's channels solved side by side on them.
 */
import { callingThread, WorkerPool, type TaskRunner } from "../../util/pool.js";
import { shared } from "../../util/shared-memory.js";
import { interleaveChannels, solveLevellingChannel, type LevellingOptions, type LevellingProblem } from "./levelling.js";
import { runViewTask, type ViewTask, type ViewTaskResult } from "./view-task.js";

/** The threads that run the texture stage's photo tasks; `close` ends them. */
export interface TextureWorkers {
  runner: TaskRunner<ViewTask, ViewTaskResult>;
  close: () => Promise<void>;
}

/**
 * The photos' work on worker threads, one photo per task: the scan, the levelling's samples and
 * the painting took 3.5 s, 1.7 s and 5.2 s on one core for 7 photos of 6 MP (Herz-Jesus-P8).
 * A worker costs about 0.6 s to start (tsx's loader, sharp), so a single photo stays on the
 * calling thread. The pipeline runs these tasks on threads it shares with the mesh stage and starts
 * before the dense stage fuses (pipeline/late-pool.ts).
 */
export function startWorkers(workers: number, photos: number): TextureWorkers {
  const size = Math.max(1, Math.min(workers, photos));
  if (size > 1) {
    const pool = new WorkerPool<ViewTask, ViewTaskResult>(new URL("./worker.ts", import.meta.url), { size });
    return { runner: pool, close: () => pool.close() };
  }
  return { runner: callingThread<ViewTask, ViewTaskResult>(runViewTask), close: async () => {} };
}

/**
 * The levelling's three channels at once: two on the workers, the third here (1.9 s for the three
 * one after another on Herz-Jesus-P8's 140k chart vertices). On the calling thread alone, in turn.
 */
export async function solveChannels(problem: LevellingProblem, options: LevellingOptions, runner: TaskRunner<ViewTask, ViewTaskResult>): Promise<{ corrections: Float32Array; iterations: number[] }> {
  if (runner.size < 2) return interleaveChannels([0, 1, 2].map((channel) => solveLevellingChannel(problem, options, channel)));
  const inShared = { vertexCount: problem.vertexCount, colours: shared(problem.colours), seamPairs: shared(problem.seamPairs), chartEdges: shared(problem.chartEdges), ...(problem.targets ? { targets: shared(problem.targets) } : {}) };
  const away = [0, 1].map((channel) => runner.run({ kind: "level", problem: inShared, options, channel }) as Promise<ReturnType<typeof solveLevellingChannel>>);
  // Handled in its turn below; a failure meanwhile must not count as unhandled.
  for (const solving of away) solving.catch(() => undefined);
  const here = solveLevellingChannel(problem, options, 2);
  return interleaveChannels([...(await Promise.all(away)), here]);
}
