/**
 * @module Wall time, CPU time and peak memory of each pipeline stage, measured inside the
 * process that runs the pipeline (bench/scale-job.ts, bench/speed-job.ts): pass `onProgress`
 * to runPipeline and the meter closes a stage when the progress events move to the next one.
 * CPU is process.cpuUsage (user + system of every thread, so the worker pools count). A stage's
 * peak is the largest resident size sampled every 100 ms while it ran, or the process's peak
 * (getrusage's maxRSS) at its end when that rose during the stage: a new peak between samples
 * is then this stage's.
 */
import type { ProgressEvent } from "../compute/pipeline/progress.js";

export interface StageFigures {
  stage: string;
  wallS: number;
  cpuS: number;
  peakRssMiB: number;
}

/** Wall, CPU and peak memory of a whole job (processFigures). */
export interface ProcessFigures {
  wallS: number;
  cpuS: number;
  peakRssMiB: number;
}

const MIB = 2 ** 20;

/** User + system seconds of this process so far, every thread. */
export function cpuSeconds(): number {
  const cpu = process.cpuUsage();
  return (cpu.user + cpu.system) / 1e6;
}

/** This process's peak resident set so far, bytes. */
function maxRssBytes(): number {
  return process.resourceUsage().maxRSS * 1024;
}

/** Wall seconds since `startedMs` (performance.now), CPU seconds since `cpuAtStartS` (cpuSeconds; default the process's start), the process's peak. */
export function processFigures(startedMs: number, cpuAtStartS = 0): ProcessFigures {
  return { wallS: (performance.now() - startedMs) / 1000, cpuS: cpuSeconds() - cpuAtStartS, peakRssMiB: maxRssBytes() / MIB };
}

export class StageMeter {
  readonly stages: StageFigures[] = [];
  private current: { stage: string; wall: number; cpu: number; peak: number; maxRss: number } | null = null;
  private readonly sampler = setInterval(() => {
    if (this.current) this.current.peak = Math.max(this.current.peak, process.memoryUsage.rss());
  }, 100);

  /** runPipeline's `onProgress`. */
  readonly onProgress = (event: Pick<ProgressEvent, "stage">): void => {
    if (this.current?.stage === event.stage) return;
    this.close();
    this.current = { stage: event.stage, wall: performance.now(), cpu: cpuSeconds(), peak: process.memoryUsage.rss(), maxRss: maxRssBytes() };
  };

  /** Closes the stage that runs and stops sampling; call once the pipeline returned or threw. */
  stop(): void {
    this.close();
    clearInterval(this.sampler);
  }

  private close(): void {
    const c = this.current;
    if (!c) return;
    const maxRss = maxRssBytes();
    const peak = Math.max(c.peak, process.memoryUsage.rss(), maxRss > c.maxRss ? maxRss : 0);
    this.stages.push({ stage: c.stage, wallS: (performance.now() - c.wall) / 1000, cpuS: cpuSeconds() - c.cpu, peakRssMiB: peak / MIB });
    this.current = null;
  }
}
