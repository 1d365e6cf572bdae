/**
 * @module Held-back cameras for a real set that publishes no poses (bench views): the usual
 * protocol of held-out view synthesis, test cameras from an SfM of every image. The pipeline's
 * own sparse run on all the set's photos, held-back ones included, gives each photo's pose and
 * its calibration (focal, principal point, radial k1 and k2 of the COLMAP export's RADIAL
 * model). The bench renders a pinhole, so the held-back photo is undistorted with that
 * calibration before it is compared (undistort). These cameras are the pipeline's own, not an
 * independent truth: a figure on such a set says how the model looks, not how right the
 * cameras are.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { unzipSync } from "fflate";
import { parseImagesTxt } from "./colmap.js";
import { datasetInputs } from "./datasets.js";
import type { RenderCamera } from "./three-render.js";

export interface TrueCamera {
  file: string;
  /** The photo's size in pixels, which K refers to. */
  width: number;
  height: number;
  K: number[][];
  R: number[];
  t: number[];
  /** Radial distortion of normalised coordinates (COLMAP RADIAL): x_d = x·(1 + k1 r² + k2 r⁴). */
  radial?: [number, number];
}

interface ColmapCamera {
  width: number;
  height: number;
  params: number[];
}

/** cameras.txt of a COLMAP export: id → size and parameters (SIMPLE_RADIAL, RADIAL, PINHOLE, SIMPLE_PINHOLE). */
export function parseCamerasTxt(text: string): Map<string, ColmapCamera & { model: string }> {
  const cameras = new Map<string, ColmapCamera & { model: string }>();
  for (const line of text.split("\n")) {
    if (line.length === 0 || line.startsWith("#")) continue;
    const [id, model, width, height, ...params] = line.trim().split(/\s+/);
    cameras.set(id, { model, width: Number(width), height: Number(height), params: params.map(Number) });
  }
  return cameras;
}

/** K and radial terms of a COLMAP camera, scaled from its stored size to the photo's `width`. */
function calibration(camera: ColmapCamera & { model: string }, width: number): { K: number[][]; radial: [number, number] } {
  const s = width / camera.width;
  const p = camera.params;
  const [fx, fy, cx, cy, k1, k2] =
    camera.model === "PINHOLE" ? [p[0], p[1], p[2], p[3], 0, 0]
    : camera.model === "SIMPLE_PINHOLE" ? [p[0], p[0], p[1], p[2], 0, 0]
    : camera.model === "SIMPLE_RADIAL" ? [p[0], p[0], p[1], p[2], p[3], 0]
    : [p[0], p[0], p[1], p[2], p[3], p[4]];
  return { K: [[s * fx, 0, s * cx], [0, s * fy, s * cy], [0, 0, 1]], radial: [k1, k2] };
}

/**
 * Every photo's camera from `sparseRun(files, outDir)` (the pipeline, sparse only, on all of the
 * set's photos); null when the run exported no cameras.
 */
export async function referenceTruth(setDir: string, sparseRun: (files: string[], outDir: string) => Promise<unknown>): Promise<{ cameras: TrueCamera[]; pixelCentreOffset: number } | null> {
  const inputs = await datasetInputs(setDir);
  const outDir = await mkdtemp(path.join(tmpdir(), "views-reference-"));
  try {
    await sparseRun(inputs.map((i) => i.path), outDir);
    const zipName = (await readdir(outDir)).find((n) => n.includes("colmap"));
    if (!zipName) return null;
    const zip = unzipSync(new Uint8Array(await readFile(path.join(outDir, zipName))));
    const text = (name: string) => new TextDecoder().decode(zip[name]);
    const colmapCameras = parseCamerasTxt(text("cameras.txt"));
    const cameraIds = new Map(text("images.txt").split("\n").filter((l) => l.length > 0 && !l.startsWith("#")).filter((_, k) => k % 2 === 0).map((l) => {
      const f = l.trim().split(/\s+/);
      return [f.slice(9).join(" "), f[8]] as const;
    }));
    const sharp = (await import("sharp")).default;
    const cameras: TrueCamera[] = [];
    for (const pose of parseImagesTxt(text("images.txt"))) {
      const input = inputs.find((i) => i.name === pose.name);
      const camera = colmapCameras.get(cameraIds.get(pose.name) ?? "");
      if (!input || !camera) continue;
      const meta = await sharp(input.path).metadata();
      cameras.push({ file: pose.name, width: meta.width!, height: meta.height!, ...calibration(camera, meta.width!), R: [...pose.camFromWorld.R], t: [...pose.camFromWorld.t] });
    }
    // The export's principal point is in corner-origin pixels, as the renderer's.
    return { cameras, pixelCentreOffset: 0 };
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}

/**
 * The photo (interleaved RGB at `cam`'s size) as a pinhole of `cam` would see it: each output
 * pixel samples the photo where the radial model puts its ray (bilinear, clamped at the edges).
 */
export function undistort(rgb: Uint8Array, cam: RenderCamera, [k1, k2]: [number, number]): Uint8Array {
  const { width, height, fx, fy, cx, cy } = cam;
  const out = new Uint8Array(rgb.length);
  for (let v = 0; v < height; v++) {
    for (let u = 0; u < width; u++) {
      const x = (u + 0.5 - cx) / fx;
      const y = (v + 0.5 - cy) / fy;
      const r2 = x * x + y * y;
      const d = 1 + k1 * r2 + k2 * r2 * r2;
      const su = Math.min(width - 1, Math.max(0, fx * x * d + cx - 0.5));
      const sv = Math.min(height - 1, Math.max(0, fy * y * d + cy - 0.5));
      const u0 = Math.floor(su);
      const v0 = Math.floor(sv);
      const u1 = Math.min(width - 1, u0 + 1);
      const v1 = Math.min(height - 1, v0 + 1);
      const au = su - u0;
      const av = sv - v0;
      for (let ch = 0; ch < 3; ch++) {
        const top = rgb[3 * (v0 * width + u0) + ch] * (1 - au) + rgb[3 * (v0 * width + u1) + ch] * au;
        const bottom = rgb[3 * (v1 * width + u0) + ch] * (1 - au) + rgb[3 * (v1 * width + u1) + ch] * au;
        out[3 * (v * width + u) + ch] = Math.round(top * (1 - av) + bottom * av);
      }
    }
  }
  return out;
}
