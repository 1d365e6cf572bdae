/**
 * @module The cost model behind `estimated_completion`.
 *
 * A deliberately simple linear model, stated here so clients and operators can reason about
 * it: a fixed start-up cost (queueing, container start, model export), plus a cost per image
 * megapixel (feature extraction and dense matching scale with pixels), plus a cost per video
 * MiB (decoding and keyframe selection scale with the compressed stream). The `quality`
 * setting scales the pipeline part. Compute replaces the estimate with its own as it runs.
 */
import type { InputKind, Quality } from "../shared/jobs.js";

export const START_UP_SECONDS = 30;
export const SECONDS_PER_IMAGE_MEGAPIXEL = 1.5;
export const SECONDS_PER_VIDEO_MIB = 2;
/** Compressed bytes per pixel when an image's header gave no size (a typical camera JPEG). */
export const ASSUMED_BYTES_PER_PIXEL: Record<"jpeg" | "png" | "heic", number> = { jpeg: 0.35, png: 1.5, heic: 0.2 };
export const QUALITY_FACTOR: Record<Quality, number> = { preview: 0.4, standard: 1, high: 2.5 };

export interface EstimateInput {
  kind: InputKind;
  /** File size in bytes. */
  size: number;
  /** Pixel count from the file header, when it was cheap to read. */
  pixels?: number;
}

/** Seconds of pipeline work for one input file. */
export function inputSeconds(input: EstimateInput): number {
  if (input.kind === "mp4" || input.kind === "mov") return (input.size / (1024 * 1024)) * SECONDS_PER_VIDEO_MIB;
  const pixels = input.pixels ?? input.size / ASSUMED_BYTES_PER_PIXEL[input.kind];
  return (pixels / 1e6) * SECONDS_PER_IMAGE_MEGAPIXEL;
}

/** Estimated completion time for a job created at `createdAtMs` (Unix ms). */
export function estimateCompletion(inputs: readonly EstimateInput[], quality: Quality, createdAtMs: number): Date {
  const pipelineSeconds = inputs.reduce((sum, input) => sum + inputSeconds(input), 0) * QUALITY_FACTOR[quality];
  return new Date(createdAtMs + Math.ceil((START_UP_SECONDS + pipelineSeconds) * 1000));
}
