/**
 * @module The caps of each quality preset that both sides use: compute's pipeline applies them
 * (compute/pipeline/presets.ts, the ingest stage's options) and the edge's first time estimate
 * costs a job by them (edge/scheduling/estimate.ts). One place, so the estimate cannot drift from what the
 * pipeline does; the other stage options of a preset are compute's alone.
 */
import type { Quality } from "./jobs.js";

export interface PresetCaps {
  /** The long side a photo (or a video keyframe) is stored at: larger ones are downscaled (ingest `maxImageSide`). */
  storedSide: number;
  /** At most this many keyframes per video (ingest `videoMaxKeyframes`). */
  videoMaxKeyframes: number;
}

export const PRESET_CAPS: Record<Quality, PresetCaps> = {
  preview: { storedSide: 1600, videoMaxKeyframes: 120 },
  standard: { storedSide: 2400, videoMaxKeyframes: 400 },
  high: { storedSide: 3200, videoMaxKeyframes: 600 },
};
