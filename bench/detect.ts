/**
 * @module `npm run bench -- detect [sets] [--images=N] [--side=PX] [--rounds=N]`: the features
 * stage's AKAZE detector (OpenCV.js, WebAssembly, as the stage's workers run it) against native
 * OpenCV's AKAZE (Debian's python3-opencv, bench/native/akaze.py) on the same grey images, with the
 * stage's threshold and sublevels (issue 42, "hot loops at the machine's speed": feature detection).
 *
 * Each set's first N photos are decoded as the stage decodes them (decode.ts, at the standard
 * preset's 2000-px detection side, or --side; small photos upsampled 2×, detect.ts
 * `detectionGray`), written as PGM, and detected ROUNDS times by each detector in each of three
 * turns (the detectors alternate, as this machine has slow spells); the fastest call counts.
 * OpenCV.js runs on this process's main thread; native OpenCV on one thread (the per-thread speed,
 * since the stage runs one photo per worker) and on every core. The keypoint counts show whether
 * both do the same work: OpenCV.js 4.12 against Debian's 4.6 found the same counts, to one
 * keypoint, on 14 photos of the seven sets (2026-12-02).
 *
 * Needs /usr/bin/python3 with cv2: apt-get installs python3-opencv when run as root, as the
 * other benches install COLMAP; without it the native columns print n/a.
 */
import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import { decodeForDetection } from "../compute/stages/features/decode.js";
import { detectionGray } from "../compute/stages/features/detect.js";
import { loadOpenCV } from "../compute/stages/features/opencv.js";
import { DEFAULTS as FEATURE_DEFAULTS } from "../compute/stages/features/options.js";
import { datasetInputs, datasetsRoot, listDatasets, repoRoot } from "./datasets.js";
import { ensureDebianTool, runs } from "./debian-tool.js";

const exec = promisify(execFile);
const PYTHON = "/usr/bin/python3";
const OUT_DIR = path.join(repoRoot, "bench-out/detect");
/** Turns each detector takes per image. */
const PASSES = 3;

interface Row {
  image: string;
  width: number;
  height: number;
  jsKeypoints: number;
  jsMs: number;
  native1?: { keypoints: number; ms: number };
  nativeAll?: { keypoints: number; ms: number; threads: number };
}

/** True when /usr/bin/python3 imports cv2; installs Debian's python3-opencv first when root and apt-get can. */
async function ensureNativeOpenCV(): Promise<boolean> {
  const found = await ensureDebianTool("python3-opencv", runs(PYTHON, ["-c", "import cv2"]));
  if (!found) console.log("bench: native OpenCV not available; its columns are n/a");
  return found;
}

/** Binary PGM (P5) of an 8-bit grey image. */
function pgm(grey: Uint8Array, width: number, height: number): Buffer {
  return Buffer.concat([Buffer.from(`P5\n${width} ${height}\n255\n`, "latin1"), Buffer.from(grey.buffer, grey.byteOffset, grey.byteLength)]);
}

/** The fastest of `rounds` OpenCV.js detectAndCompute calls on the grey image, and the keypoints it found. */
async function detectInOpenCvJs(grey: Uint8Array, width: number, height: number, rounds: number): Promise<{ keypoints: number; ms: number }> {
  const { cv } = await loadOpenCV();
  const image = new cv.Mat(height, width, cv.CV_8UC1);
  const mask = new cv.Mat();
  let best = Infinity;
  let count = 0;
  try {
    image.data.set(grey);
    for (let r = 0; r < rounds; r++) {
      const keypoints = new cv.KeyPointVector();
      const descriptors = new cv.Mat();
      const akaze = new cv.AKAZE();
      try {
        akaze.setThreshold(FEATURE_DEFAULTS.threshold);
        akaze.setNOctaveLayers(FEATURE_DEFAULTS.octaveLayers);
        const started = performance.now();
        akaze.detectAndCompute(image, mask, keypoints, descriptors);
        best = Math.min(best, performance.now() - started);
        count = keypoints.size();
      } finally {
        for (const obj of [keypoints, descriptors, akaze]) obj.delete();
      }
    }
  } finally {
    image.delete();
    mask.delete();
  }
  return { keypoints: count, ms: best };
}

/** Native OpenCV on the PGM files, `threads` OpenCV threads; one result per file, in order. */
async function detectNatively(files: string[], rounds: number, threads: number): Promise<Array<{ keypoints: number; ms: number; threads: number; version: string }>> {
  const script = path.join(repoRoot, "bench/native/akaze.py");
  // The WebAssembly heap never gives memory back, so a call after the first finds its buffers
  // mapped; glibc returns large blocks to the system, and every native call page-faulted them in
  // again (templeSparseRing's 1280 × 960 photo: 440–460 ms per call instead of 149). The native
  // reference keeps its memory too.
  const env = { ...process.env, MALLOC_MMAP_THRESHOLD_: String(2 ** 32), MALLOC_TRIM_THRESHOLD_: String(2 ** 32), MALLOC_TOP_PAD_: String(2 ** 29) };
  const { stdout } = await exec(PYTHON, [script, String(FEATURE_DEFAULTS.threshold), String(FEATURE_DEFAULTS.octaveLayers), String(rounds), String(threads), ...files], { maxBuffer: 1 << 24, env });
  return stdout.trim().split("\n").map((line) => JSON.parse(line) as { keypoints: number; ms: number; threads: number; version: string });
}

function numberOption(args: string[], name: string, fallback: number): number {
  const raw = args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
  const value = raw === undefined ? fallback : Number(raw);
  if (!(value > 0)) throw new Error(`bench detect: --${name} must be a positive number`);
  return value;
}

export async function run(args: string[]): Promise<void> {
  const perSet = numberOption(args, "images", 1);
  const side = numberOption(args, "side", FEATURE_DEFAULTS.maxImageSide);
  const rounds = numberOption(args, "rounds", 3);
  const filters = args.filter((a) => !a.startsWith("--"));
  const sets = await listDatasets(filters);
  if (sets.length === 0) {
    console.log(`bench detect: no dataset under ${datasetsRoot} matches ${filters.join(" ") || "(any)"}`);
    return;
  }
  await mkdir(OUT_DIR, { recursive: true });
  const native = await ensureNativeOpenCV();
  const rows: Row[] = [];
  let version = "";
  for (const set of sets) {
    const inputs = (await datasetInputs(path.join(datasetsRoot, set))).filter((i) => !/\.(mp4|mov)$/i.test(i.path)).slice(0, perSet);
    for (const input of inputs) {
      const meta = await sharp(input.path).metadata();
      const ref = { index: 0, name: input.name, path: input.path, width: meta.width!, height: meta.height! };
      const pixels = await decodeForDetection(ref as Parameters<typeof decodeForDetection>[0], side, FEATURE_DEFAULTS.upsampleMaxSide);
      const { gray } = detectionGray(pixels);
      const file = path.join(OUT_DIR, `${set.replace(/\//g, "_")}_${input.name.replace(/\.\w+$/, "")}.pgm`);
      await writeFile(file, pgm(gray, pixels.detectWidth, pixels.detectHeight));
      const row: Row = { image: `${set}/${input.name}`, width: pixels.detectWidth, height: pixels.detectHeight, jsKeypoints: 0, jsMs: Infinity };
      // The detectors take turns, PASSES times over, each pass `rounds` calls: this machine has
      // slow spells of seconds, and the fastest call of each detector is what is compared.
      for (let pass = 0; pass < PASSES; pass++) {
        const js = await detectInOpenCvJs(gray, pixels.detectWidth, pixels.detectHeight, rounds);
        row.jsKeypoints = js.keypoints;
        row.jsMs = Math.min(row.jsMs, js.ms);
        if (!native) continue;
        const [one] = await detectNatively([file], rounds, 1);
        const [all] = await detectNatively([file], rounds, os.availableParallelism());
        row.native1 = { keypoints: one.keypoints, ms: Math.min(row.native1?.ms ?? Infinity, one.ms) };
        row.nativeAll = { keypoints: all.keypoints, ms: Math.min(row.nativeAll?.ms ?? Infinity, all.ms), threads: all.threads };
        version = one.version;
      }
      rows.push(row);
    }
  }
  const f = (v: number | undefined, digits = 0) => (v === undefined ? "n/a" : v.toFixed(digits));
  console.log(`\nAKAZE, threshold ${FEATURE_DEFAULTS.threshold}, ${FEATURE_DEFAULTS.octaveLayers} sublevels, detection side ${side} px; fastest of ${rounds}; OpenCV.js on one thread, native OpenCV ${version || "n/a"}`);
  console.log("image | detect px | keypoints js / native | OpenCV.js ms | native 1 thread ms | js / native | native all threads ms");
  for (const r of rows) {
    const ratio = r.native1 ? r.jsMs / r.native1.ms : undefined;
    console.log([r.image, `${r.width}×${r.height}`, `${r.jsKeypoints} / ${r.native1 ? r.native1.keypoints : "n/a"}`, f(r.jsMs), f(r.native1?.ms), ratio === undefined ? "n/a" : `${ratio.toFixed(2)}×`, r.nativeAll ? `${f(r.nativeAll.ms)} (${r.nativeAll.threads})` : "n/a"].join(" | "));
  }
  const withNative = rows.filter((r) => r.native1);
  if (withNative.length > 0) {
    const js = withNative.reduce((s, r) => s + r.jsMs, 0);
    const nat = withNative.reduce((s, r) => s + r.native1!.ms, 0);
    console.log(`all images: OpenCV.js ${js.toFixed(0)} ms, native one thread ${nat.toFixed(0)} ms: ${(js / nat).toFixed(2)}×`);
  }
  await writeFile(path.join(repoRoot, "bench/out/detect.json"), JSON.stringify({ side, rounds, native: version || null, rows }, null, 2));
}
