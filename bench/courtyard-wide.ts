/**
 * @module `rendered/courtyard-wide`, a set the views bench makes itself: the courtyard
 * (courtyard.ts) photographed through a barrel lens without EXIF, as a wide action camera or a
 * phone's raw wide module delivers it. Each photo is the courtyard's render resampled through
 * r_d = r·(1 + k1·r² + k2·r⁴) with k1 −0.25 and k2 0: a lens whose radial mapping folds over at
 * 49° off the axis (geometry/camera.ts foldRadius2), beyond its frame's corner at 30°, so the
 * pipeline must find the distortion itself and every projection must stop at the fold.
 *
 * The frame is cropped to 800 × 600 at the courtyard's focal (864 px) so that every pixel of the
 * distorted photo has a source pixel in the pinhole render (the mapping pulls the corners in by
 * 12 %). gt/cameras.json publishes the lens as `"radial": [k1, k2]`; the views bench undistorts the
 * held-back photos with it before scoring, and renders the truth's mask through the pinhole K.
 *
 * Written on first use to bench/out/rendered/courtyard-wide/, from the courtyard's folder, and made
 * anew when either set's version changes.
 */
import { existsSync } from "node:fs";
import { copyFile, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { undistortPoint } from "../compute/geometry/camera.js";
import type { CameraIntrinsics } from "../compute/geometry/types.js";
import { courtyardDataset } from "./courtyard.js";
import { repoRoot } from "./datasets.js";

const VERSION = 1;
const NAME = "courtyard-wide";
export const COURTYARD_WIDE_SET = `rendered/${NAME}`;
/** The lens: barrel distortion that a wide module shows before any in-camera correction. */
const K1 = -0.25;
const K2 = 0;
const WIDTH = 800;
const HEIGHT = 600;

interface SetCamera { file: string; width: number; height: number; K: number[][]; R: number[][]; t: number[]; center: number[]; outlier: boolean; radial?: [number, number] }
interface SetCameras { convention: string; generator: { module: string; version: number; from?: { module: string; version: number } }; images: SetCamera[] }

/** The set's folder, made from the courtyard's first if it is missing or from another version of either. */
export async function courtyardWideDataset(): Promise<string> {
  const source = await courtyardDataset();
  const sourceGt = JSON.parse(await readFile(path.join(source, "gt/cameras.json"), "utf8")) as SetCameras;
  const dir = path.join(repoRoot, "bench/out", COURTYARD_WIDE_SET);
  const camerasFile = path.join(dir, "gt/cameras.json");
  if (existsSync(camerasFile)) {
    const cached = JSON.parse(await readFile(camerasFile, "utf8")) as SetCameras;
    if (cached.generator.version === VERSION && cached.generator.from?.version === sourceGt.generator.version) return dir;
  }
  console.log(`views: making ${COURTYARD_WIDE_SET} (${sourceGt.images.length} photos through a k1 ${K1} lens, ${WIDTH}×${HEIGHT}) into ${dir}…`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(path.join(dir, "images"), { recursive: true });
  await mkdir(path.join(dir, "gt"), { recursive: true });
  const images: SetCamera[] = [];
  for (const camera of sourceGt.images) {
    const { data, info } = await sharp(path.join(source, "images", camera.file)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const focal = camera.K[0]![0]!;
    const lens: CameraIntrinsics = { focal, cx: WIDTH / 2, cy: HEIGHT / 2, k1: K1, k2: K2 };
    const rgb = throughLens(new Uint8Array(data.buffer, data.byteOffset, data.length), info.width, info.height, camera.K, lens);
    // Quality 92 as the other sets; no EXIF, so the pipeline calibrates the lens itself.
    await sharp(Buffer.from(rgb), { raw: { width: WIDTH, height: HEIGHT, channels: 3 } }).jpeg({ quality: 92 }).toFile(path.join(dir, "images", camera.file));
    images.push({ ...camera, width: WIDTH, height: HEIGHT, K: [[focal, 0, lens.cx], [0, focal, lens.cy], [0, 0, 1]], radial: [K1, K2] });
  }
  await copyFile(path.join(source, "gt/mesh.ply"), path.join(dir, "gt/mesh.ply"));
  const gt = { ...sourceGt, generator: { module: "bench/courtyard-wide.ts", version: VERSION, from: sourceGt.generator }, images };
  // Written last: its presence marks a complete set.
  await writeFile(camerasFile, JSON.stringify(gt, null, 1));
  return dir;
}

/**
 * The WIDTH × HEIGHT photo `lens` takes of the scene a pinhole render (RGB, `sourceK`, pixel
 * centres at +0.5) shows: each pixel's ray found by undoing the distortion, then read bilinearly.
 */
function throughLens(source: Uint8Array, sourceWidth: number, sourceHeight: number, sourceK: number[][], lens: CameraIntrinsics): Uint8Array {
  const out = new Uint8Array(3 * WIDTH * HEIGHT);
  const ray = new Float64Array(2);
  const f = sourceK[0]![0]!, scx = sourceK[0]![2]!, scy = sourceK[1]![2]!;
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      undistortPoint(lens, x + 0.5, y + 0.5, ray);
      const sx = Math.min(sourceWidth - 1.001, Math.max(0, ray[0]! * f + scx - 0.5));
      const sy = Math.min(sourceHeight - 1.001, Math.max(0, ray[1]! * f + scy - 0.5));
      const x0 = Math.floor(sx), y0 = Math.floor(sy), tx = sx - x0, ty = sy - y0;
      for (let c = 0; c < 3; c++) {
        const at = (row: number, col: number): number => source[3 * (row * sourceWidth + col) + c]!;
        const top = at(y0, x0) * (1 - tx) + at(y0, x0 + 1) * tx;
        const bottom = at(y0 + 1, x0) * (1 - tx) + at(y0 + 1, x0 + 1) * tx;
        out[3 * (y * WIDTH + x) + c] = Math.round(top * (1 - ty) + bottom * ty);
      }
    }
  }
  return out;
}
