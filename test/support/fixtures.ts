/**
 * @module Test inputs generated on the fly: an analytic textured plane rendered through exact
 * homographies (so keypoints have ground truth), JPEG/PNG files with EXIF tags, and short MP4
 * videos encoded with the bundled ffmpeg. Nothing here reads files from outside the test.
 */
import { spawn } from "node:child_process";
import ffmpegInstaller from "@ffmpeg-installer/ffmpeg";
import sharp from "sharp";

/** A plane covered by coloured discs over a smooth background; discs are ideal blob features. */
export interface PlaneScene {
  width: number;
  height: number;
  /** Per disc: cx, cy, radius (plane units), r, g, b. */
  discs: Float64Array;
  discCount: number;
}

/** Deterministic PRNG (mulberry32), so fixtures are identical on every run. */
export function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function makePlaneScene(seed: number, width: number, height: number, discCount: number): PlaneScene {
  const random = rng(seed);
  const discs = new Float64Array(discCount * 6);
  for (let i = 0; i < discCount; i++) {
    discs[6 * i] = random() * width;
    discs[6 * i + 1] = random() * height;
    discs[6 * i + 2] = 2 + 10 * random() ** 2;
    discs[6 * i + 3] = 255 * random();
    discs[6 * i + 4] = 255 * random();
    discs[6 * i + 5] = 255 * random();
  }
  return { width, height, discs, discCount };
}

/** Colour of the plane at (x, y): the last disc covering it, else a smooth gradient. */
function sceneColor(scene: PlaneScene, x: number, y: number, out: Float64Array): void {
  out[0] = 90 + 60 * Math.sin(x * 0.013);
  out[1] = 100 + 50 * Math.cos(y * 0.011);
  out[2] = 110 + 40 * Math.sin((x + y) * 0.007);
  const d = scene.discs;
  for (let i = scene.discCount - 1; i >= 0; i--) {
    const dx = x - d[6 * i];
    const dy = y - d[6 * i + 1];
    const r = d[6 * i + 2];
    if (dx * dx + dy * dy <= r * r) {
      out[0] = d[6 * i + 3];
      out[1] = d[6 * i + 4];
      out[2] = d[6 * i + 5];
      return;
    }
  }
}

/** Spatial hash of discs so rendering does not test every disc per sample. */
function bucketScene(scene: PlaneScene, cell: number): { cols: number; rows: number; lists: PlaneScene[] } {
  const cols = Math.ceil(scene.width / cell);
  const rows = Math.ceil(scene.height / cell);
  const members: number[][] = Array.from({ length: cols * rows }, () => []);
  for (let i = 0; i < scene.discCount; i++) {
    const [cx, cy, r] = [scene.discs[6 * i], scene.discs[6 * i + 1], scene.discs[6 * i + 2]];
    for (let gy = Math.max(0, Math.floor((cy - r) / cell)); gy <= Math.min(rows - 1, Math.floor((cy + r) / cell)); gy++)
      for (let gx = Math.max(0, Math.floor((cx - r) / cell)); gx <= Math.min(cols - 1, Math.floor((cx + r) / cell)); gx++) members[gy * cols + gx].push(i);
  }
  const lists = members.map((ids) => {
    const discs = new Float64Array(ids.length * 6);
    ids.forEach((id, k) => discs.set(scene.discs.subarray(6 * id, 6 * id + 6), 6 * k));
    return { width: scene.width, height: scene.height, discs, discCount: ids.length };
  });
  return { cols, rows, lists };
}

/**
 * Render the plane into a width×height RGB image, where `imageFromPlane` (row-major 3×3) maps
 * plane coordinates to pixel coordinates with pixel centres at +0.5 (compute/scene/camera.ts).
 */
export function renderPlane(scene: PlaneScene, width: number, height: number, imageFromPlane: ArrayLike<number>, supersample = 2): Buffer {
  const planeFromImage = invert3x3(imageFromPlane);
  const cell = 32;
  const grid = bucketScene(scene, cell);
  const out = Buffer.alloc(width * height * 3);
  const sample = new Float64Array(3);
  const sum = new Float64Array(3);
  const h = planeFromImage;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      sum.fill(0);
      for (let sy = 0; sy < supersample; sy++) {
        for (let sx = 0; sx < supersample; sx++) {
          const u = x + (sx + 0.5) / supersample;
          const v = y + (sy + 0.5) / supersample;
          const w = h[6] * u + h[7] * v + h[8];
          const px = (h[0] * u + h[1] * v + h[2]) / w;
          const py = (h[3] * u + h[4] * v + h[5]) / w;
          const gx = Math.min(grid.cols - 1, Math.max(0, Math.floor(px / cell)));
          const gy = Math.min(grid.rows - 1, Math.max(0, Math.floor(py / cell)));
          sceneColor(grid.lists[gy * grid.cols + gx], px, py, sample);
          sum[0] += sample[0];
          sum[1] += sample[1];
          sum[2] += sample[2];
        }
      }
      const n = supersample * supersample;
      const o = 3 * (y * width + x);
      out[o] = Math.round(sum[0] / n);
      out[o + 1] = Math.round(sum[1] / n);
      out[o + 2] = Math.round(sum[2] / n);
    }
  }
  return out;
}

export function invert3x3(m: ArrayLike<number>): Float64Array {
  const [a, b, c, d, e, f, g, h, i] = Array.from(m);
  const A = e * i - f * h;
  const B = -(d * i - f * g);
  const C = d * h - e * g;
  const det = a * A + b * B + c * C;
  return new Float64Array([A / det, -(b * i - c * h) / det, (b * f - c * e) / det, B / det, (a * i - c * g) / det, -(a * f - c * d) / det, C / det, -(a * h - b * g) / det, (a * e - b * d) / det]);
}

/** Similarity about a pixel centre: rotate by `angleRad`, scale by `scale`, then translate. */
export function similarity(angleRad: number, scale: number, cx: number, cy: number, tx = 0, ty = 0): Float64Array {
  const c = Math.cos(angleRad) * scale;
  const s = Math.sin(angleRad) * scale;
  return new Float64Array([c, -s, cx + tx - c * cx + s * cy, s, c, cy + ty - s * cx - c * cy, 0, 0, 1]);
}

export function applyH(H: ArrayLike<number>, x: number, y: number): [number, number] {
  const w = H[6] * x + H[7] * y + H[8];
  return [(H[0] * x + H[1] * y + H[2]) / w, (H[3] * x + H[4] * y + H[5]) / w];
}

export interface ExifFields {
  orientation?: number;
  make?: string;
  model?: string;
  focalLength35mm?: number;
  focalLengthMm?: number;
}

/** Encode raw RGB as JPEG with the given EXIF tags (orientation written as the EXIF tag, pixels untouched). */
export async function encodeJpeg(rgb: Buffer, width: number, height: number, exif: ExifFields = {}, quality = 95): Promise<Buffer> {
  const ifd0: Record<string, string> = {};
  const ifd2: Record<string, string> = {};
  if (exif.make) ifd0.Make = exif.make;
  if (exif.model) ifd0.Model = exif.model;
  if (exif.focalLength35mm) ifd2.FocalLengthIn35mmFilm = String(exif.focalLength35mm);
  if (exif.focalLengthMm) ifd2.FocalLength = `${Math.round(exif.focalLengthMm * 100)}/100`;
  let image = sharp(rgb, { raw: { width, height, channels: 3 } }).jpeg({ quality, chromaSubsampling: "4:4:4" });
  if (Object.keys(ifd0).length + Object.keys(ifd2).length > 0) image = image.withExif({ IFD0: ifd0, IFD2: ifd2 });
  if (exif.orientation) image = image.withMetadata({ orientation: exif.orientation });
  return image.toBuffer();
}

export async function encodePng(rgb: Buffer, width: number, height: number): Promise<Buffer> {
  return sharp(rgb, { raw: { width, height, channels: 3 } }).png().toBuffer();
}

/** Solid-colour image with a distinct colour in each quadrant, to check orientation handling. */
export function quadrantImage(width: number, height: number, colors: [number, number, number][]): Buffer {
  const out = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const q = (y < height / 2 ? 0 : 2) + (x < width / 2 ? 0 : 1);
      out.set(colors[q], 3 * (y * width + x));
    }
  return out;
}

/** Encode raw RGB frames as an H.264 MP4 (yuv420p, every frame a keyframe so blur stays per frame). */
export async function encodeMp4(frames: Buffer[], width: number, height: number, fps: number, outPath: string): Promise<void> {
  const args = ["-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", `${width}x${height}`, "-r", String(fps), "-i", "-", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "12", "-g", "1", "-pix_fmt", "yuv420p", outPath];
  await new Promise<void>((resolve, reject) => {
    const child = spawn(ffmpegInstaller.path, args, { stdio: ["pipe", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}: ${stderr}`))));
    for (const frame of frames) child.stdin.write(frame);
    child.stdin.end();
  });
}

/** Gaussian blur of a raw RGB frame (sigma in pixels), for "blurry frame" fixtures. */
export async function blurRgb(rgb: Buffer, width: number, height: number, sigma: number): Promise<Buffer> {
  return sharp(rgb, { raw: { width, height, channels: 3 } }).blur(sigma).raw().toBuffer();
}
