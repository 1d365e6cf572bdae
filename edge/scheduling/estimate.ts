/**
 * @module The cost model behind the first `estimated_completion`, before compute has started.
 *
 * Stated here so clients and operators can reason about it: a fixed start-up cost (queueing,
 * container start), plus per photo a fixed cost and a cost per megapixel of the photo as the job
 * stores it (its long side capped by the quality preset, shared/presets.ts), plus per
 * video the keyframes its size suggests (capped as the preset caps them), each costed as a
 * 1080p photo. The `quality` setting scales the pipeline part. Once compute runs, it replaces
 * the estimate with its own (compute/pipeline/stage-costs.ts and the elapsed time).
 *
 * Most of a photo's cost does not follow its pixels: dense works on depth maps of at most 800
 * px (standard), and matching and SfM follow the photo count. Fitted on the development
 * machine's `npm run bench -- eta` runs at `standard` (2 cores): 4.4–4.6 s a photo for 0.3-MP
 * survey photos (50 and 200 of them), 7.9–8.2 s for 6-MP photos (Herz-Jesus-P8, fountain-P11),
 * 6 s a keyframe for an 8-MB, 27-keyframe orbit video. The former model (1.5 s per megapixel,
 * uncapped) told a 200-photo survey of small photos 2 minutes for its 14, and a 20-MP photo
 * (stored at 2400 px like fountain's 6-MP ones) 30 s for about 8.
 */
import type { InputKind, Quality } from "../../shared/jobs.js";
import { PRESET_CAPS } from "../../shared/presets.js";

export const START_UP_SECONDS = 30;
/** Per photo or keyframe, whatever its size, at `standard`. */
export const SECONDS_PER_IMAGE = 4.2;
/** Per megapixel of the photo as stored, at `standard`. */
export const SECONDS_PER_STORED_MEGAPIXEL = 1.05;
/** The long side a preset stores photos at: the pipeline's own cap (shared/presets.ts, compute's ingest `maxImageSide`). */
export const STORED_SIDE: Record<Quality, number> = { preview: PRESET_CAPS.preview.storedSide, standard: PRESET_CAPS.standard.storedSide, high: PRESET_CAPS.high.storedSide };
/** Keyframes per MiB of video (27 from the 7.6-MiB orbit test video), up to the preset's cap. */
export const KEYFRAMES_PER_VIDEO_MIB = 3.5;
/** The pipeline's keyframe cap per video (shared/presets.ts, compute's ingest `videoMaxKeyframes`). */
export const MAX_KEYFRAMES: Record<Quality, number> = { preview: PRESET_CAPS.preview.videoMaxKeyframes, standard: PRESET_CAPS.standard.videoMaxKeyframes, high: PRESET_CAPS.high.videoMaxKeyframes };
/** What a keyframe is costed as: a 1080p frame. */
const VIDEO_FRAME_PIXELS = 1920 * 1080;
/** Compressed bytes per pixel when an image's header gave no size (a typical camera JPEG). */
export const ASSUMED_BYTES_PER_PIXEL: Record<"jpeg" | "png" | "heic", number> = { jpeg: 0.35, png: 1.5, heic: 0.2 };
/** The pipeline's time against `standard`'s (preview measured at 0.7× on fountain-P11; high ~2.5×, presets.ts). */
export const QUALITY_FACTOR: Record<Quality, number> = { preview: 0.7, standard: 1, high: 2.5 };

export interface EstimateInput {
  kind: InputKind;
  /** File size in bytes. */
  size: number;
  /** Pixel count from the file header, when it was cheap to read. */
  pixels?: number;
}

/** Megapixels of a photo of `pixels` stored with its long side at most `side` (a 4:3 photo when the aspect is unknown). */
function storedMegapixels(pixels: number, side: number): number {
  const longSide = Math.sqrt((pixels * 4) / 3);
  return (pixels * Math.min(1, (side / longSide) ** 2)) / 1e6;
}

/** Seconds of pipeline work, at `standard`, for one photo of `pixels`. */
function photoSeconds(pixels: number, quality: Quality): number {
  return SECONDS_PER_IMAGE + SECONDS_PER_STORED_MEGAPIXEL * storedMegapixels(pixels, STORED_SIDE[quality]);
}

/** Seconds of pipeline work, at `standard`'s speed, for one input file of a job at `quality`. */
export function inputSeconds(input: EstimateInput, quality: Quality = "standard"): number {
  if (input.kind === "mp4" || input.kind === "mov") {
    const keyframes = Math.max(2, Math.min(MAX_KEYFRAMES[quality], (input.size / (1024 * 1024)) * KEYFRAMES_PER_VIDEO_MIB));
    return keyframes * photoSeconds(VIDEO_FRAME_PIXELS, quality);
  }
  return photoSeconds(input.pixels ?? input.size / ASSUMED_BYTES_PER_PIXEL[input.kind], quality);
}

/** Estimated completion time for a job created at `createdAtMs` (Unix ms). */
export function estimateCompletion(inputs: readonly EstimateInput[], quality: Quality, createdAtMs: number): Date {
  const pipelineSeconds = inputs.reduce((sum, input) => sum + inputSeconds(input, quality), 0) * QUALITY_FACTOR[quality];
  return new Date(createdAtMs + Math.ceil((START_UP_SECONDS + pipelineSeconds) * 1000));
}
