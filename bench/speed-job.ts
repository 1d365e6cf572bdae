/**
 * @module One set of `npm run bench -- speed`, in a process of its own so that its CPU time and
 * peak memory are the job's: `tsx bench/speed-job.ts <set dir> <out dir> <quality>`. Runs the
 * whole pipeline (runPipeline, as the CLI does: front workers started inside the job) on the
 * set's inputs and prints one JSON line: per progress stage the wall time, the CPU time of the
 * process (every thread) and the peak memory (stage-meter.ts), the job's totals, and from
 * report.json the registration count and each stage report's wall time (keypoints, inside the
 * matching progress stage, has a report of its own).
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Quality } from "../shared/jobs.js";
import { runPipeline } from "../compute/pipeline/index.js";
import type { PipelineReport } from "../compute/pipeline/report.js";
import { datasetInputs } from "./datasets.js";
import { cpuSeconds, processFigures, StageMeter, type ProcessFigures, type StageFigures } from "./stage-meter.js";

export interface SpeedJobFigures {
  files: number;
  images: number;
  registered: number;
  stages: StageFigures[];
  /** The job: runPipeline from its call to its return, in this process. */
  job: ProcessFigures;
  /** report.json's wall time of each stage report, seconds. */
  reportStageS: Record<string, number>;
  error?: string;
}

async function main(): Promise<void> {
  const [setDir, outDir, quality] = process.argv.slice(2);
  const files = await datasetInputs(setDir);
  const workDir = await mkdtemp(path.join(tmpdir(), "speed-"));
  const meter = new StageMeter();
  const figures: SpeedJobFigures = { files: files.length, images: 0, registered: 0, stages: meter.stages, job: { wallS: 0, cpuS: 0, peakRssMiB: 0 }, reportStageS: {} };
  const started = performance.now();
  const cpuAtStart = cpuSeconds();
  try {
    await runPipeline({ files, workDir, outDir, quality: quality as Quality, onProgress: meter.onProgress });
  } catch (err) {
    figures.error = err instanceof Error ? err.message : String(err);
  } finally {
    meter.stop();
    figures.job = processFigures(started, cpuAtStart);
    await rm(workDir, { recursive: true, force: true });
  }
  const report = JSON.parse(await readFile(path.join(outDir, "report.json"), "utf8").catch(() => "{}")) as Partial<PipelineReport>;
  figures.images = report.images ?? 0;
  figures.registered = report.registered ?? 0;
  for (const s of report.stages ?? []) figures.reportStageS[s.stage] = s.wallMs / 1000;
  console.log(JSON.stringify(figures));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
