/**
 * @module `npm run bench -- views [set filters] [--quality=q] [--root=<checkout>] [--docs] [--keep=<dir>] [--own-cameras] [--seeds=1,2,3]`:
 * how the delivered model looks from photos it never saw (issue 13).
 *
 * For each set with ground-truth cameras (image sets only): every 8th photo by sorted name is
 * held back (0-based positions 4, 12, 20, …: the middle of each block of eight, so that a
 * held-back photo is never the end of a capture sequence, whose margins no other photo sees),
 * the rest go through the normal pipeline (`compute/cli.ts` of `--root`, default this
 * checkout, run as its own process so an older commit's pipeline can be measured the same
 * way), and the delivered model.glb is rendered from each held-back photo's camera by a real
 * glTF viewer (three.js in headless Chromium, bench/three-render.ts). The held-back camera
 * comes from the ground truth, carried into the model frame by the similarity fitted on the
 * scene (views-align.ts: the model's sparse points against their tracks triangulated through
 * the true cameras of the other photos; robust, LMedS + Umeyama); its intrinsics are the
 * published K. The photo is scaled to the render's size with pixel centres aligned
 * (photo-resize.ts). A real set without published poses (SceauxCastle) gets
 * its held-back cameras from a sparse run of the pipeline on every photo (views-reference.ts).
 *
 * Figures per held-back photo, at 768 px wide:
 * - coverage: share of the pixels that show a surface that the model covers: on synthetic sets
 *   the pixels of the true surface (gt/mesh.ply rendered from the same camera), on real sets
 *   those the photo does not show as sky or a studio backdrop (views-mask.ts: smooth, dark or
 *   sky-coloured, joined to the border); also printed: the share of all the photo's pixels
 *   (the earlier figure, kept so old rows compare) and the share masked as background;
 * - PSNR (RGB) and SSIM (luma; Wang, Bovik, Sheikh and Simoncelli, IEEE TIP 2004: 11×11
 *   Gaussian window σ = 1.5, K1 = 0.01, K2 = 0.03) over the covered pixels. For SSIM the
 *   uncovered pixels of the render are filled with the photo's, so a window that straddles
 *   the model's border scores the covered part and not the background;
 * - untextured: share of the covered pixels drawn by faces that no photo textured (the glb
 *   colours them from their vertices), from a second render of the model with those faces white
 *   and the textured ones black (also saved beside the side-by-side picture).
 * Besides the sets on disk, the bench renders sets of its own (RENDERED_SETS, cached under
 * bench/out/rendered/, scored like the synthetic ones): rendered/plain-room (bench/plain-room.ts),
 * a white wall, a plain floor and a textured object, and rendered/courtyard (bench/courtyard.ts),
 * white walls on three sides of cobbles seen at grazing angles, for how much of plain surfaces
 * the model covers (issue "Complete surfaces"), and rendered/courtyard-wide (bench/courtyard-wide.ts),
 * the courtyard through a barrel lens without EXIF, for a lens the pipeline must calibrate and
 * whose radial mapping folds just outside the frame, rendered/plain-objects
 * (bench/plain-objects.ts), plain objects on a table photographed all around, and rendered/street
 * (bench/street.ts), plain house fronts seen along a street walked down its middle.
 * With --own-cameras, each held-back photo of a real set with published poses is also scored from
 * the pipeline's own camera for it (views-reference.ts: a sparse run on every photo, the held-back
 * ones included), as a user who added the photo would see the model: the published camera tests
 * the model and the pipeline's self-calibration together (a principal point 3–4 px from the
 * published one moves the whole render by about a pixel at 768 px), the own camera the model.
 * With --in-model=<photo,...>, those photos of the upload (not held back) are scored too, from the
 * reference camera in the same way, marked "(in the model)" and left out of the mean: how well the
 * model reproduces a photo it was built from, against a new viewpoint's figure.
 * With --keep=<dir>, each set's pipeline output stays in <dir>, and beside it the exact pixels
 * that were scored (view-<photo>-render.png with the render's alpha, view-<photo>-photo.png).
 * With --seeds=<n,...>, each set runs once per dense seed (`npm run reconstruct -- --seed`) and a
 * row per set gives the mean over the seeds and their range: on 2026-12-04 the seed alone moved a
 * set's PSNR by up to 0.43 dB and its coverage by 0.007, so a change that touches the cloud is read
 * over several seeds (docs/decisions.md, "Depths another view sees through…").
 * Side-by-side pictures (photo | render | |difference|) go to bench/out/views/; with --docs
 * those of fountain-P11 and synthetic/facade also go to docs/views/<set>-<commit>.jpg.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { NodeIO } from "@gltf-transform/core";
import { KHRMaterialsUnlit } from "@gltf-transform/extensions";
import sharp from "sharp";
import { robustSimilarity, type Similarity } from "../compute/geometry/similarity.js";
import { datasetInputs, datasetsRoot, listDatasets, repoRoot } from "./datasets.js";
import { groundLine } from "./ground-line.js";
import { photoAtSize } from "./photo-resize.js";
import { structureAlignment } from "./views-align.js";
import { backgroundMask } from "./views-mask.js";
import { referenceTruth, undistort, type TrueCamera } from "./views-reference.js";
import { COURTYARD_SET, courtyardDataset } from "./courtyard.js";
import { COURTYARD_WIDE_SET, courtyardWideDataset } from "./courtyard-wide.js";
import { PLAIN_OBJECTS_SET, plainObjectsDataset } from "./plain-objects.js";
import { PLAIN_ROOM_SET, plainRoomDataset } from "./plain-room.js";
import { STREET_SET, streetDataset } from "./street.js";
import { ThreeRenderer, type RenderCamera, type RenderedImage } from "./three-render.js";

const RENDER_WIDTH = 768;
const HOLD_BACK_EVERY = 8;
const HOLD_BACK_OFFSET = 4;
/** Sets the bench renders itself: name → their folder (rendered on first use), in the synthetic sets' format. */
const RENDERED_SETS: Record<string, () => Promise<string>> = {
  [PLAIN_ROOM_SET]: plainRoomDataset, [COURTYARD_SET]: courtyardDataset, [COURTYARD_WIDE_SET]: courtyardWideDataset,
  [PLAIN_OBJECTS_SET]: plainObjectsDataset, [STREET_SET]: streetDataset,
};


interface ViewScore {
  photo: string;
  /** Share of the pixels that show a surface that the model covers (module comment). */
  coverage: number;
  /** Share of all the photo's pixels the model covers (the earlier figure: BENCHMARKS.md rows before the mask compare with it). */
  coverageAll: number;
  /** Real sets: share of the photo masked as sky or backdrop (views-mask.ts). */
  background: number;
  psnr: number;
  ssim: number;
  /** Share of the covered pixels drawn by faces no photo textured (vertex colours). */
  untextured: number;
  /** With --own-cameras, real sets with published poses: the same figures from the pipeline's own camera for the photo. */
  own?: { coverage: number; psnr: number; ssim: number };
  /** With --in-model: a photo the model was built from, scored as a held-back one is (not in the set's mean). */
  inModel?: boolean;
}

interface SetScore {
  set: string;
  /** The dense seed it ran with (--seeds); absent: the pipeline's default. */
  seed?: number;
  root: string;
  commit: string;
  uploaded: number;
  registered: number;
  seconds: number;
  peakRssMiB: number;
  views: ViewScore[];
  error?: string;
}

async function loadTruth(setDir: string): Promise<{ cameras: TrueCamera[]; pixelCentreOffset: number } | null> {
  const file = path.join(setDir, "gt/cameras.json");
  if (!existsSync(file)) return null;
  const gt = JSON.parse(await readFile(file, "utf8")) as { convention: string; images?: Array<{ file: string; width: number; height: number; K: number[][]; R: number[][]; t: number[]; radial?: [number, number]; outlier?: boolean }> };
  if (!gt.images || gt.images.length === 0) return null;
  // As bench/published.ts: sets that publish OpenCV's integer pixel centres sit half a pixel before ours.
  const pixelCentreOffset = /centers at integer coordinates \+ 0\.5/.test(gt.convention) ? 0 : 0.5;
  // A set may publish its lens's radial terms (k1, k2 of r·(1 + k1·r² + k2·r⁴)): the held-back photo is then undistorted before it is scored.
  return { cameras: gt.images.filter((i) => !i.outlier).map((i) => ({ file: i.file, width: i.width, height: i.height, K: i.K, R: i.R.flat(), t: i.t, ...(i.radial && (i.radial[0] !== 0 || i.radial[1] !== 0) ? { radial: i.radial } : {}) })), pixelCentreOffset };
}

/** Runs `<root>/compute/cli.ts` on `files` and returns its wall time and peak RSS (GNU time's %M). */
async function reconstruct(root: string, files: string[], outDir: string, quality: string, extra: string[] = []): Promise<{ seconds: number; peakRssMiB: number }> {
  const node = path.join(repoRoot, "node_modules/.bin/node");
  const started = performance.now();
  const child = spawn("/usr/bin/time", ["-f", "PEAK_RSS_KB %M", node, "--import", "tsx", path.join(root, "compute/cli.ts"), ...files, "--out", outDir, "--quality", quality, ...extra], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stdout.on("data", (d: Buffer) => (log = (log + d.toString()).slice(-20_000)));
  child.stderr.on("data", (d: Buffer) => (log = (log + d.toString()).slice(-20_000)));
  const code = await new Promise<number>((resolve) => child.on("close", (c) => resolve(c ?? 1)));
  if (code !== 0) throw new Error(`reconstruct exited ${code}:\n${log.slice(-2000)}`);
  const peak = Number(/PEAK_RSS_KB (\d+)/.exec(log)?.[1] ?? NaN);
  return { seconds: (performance.now() - started) / 1000, peakRssMiB: peak / 1024 };
}

interface ModelCamera {
  R: Float64Array;
  t: Float64Array;
  centre: number[];
}

/** camFromWorld of each camera node of the glb, by node name (glTF cameras look down −z, +y up). */
async function modelCameras(glbPath: string): Promise<Map<string, ModelCamera>> {
  const doc = await new NodeIO().registerExtensions([KHRMaterialsUnlit]).read(glbPath);
  const out = new Map<string, ModelCamera>();
  for (const node of doc.getRoot().listNodes()) {
    if (!node.getCamera()) continue;
    const m = node.getWorldMatrix(); // column-major worldFromGltfCam
    // worldFromCv = worldFromGltfCam · diag(1, −1, −1); camFromWorld rotation is its transpose.
    const R = new Float64Array([m[0], m[1], m[2], -m[4], -m[5], -m[6], -m[8], -m[9], -m[10]]);
    const centre = [m[12], m[13], m[14]];
    const t = new Float64Array([0, 1, 2].map((i) => -(R[3 * i] * centre[0] + R[3 * i + 1] * centre[1] + R[3 * i + 2] * centre[2])));
    out.set(node.getName(), { R, t, centre });
  }
  return out;
}

function trueCentre(cam: TrueCamera): number[] {
  const { R, t } = cam;
  return [0, 1, 2].map((k) => -(R[k] * t[0] + R[3 + k] * t[1] + R[6 + k] * t[2]));
}

/** The held-back camera in the model frame: x_model = s·Rs·x_true + ts, so camFromModel = R·Rsᵀ, centre mapped. */
function intoModel(cam: TrueCamera, sim: Similarity, pixelCentreOffset: number, width: number): RenderCamera {
  const Rs = sim.R;
  const R = new Float64Array(9);
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) R[3 * i + j] = cam.R[3 * i] * Rs[3 * j] + cam.R[3 * i + 1] * Rs[3 * j + 1] + cam.R[3 * i + 2] * Rs[3 * j + 2];
  const c = trueCentre(cam);
  const C = [0, 1, 2].map((i) => sim.s * (Rs[3 * i] * c[0] + Rs[3 * i + 1] * c[1] + Rs[3 * i + 2] * c[2]) + sim.t[i]);
  const t = [0, 1, 2].map((i) => -(R[3 * i] * C[0] + R[3 * i + 1] * C[1] + R[3 * i + 2] * C[2]));
  const scale = width / cam.width;
  const height = Math.round(cam.height * scale);
  return { width, height, fx: scale * cam.K[0][0], fy: scale * cam.K[1][1], cx: scale * (cam.K[0][2] + pixelCentreOffset), cy: scale * (cam.K[1][2] + pixelCentreOffset), R, t };
}

function luma(rgb: ArrayLike<number>, stride: number, n: number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = 0.299 * rgb[stride * i] + 0.587 * rgb[stride * i + 1] + 0.114 * rgb[stride * i + 2];
  return out;
}

/** Separable Gaussian blur (σ 1.5, radius 5) with clamped borders. */
function blur(image: Float64Array, width: number, height: number): Float64Array {
  const weights = Array.from({ length: 11 }, (_, k) => Math.exp(-((k - 5) ** 2) / (2 * 1.5 * 1.5)));
  const total = weights.reduce((a, b) => a + b, 0);
  const tmp = new Float64Array(image.length), out = new Float64Array(image.length);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) {
    let s = 0;
    for (let k = -5; k <= 5; k++) s += weights[k + 5] * image[y * width + Math.min(width - 1, Math.max(0, x + k))];
    tmp[y * width + x] = s / total;
  }
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) {
    let s = 0;
    for (let k = -5; k <= 5; k++) s += weights[k + 5] * tmp[Math.min(height - 1, Math.max(0, y + k)) * width + x];
    out[y * width + x] = s / total;
  }
  return out;
}

/** Mean SSIM map (luma) over the pixels where `mask` is set. */
function ssimOver(a: Float64Array, b: Float64Array, width: number, height: number, mask: Uint8Array): number {
  const C1 = (0.01 * 255) ** 2, C2 = (0.03 * 255) ** 2;
  const n = a.length;
  const product = (x: Float64Array, y: Float64Array): Float64Array => { const o = new Float64Array(n); for (let i = 0; i < n; i++) o[i] = x[i] * y[i]; return o; };
  const muA = blur(a, width, height), muB = blur(b, width, height);
  const aa = blur(product(a, a), width, height), bb = blur(product(b, b), width, height), ab = blur(product(a, b), width, height);
  let sum = 0, count = 0;
  for (let i = 0; i < n; i++) {
    if (!mask[i]) continue;
    const varA = aa[i] - muA[i] ** 2, varB = bb[i] - muB[i] ** 2, cov = ab[i] - muA[i] * muB[i];
    sum += ((2 * muA[i] * muB[i] + C1) * (2 * cov + C2)) / ((muA[i] ** 2 + muB[i] ** 2 + C1) * (varA + varB + C2));
    count++;
  }
  return count > 0 ? sum / count : NaN;
}

function score(render: RenderedImage, photo: Uint8Array, truthMask: Uint8Array | null): { coverage: number; psnr: number; ssim: number; covered: Uint8Array } {
  const n = render.width * render.height;
  const covered = new Uint8Array(n);
  let coveredCount = 0, squared = 0, truthCount = 0, coveredTruth = 0;
  for (let i = 0; i < n; i++) {
    covered[i] = render.rgba[4 * i + 3] > 127 ? 1 : 0;
    if (truthMask) { truthCount += truthMask[i]; coveredTruth += truthMask[i] & covered[i]; }
    if (!covered[i]) continue;
    coveredCount++;
    for (let ch = 0; ch < 3; ch++) squared += (render.rgba[4 * i + ch] - photo[3 * i + ch]) ** 2;
  }
  const filled = new Uint8Array(3 * n);
  for (let i = 0; i < n; i++) for (let ch = 0; ch < 3; ch++) filled[3 * i + ch] = covered[i] ? render.rgba[4 * i + ch] : photo[3 * i + ch];
  const ssim = ssimOver(luma(filled, 3, n), luma(photo, 3, n), render.width, render.height, covered);
  return {
    coverage: truthMask ? (truthCount > 0 ? coveredTruth / truthCount : NaN) : coveredCount / n,
    psnr: coveredCount > 0 ? 10 * Math.log10((255 * 255) / (squared / (3 * coveredCount))) : NaN,
    ssim,
    covered,
  };
}

async function sideBySide(photo: Uint8Array, render: RenderedImage, covered: Uint8Array, outPath: string): Promise<void> {
  const { width, height } = render;
  const canvas = new Uint8Array(3 * 3 * width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) {
    const i = y * width + x;
    for (let ch = 0; ch < 3; ch++) {
      const p = photo[3 * i + ch];
      const r = covered[i] ? render.rgba[4 * i + ch] : ch === 1 ? 0 : 255; // magenta where the model is missing
      canvas[3 * (y * 3 * width + x) + ch] = p;
      canvas[3 * (y * 3 * width + width + x) + ch] = r;
      canvas[3 * (y * 3 * width + 2 * width + x) + ch] = covered[i] ? Math.min(255, 3 * Math.abs(r - p)) : 0;
    }
  }
  await sharp(canvas, { raw: { width: 3 * width, height, channels: 3 } }).jpeg({ quality: 85 }).toFile(outPath);
}

/**
 * A copy of the glb in which the faces with a texture are black and those coloured from their
 * vertices (faces no photo textured, gltf.ts) are white, all unlit: rendered from a camera, it
 * shows which of the pixels the model covers come from a photo and which do not.
 */
async function untexturedMarked(glb: string, out: string): Promise<void> {
  const io = new NodeIO().registerExtensions([KHRMaterialsUnlit]);
  const doc = await io.read(glb);
  for (const material of doc.getRoot().listMaterials()) {
    const textured = material.getBaseColorTexture() !== null;
    material.setBaseColorTexture(null).setBaseColorFactor(textured ? [0, 0, 0, 1] : [1, 1, 1, 1]);
  }
  for (const mesh of doc.getRoot().listMeshes()) for (const primitive of mesh.listPrimitives()) primitive.setAttribute("COLOR_0", null);
  for (const texture of doc.getRoot().listTextures()) texture.dispose();
  await io.write(out, doc);
}

/** Share of the covered pixels that the marked model (untexturedMarked) draws white. */
function untexturedShare(marked: RenderedImage, covered: Uint8Array): number {
  let white = 0, total = 0;
  for (let i = 0; i < covered.length; i++) {
    if (!covered[i]) continue;
    total++;
    if (marked.rgba[4 * i + 3] > 127 && marked.rgba[4 * i] > 127) white++;
  }
  return total > 0 ? white / total : NaN;
}

/**
 * The reference cameras carried into the model (views-align.ts: fitted on the model's sparse
 * points and their tracks triangulated through the reference cameras; the centres' similarity
 * when too few points are seen twice), and the spread of the camera centres the centres'
 * similarity agrees with, for near and far planes (the scene lies within a few times it; a
 * wrongly placed camera far away must not push them out).
 */
function alignment(truth: TrueCamera[], pixelCentreOffset: number, cameras: Map<string, ModelCamera>, colmapZip: Uint8Array | null): { sim: Similarity; spread: number; points: number } {
  const byFile = new Map(truth.map((c) => [c.file, c]));
  const pairs = [...cameras.entries()].filter(([name]) => byFile.has(name));
  const src = pairs.flatMap(([name]) => trueCentre(byFile.get(name)!));
  const dst = pairs.flatMap(([, cam]) => cam.centre);
  const byCentres = robustSimilarity(src, dst, pairs.length);
  if (!byCentres) throw new Error(`only ${pairs.length} registered cameras to align`);
  const inliers = pairs.filter((_, k) => byCentres.inliers[k]).map(([, cam]) => cam.centre);
  const middle = [0, 1, 2].map((a) => inliers.reduce((sum, c) => sum + c[a], 0) / inliers.length);
  const spread = Math.max(...inliers.map((c) => Math.hypot(c[0] - middle[0], c[1] - middle[1], c[2] - middle[2])), 1e-6);
  const byPoints = colmapZip && structureAlignment(colmapZip, truth, pixelCentreOffset);
  return { sim: byPoints ?? byCentres, spread, points: byPoints?.points ?? 0 };
}

/**
 * The held-back photo as the model shows it from the pipeline's own camera for it (--own-cameras):
 * pose and calibration from a sparse run on every photo (views-reference.ts), carried into the model
 * the same way, through that run's cameras of the other photos. Separates what the model looks
 * like from how far the pipeline's self-calibration is from the published one (see the module
 * comment).
 */
async function ownView(glb: string, renderer: ThreeRenderer, photoPath: string, ownCam: TrueCamera, sim: Similarity, spread: number, picture: string): Promise<{ coverage: number; psnr: number; ssim: number }> {
  const cam = intoModel(ownCam, sim, 0, RENDER_WIDTH);
  const render = await renderer.render(glb, cam, 0.005 * spread, 200 * spread);
  const resized = await photoAtSize(photoPath, cam.width, cam.height);
  const pixels = ownCam.radial ? undistort(resized, cam, ownCam.radial) : resized;
  const surface = backgroundMask(pixels, cam.width, cam.height).map((b) => 1 - b);
  const { coverage, psnr, ssim, covered } = score(render, pixels, surface);
  await sideBySide(pixels, render, covered, picture);
  return { coverage, psnr, ssim };
}

/** How each set is run and what is kept of it (the bench's flags), and the dense seed of this run (null: the pipeline's default). */
interface RunFlags {
  root: string;
  commit: string;
  quality: string;
  keepDir: string | null;
  docs: boolean;
  ownCameras: boolean;
  inModel: string[];
  seed: number | null;
}

async function benchSet(set: string, renderer: ThreeRenderer, flags: RunFlags): Promise<SetScore | null> {
  const { root, commit, quality, keepDir, docs, ownCameras, inModel, seed } = flags;
  const setDir = RENDERED_SETS[set] ? await RENDERED_SETS[set]() : path.join(datasetsRoot, set);
  if (!existsSync(path.join(setDir, "images"))) return null;
  const sparseRun = (files: string[], out: string) => reconstruct(root, files, out, quality, ["--sparse-only"]);
  const published = await loadTruth(setDir);
  const truth = published ?? (await referenceTruth(setDir, sparseRun));
  if (!truth) return null;
  const own = ownCameras && published && set.startsWith("real/") ? await referenceTruth(setDir, sparseRun) : null;
  const inputs = await datasetInputs(setDir);
  const held = inputs.filter((_, i) => i % HOLD_BACK_EVERY === HOLD_BACK_OFFSET);
  const kept = inputs.filter((_, i) => i % HOLD_BACK_EVERY !== HOLD_BACK_OFFSET);
  const result: SetScore = { set, ...(seed !== null ? { seed } : {}), root, commit, uploaded: kept.length, registered: 0, seconds: 0, peakRssMiB: 0, views: [] };
  const outDir = keepDir ? path.join(keepDir, `${set.replace("/", "_")}-${commit}${seed !== null ? `-seed${seed}` : ""}`) : await mkdtemp(path.join(tmpdir(), "views-"));
  try {
    Object.assign(result, await reconstruct(root, kept.map((k) => k.path), outDir, quality, seed !== null ? ["--seed", String(seed)] : []));
    const glb = path.join(outDir, "model.glb");
    const cameras = await modelCameras(glb);
    result.registered = cameras.size;
    const byFile = new Map(truth.cameras.map((c) => [c.file, c]));
    // A tree without the COLMAP export (older than the views bench's alignment) is aligned on the camera centres.
    const zipPath = path.join(outDir, "model-colmap.zip");
    const colmapZip = existsSync(zipPath) ? new Uint8Array(await readFile(zipPath)) : null;
    const { sim, spread, points } = alignment(truth.cameras, truth.pixelCentreOffset, cameras, colmapZip);
    console.log(`views: ${set} aligned ${points > 0 ? `on ${points} of the model's sparse points` : "on the camera centres"}`);
    const ground = groundLine(await meshCounts(outDir));
    if (ground) console.log(`views: ${set} ground: ${ground}`);
    const ownByFile = own ? new Map(own.cameras.map((c) => [c.file, c])) : null;
    // The held-back photos are in the sparse run, not in the model: only the others align the two.
    const ownSim = own ? alignment(own.cameras, own.pixelCentreOffset, cameras, colmapZip).sim : null;
    const mesh = path.join(setDir, "gt/mesh.ply");
    const marked = path.join(outDir, "untextured-marked.glb");
    await untexturedMarked(glb, marked);
    const fromModel = new Set(kept.filter((k) => inModel.includes(k.name)));
    const unknown = inModel.filter((name) => !kept.some((k) => k.name === name));
    if (unknown.length > 0) console.log(`views: ${set}: --in-model names no uploaded photo of this set: ${unknown.join(", ")}`);
    for (const photo of [...held, ...fromModel]) {
      const cam = intoModel(byFile.get(photo.name)!, sim, truth.pixelCentreOffset, RENDER_WIDTH);
      const render = await renderer.render(glb, cam, 0.005 * spread, 200 * spread);
      const resized = await photoAtSize(photo.path, cam.width, cam.height);
      const radial = byFile.get(photo.name)!.radial;
      // The renderer draws a pinhole: a photo with the reference's lens distortion is undistorted first.
      const pixels = radial ? undistort(resized, cam, radial) : resized;
      let truthMask: Uint8Array | null = null;
      if ((set.startsWith("synthetic/") || set in RENDERED_SETS) && existsSync(mesh)) {
        // The true mesh is in the true frame: render it from the true camera itself.
        const trueCam = intoModel(byFile.get(photo.name)!, { R: new Float64Array([1, 0, 0, 0, 1, 0, 0, 0, 1]), t: new Float64Array(3), s: 1, scale: 1 }, truth.pixelCentreOffset, RENDER_WIDTH);
        const surface = await renderer.render(mesh, trueCam, 0.005 * spread / sim.s, 200 * spread / sim.s);
        truthMask = new Uint8Array(cam.width * cam.height);
        for (let i = 0; i < truthMask.length; i++) truthMask[i] = surface.rgba[4 * i + 3] > 127 ? 1 : 0;
      }
      // Real sets: the pixels that show a surface are those the photo does not show as sky or backdrop (views-mask.ts).
      const background = truthMask ? null : backgroundMask(pixels, cam.width, cam.height);
      if (background) truthMask = background.map((b) => 1 - b);
      const s = score(render, pixels, truthMask);
      const coverageAll = s.covered.reduce((sum, c) => sum + c, 0) / s.covered.length;
      const markedRender = await renderer.render(marked, cam, 0.005 * spread, 200 * spread);
      const untextured = untexturedShare(markedRender, s.covered);
      const pictures = path.join(repoRoot, "bench/out/views");
      await mkdir(pictures, { recursive: true });
      const picture = path.join(pictures, `${set.replace("/", "_")}-${path.parse(photo.name).name}-${commit}.jpg`);
      const ownCam = ownByFile?.get(photo.name);
      const ownScore = ownCam && ownSim ? await ownView(glb, renderer, photo.path, ownCam, ownSim, spread, picture.replace(/\.jpg$/, "-own.jpg")) : undefined;
      result.views.push({ photo: photo.name, coverage: s.coverage, coverageAll, background: background ? background.reduce((sum, b) => sum + b, 0) / background.length : 0, psnr: s.psnr, ssim: s.ssim, untextured, own: ownScore, ...(fromModel.has(photo) ? { inModel: true } : {}) });
      await sideBySide(pixels, render, s.covered, picture);
      if (keepDir) {
        // The exact pixels that were scored, for looking closer than the side-by-side JPEG allows.
        const stem = path.join(outDir, `view-${path.parse(photo.name).name}`);
        await sharp(Buffer.from(render.rgba), { raw: { width: render.width, height: render.height, channels: 4 } }).png().toFile(`${stem}-render.png`);
        await sharp(Buffer.from(pixels), { raw: { width: cam.width, height: cam.height, channels: 3 } }).png().toFile(`${stem}-photo.png`);
      }
      await sharp(Buffer.from(markedRender.rgba), { raw: { width: markedRender.width, height: markedRender.height, channels: 4 } }).flatten({ background: "#ff00ff" }).jpeg().toFile(picture.replace(/\.jpg$/, "-untextured.jpg"));
      if (docs && (set === "real/fountain-P11" || set === "synthetic/facade") && photo === held[0]) {
        await mkdir(path.join(repoRoot, "docs/views"), { recursive: true });
        await sharp(picture).toFile(path.join(repoRoot, "docs/views", `${set.split("/")[1]}-${commit}.jpg`));
      }
    }
  } catch (err) {
    result.error = err instanceof Error ? err.message : String(err);
  } finally {
    if (!keepDir) await rm(outDir, { recursive: true, force: true });
  }
  return result;
}

/**
 * Per set run with several seeds: the mean over the seeds of each run's held-back mean, and the
 * lowest and highest run, for coverage, PSNR and SSIM.
 */
function printSeedSpread(results: SetScore[]): void {
  console.log(`\nover the seeds: set | seeds | coverage mean (lowest–highest) | PSNR dB | SSIM`);
  for (const set of new Set(results.map((r) => r.set))) {
    const runs = results.filter((r) => r.set === set && !r.error).map((r) => r.views.filter((v) => !v.inModel)).filter((views) => views.length > 0);
    if (runs.length === 0) continue;
    const perRun = (f: (v: ViewScore) => number) => runs.map((views) => views.reduce((sum, v) => sum + f(v), 0) / views.length);
    const spread = (values: number[], digits: number) => `${fmt(values.reduce((a, b) => a + b, 0) / values.length, digits)} (${fmt(Math.min(...values), digits)}–${fmt(Math.max(...values), digits)})`;
    console.log([set, runs.length, spread(perRun((v) => v.coverage), 3), spread(perRun((v) => v.psnr), 2), spread(perRun((v) => v.ssim), 3)].join(" | "));
  }
}

/** The mesh stage's counts in a pipeline run's report.json (empty when it has none). */
async function meshCounts(outDir: string): Promise<Record<string, number>> {
  const file = path.join(outDir, "report.json");
  if (!existsSync(file)) return {};
  const report = JSON.parse(await readFile(file, "utf8")) as { stages?: Array<{ stage: string; counts?: Record<string, number> }> };
  return report.stages?.find((s) => s.stage === "mesh")?.counts ?? {};
}

function fmt(value: number, digits: number): string {
  return Number.isFinite(value) ? value.toFixed(digits) : "-";
}

export async function run(args: string[]): Promise<void> {
  const quality = args.find((a) => a.startsWith("--quality="))?.split("=")[1] ?? "standard";
  const root = path.resolve(args.find((a) => a.startsWith("--root="))?.split("=")[1] ?? repoRoot);
  // Absolute: the pipeline runs in --root's checkout and writes there, this process reads here.
  const keepArg = args.find((a) => a.startsWith("--keep="))?.split("=")[1];
  const keep = keepArg ? path.resolve(keepArg) : null;
  const docs = args.includes("--docs");
  const ownCameras = args.includes("--own-cameras");
  const inModel = args.find((a) => a.startsWith("--in-model="))?.split("=")[1]?.split(",").filter(Boolean) ?? [];
  const seedsArg = args.find((a) => a.startsWith("--seeds="))?.split("=")[1];
  const seeds = seedsArg ? seedsArg.split(",").map(Number) : [null];
  if (seeds.some((s) => s !== null && !(Number.isSafeInteger(s) && s >= 1))) throw new Error(`bench views: --seeds takes whole numbers from 1, comma-separated (got ${seedsArg})`);
  const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root }).toString().trim();
  const filters = args.filter((a) => !a.startsWith("--"));
  const rendered = Object.keys(RENDERED_SETS).filter((s) => filters.length === 0 || filters.some((f) => s.includes(f)));
  const sets = [...(await listDatasets(filters)), ...rendered];
  const renderer = await ThreeRenderer.launch();
  const results: SetScore[] = [];
  try {
    for (const set of sets) {
      for (const seed of seeds) {
        console.log(`views: ${set} (pipeline of ${root} at ${commit}, ${quality}${seed !== null ? `, dense seed ${seed}` : ""})…`);
        const result = await benchSet(set, renderer, { root, commit, quality, keepDir: keep, docs, ownCameras, inModel, seed });
        if (result) results.push(result);
      }
    }
  } finally {
    await renderer.close();
  }
  console.log(`\ncommit ${commit}, quality ${quality}; held back: every ${HOLD_BACK_EVERY}th photo (0-based ${HOLD_BACK_OFFSET}, ${HOLD_BACK_OFFSET + HOLD_BACK_EVERY}, …); render ${RENDER_WIDTH} px wide`);
  console.log(`set | uploaded | registered | held-back photo | coverage | (of all pixels) | background | PSNR dB | SSIM | untextured | pipeline s | peak RSS MiB${ownCameras ? " | own camera: coverage | PSNR dB | SSIM" : ""}`);
  for (const r of results) {
    const label = r.seed !== undefined ? `${r.set} (seed ${r.seed})` : r.set;
    if (r.error) console.log(`${label} | ${r.uploaded} | ${r.registered} | failed: ${r.error.split("\n")[0]}`);
    const ownColumns = (own: ViewScore["own"]): string[] => (ownCameras ? (own ? [fmt(own.coverage, 3), fmt(own.psnr, 2), fmt(own.ssim, 3)] : ["-", "-", "-"]) : []);
    for (const v of r.views) console.log([label, r.uploaded, r.registered, v.inModel ? `${v.photo} (in the model)` : v.photo, fmt(v.coverage, 3), fmt(v.coverageAll, 3), fmt(v.background, 3), fmt(v.psnr, 2), fmt(v.ssim, 3), fmt(v.untextured, 3), fmt(r.seconds, 1), fmt(r.peakRssMiB, 0), ...ownColumns(v.own)].join(" | "));
    const heldViews = r.views.filter((v) => !v.inModel);
    if (heldViews.length > 1) {
      const mean = (f: (v: ViewScore) => number): number => heldViews.reduce((s, v) => s + f(v), 0) / heldViews.length;
      const ownMean = heldViews.every((v) => v.own) ? { coverage: mean((v) => v.own!.coverage), psnr: mean((v) => v.own!.psnr), ssim: mean((v) => v.own!.ssim) } : undefined;
      console.log([label, "", "", "mean", fmt(mean((v) => v.coverage), 3), fmt(mean((v) => v.coverageAll), 3), fmt(mean((v) => v.background), 3), fmt(mean((v) => v.psnr), 2), fmt(mean((v) => v.ssim), 3), fmt(mean((v) => v.untextured), 3), "", "", ...ownColumns(ownMean)].join(" | "));
    }
  }
  if (seeds.length > 1) printSeedSpread(results);
  const outDir = path.join(repoRoot, "bench/out");
  await mkdir(outDir, { recursive: true });
  await writeFile(path.join(outDir, `views-${commit}.json`), JSON.stringify(results, null, 2));
}
