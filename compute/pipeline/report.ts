/** @module report.json: every stage's report plus the job-level summary, written into the output folder. */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Format } from "../../shared/formats.js";
import type { Quality } from "../../shared/jobs.js";
import type { SkippedInput, StageReport } from "../scene/index.js";
import type { QualityFigures } from "../stages/quality-report/index.js";

export interface PipelineOutput {
  format: Format;
  path: string;
  bytes: number;
}

export interface PipelineReport {
  quality: Quality;
  sparseOnly: boolean;
  startedAt: string;
  finishedAt: string;
  wallMs: number;
  /** Input files and the images/keyframes ingest produced from them. */
  files: number;
  images: number;
  registered: number;
  skipped: SkippedInput[];
  unregistered: Array<{ name: string; reason: string }>;
  /** Sizes of the models SfM dropped because the scene fell apart (largest kept). */
  otherModelSizes: number[];
  /** Stages that did not run, with why (e.g. a stage not built into this service). */
  notRun: Array<{ stage: string; reason: string }>;
  stages: StageReport[];
  outputs: Array<{ format: Format; file: string; bytes: number }>;
  /**
   * Where the model is on Earth (docs/API.md `georeference`): model coordinates plus `offset`
   * are coordinates in `crs`; absent when nothing placed it.
   */
  georeference?: GeoreferenceReport;
  /** Why photos with GPS fixes still gave no georeference. */
  georeferenceRefused?: string;
  /**
   * The quality report's figures (compute/stages/quality-report), the numbers report.html shows
   * (`quality` already names the preset).
   */
  qualityReport?: QualityFigures;
  /** Present when the run failed with a client-facing PipelineError. */
  error?: { code: string; message: string; suggestion: string };
}

export interface GeoreferenceReport {
  crs: string;
  offset: [number, number, number];
  source: "control" | "gps";
  /** Ground sampling distance of the photos, metres per pixel. */
  gsdM?: number;
  /** For `gps`: the fixes that held the model and their RMS distance from the cameras, metres. */
  gpsFixes?: number;
  gpsResidualRmsM?: number;
}

export async function writeReport(outDir: string, report: PipelineReport): Promise<string> {
  const file = path.join(outDir, "report.json");
  await writeFile(file, JSON.stringify(report, null, 2));
  return file;
}
