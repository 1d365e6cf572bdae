/**
 * @module The published cameras of a dataset (its gt/cameras.json) in the model's pixel frame,
 * for the benches that compare the images with them (precision.ts, pair-agreement.ts).
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { RigidTransform } from "../compute/scene/index.js";
import type { KnownCamera } from "../test/support/track-agreement.js";

/** A published camera in the model's pixel frame (pixel centres at +0.5, the model's image size). */
export type PublishedCamera = KnownCamera;

/** One published camera as cameras.json gives it, with the half-pixel shift to our convention. */
interface PublishedEntry {
  pose: RigidTransform;
  K: number[][];
  width: number;
  pixelCentreOffset: number;
}

export interface PublishedSet {
  radius: number;
  byName: Map<string, PublishedEntry>;
}

export async function loadPublished(setDir: string): Promise<PublishedSet | null> {
  const file = path.join(setDir, "gt/cameras.json");
  if (!existsSync(file)) return null;
  const gt = JSON.parse(await readFile(file, "utf8")) as {
    convention: string;
    scene: { radius: number };
    images?: Array<{ file: string; width: number; K: number[][]; R: number[][]; t: number[]; outlier?: boolean }>;
  };
  if (!gt.images || gt.images.length === 0) return null;
  // Sets whose convention puts pixel centres at integer + 0.5 match ours; the others publish
  // OpenCV's integer centres, half a pixel before ours.
  const pixelCentreOffset = /centers at integer coordinates \+ 0\.5/.test(gt.convention) ? 0 : 0.5;
  const byName = new Map<string, PublishedEntry>();
  for (const i of gt.images) {
    if (i.outlier) continue;
    byName.set(i.file, { pose: { R: Float64Array.from(i.R.flat()), t: Float64Array.from(i.t) }, K: i.K, width: i.width, pixelCentreOffset });
  }
  return { radius: gt.scene.radius, byName };
}

export function publishedCamera(entry: PublishedEntry, modelWidth: number): PublishedCamera {
  // Ingest may have downscaled the image: scale K about the image corner.
  const s = modelWidth / entry.width;
  const [[fx, skew, cx], [, fy, cy]] = entry.K;
  return { camFromWorld: entry.pose, fx: s * fx, fy: s * fy, skew: s * skew, cx: s * (cx + entry.pixelCentreOffset), cy: s * (cy + entry.pixelCentreOffset) };
}

/** Pixels (x0, y0, x1, y1, …) → normalised coordinates through a published K (fx, fy, skew; no distortion), one camera per point. */
export function normalizePublished(cams: (k: number) => PublishedCamera, xy: ArrayLike<number>, count: number): Float64Array {
  const out = new Float64Array(2 * count);
  for (let k = 0; k < count; k++) {
    const cam = cams(k);
    const yn = (xy[2 * k + 1] - cam.cy) / cam.fy;
    out[2 * k] = (xy[2 * k] - cam.cx - cam.skew * yn) / cam.fx;
    out[2 * k + 1] = yn;
  }
  return out;
}
