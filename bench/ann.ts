/**
 * @module `npm run bench -- ann [set-name-filter...] [--quality=preview|standard|high] [--coverage=c]`: the
 * approximate descriptor search (compute/stages/matching/ann.ts) against the exhaustive one
 * (kernel.ts) on real features. Per set (default Herz-Jesus-P8 and fountain-P11), features are
 * detected as the quality preset does; then for every pair the matching stage would search,
 * both searches run in this thread, one after the other, each followed by the ratio + mutual
 * test and geometric verification (verify.ts, the stage's defaults, the stage's seed per pair).
 * Printed per set: keypoints per image, wall and CPU ms per pair of each search, recall of the
 * nearest neighbour (rows whose nearest distance the index found), recall of the final
 * matches (share of the exhaustive search's matches the approximate one also gives, and its
 * matches the exhaustive one does not give), the same without the bound on the second-nearest,
 * and verified pairs and inliers both ways; on sets with published cameras, the share of the
 * matches and of the verified inliers that lie on those cameras' epipolar lines. Then the whole matching stage (worker threads,
 * guided matching as configured) with `ann` off and on.
 * Writes bench/out/ann.json.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { essentialFromPoses } from "../compute/geometry/essential.js";
import { sampsonError } from "../compute/geometry/fundamental.js";
import { mutualRatioMatches, type Neighbours } from "../compute/math/mutual-nearest.js";
import { createRng } from "../compute/math/random.js";
import { QUALITY_PRESETS } from "../compute/pipeline/presets.js";
import type { ImageFeatures, ImageRef } from "../compute/scene/index.js";
import * as features from "../compute/stages/features/index.js";
import * as ingest from "../compute/stages/ingest/index.js";
import { ANN_PARAMETERS, approximateNeighbours, searchReach, type AnnParameters } from "../compute/stages/matching/ann.js";
import { packDescriptors, wordsPerDescriptor } from "../compute/stages/matching/hamming.js";
import * as matching from "../compute/stages/matching/index.js";
import { nearestNeighbours } from "../compute/stages/matching/kernel.js";
import { selectPairs } from "../compute/stages/matching/pairs.js";
import { verifyPair, type VerifyOptions } from "../compute/stages/matching/verify.js";
import type { Quality } from "../shared/jobs.js";
import { datasetInputs, datasetsRoot, listDatasets, repoRoot } from "./datasets.js";
import { loadPublished, normalizePublished, publishedCamera, type PublishedCamera } from "./published.js";

const DEFAULT_SETS = ["Herz-Jesus-P8", "fountain-P11"];
/** The bound on the second-nearest switched off: a reach beyond any distance. */
const UNBOUNDED = { ...ANN_PARAMETERS, coverage: 0 };
/** Distance bins (upper ends, bits) for the share of exhaustive nearest neighbours the index finds. */
const DISTANCE_BINS = [40, 60, 80, 100, 120];

interface Search {
  wallMs: number;
  cpuMs: number;
  neighbours: Neighbours;
}

/** Sums over a set's pairs; the means are taken when printing. */
interface Tally {
  pairs: number;
  exactWallMs: number;
  exactCpuMs: number;
  annWallMs: number;
  annCpuMs: number;
  rows: number;
  nearestFound: number;
  exactMatches: number;
  shared: number;
  extra: number;
  sharedUnbounded: number;
  extraUnbounded: number;
  verifiedExact: number;
  verifiedAnn: number;
  verifiedUnbounded: number;
  inliersExact: number;
  inliersAnn: number;
  inliersUnbounded: number;
  /** Verified inliers the published cameras' epipolar geometry accepts too (sets with published cameras). */
  trueExact: number;
  trueAnn: number;
  trueUnbounded: number;
  /** Ratio + mutual matches the published cameras accept (sets with published cameras). */
  putativeTrueExact: number;
  putativeTrueAnn: number;
  putativeTrueUnbounded: number;
  putativeAnn: number;
  putativeUnbounded: number;
  /** Per DISTANCE_BINS bin (and one beyond): exhaustive nearest neighbours, and those the index found. */
  binRows: number[];
  binFound: number[];
}

function newTally(): Tally {
  const zero = { pairs: 0, exactWallMs: 0, exactCpuMs: 0, annWallMs: 0, annCpuMs: 0, rows: 0, nearestFound: 0, exactMatches: 0, shared: 0, extra: 0, sharedUnbounded: 0, extraUnbounded: 0 };
  const verified = { verifiedExact: 0, verifiedAnn: 0, verifiedUnbounded: 0, inliersExact: 0, inliersAnn: 0, inliersUnbounded: 0, trueExact: 0, trueAnn: 0, trueUnbounded: 0, putativeTrueExact: 0, putativeTrueAnn: 0, putativeTrueUnbounded: 0, putativeAnn: 0, putativeUnbounded: 0 };
  return { ...zero, ...verified, binRows: new Array(DISTANCE_BINS.length + 1).fill(0), binFound: new Array(DISTANCE_BINS.length + 1).fill(0) };
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e3;
}

function timed(search: () => Neighbours): Search {
  const wall = performance.now();
  const cpu = cpuMs();
  const neighbours = search();
  return { wallMs: performance.now() - wall, cpuMs: cpuMs() - cpu, neighbours };
}

/** Matches as "a,b" keys, for set comparisons. */
function matchKeys(matches: Uint32Array): Set<string> {
  const keys = new Set<string>();
  for (let k = 0; k < matches.length; k += 3) keys.add(`${matches[k]},${matches[k + 1]}`);
  return keys;
}

function overlap(found: Set<string>, reference: Set<string>): { shared: number; extra: number } {
  let shared = 0;
  for (const key of found) if (reference.has(key)) shared++;
  return { shared, extra: found.size - shared };
}

interface PackedImage {
  rows: Uint32Array;
  count: number;
  xy: Float32Array;
}

/** Per image, the published camera and its keypoints normalised through that camera's K. */
interface Truth {
  cameras: PublishedCamera[];
  normalized: Float64Array[];
}

async function loadTruth(set: string, images: ImageRef[], detected: ImageFeatures[]): Promise<Truth | null> {
  const published = await loadPublished(path.join(datasetsRoot, set));
  const entries = images.map((im) => published?.byName.get(im.name));
  if (entries.some((e) => e === undefined)) return null;
  const cameras = entries.map((e, i) => publishedCamera(e!, images[i].width));
  return { cameras, normalized: detected.map((f, i) => normalizePublished(() => cameras[i], f.xy, f.count)) };
}

/**
 * Of a pair's matches (a, b at matches[k], matches[k + 1] for k in steps of `stride`), those
 * within thresholdPx (Sampson distance) of the published cameras' epipolar geometry.
 */
function trueInliers(truth: Truth, a: number, b: number, matches: Uint32Array, stride: number, thresholdPx: number): number {
  const E = essentialFromPoses(truth.cameras[a].camFromWorld, truth.cameras[b].camFromWorld);
  const focalPx = (truth.cameras[a].fx + truth.cameras[b].fx) / 2;
  const [pa, pb] = [new Float64Array(2), new Float64Array(2)];
  let within = 0;
  for (let m = 0; m < matches.length; m += stride) {
    pa.set(truth.normalized[a].subarray(2 * matches[m], 2 * matches[m] + 2));
    pb.set(truth.normalized[b].subarray(2 * matches[m + 1], 2 * matches[m + 1] + 2));
    if (Math.sqrt(sampsonError(E, pa, pb, 0)) * focalPx <= thresholdPx) within++;
  }
  return within;
}

/** A pair's verified inliers (0 when verification rejects it), with the stage's per-pair seed, and how many of them the published cameras accept. */
function verifiedInliers(a: number, b: number, set: SetData, matches: Uint32Array, longSide: number): { inliers: number; correct: number } {
  const options: VerifyOptions = matching.DEFAULTS;
  const rng = createRng(0x9e3779b1 ^ (a * 65599 + b));
  const verified = verifyPair(a, b, set.images[a].xy, set.images[b].xy, matches, longSide, options, rng);
  if (!verified.pair) return { inliers: 0, correct: 0 };
  const thresholdPx = Math.max(1, options.epipolarThreshold * longSide);
  return { inliers: verified.pair.matches.length / 2, correct: set.truth ? trueInliers(set.truth, a, b, verified.pair.matches, 2, thresholdPx) : 0 };
}

interface SetData {
  images: PackedImage[];
  /** The approximate search's parameters (ANN_PARAMETERS unless --coverage= says otherwise). */
  parameters: AnnParameters;
  truth: Truth | null;
  words: number;
}

function comparePair(a: number, b: number, set: SetData, longSide: number, tally: Tally): void {
  const [A, B, words] = [set.images[a], set.images[b], set.words];
  const exact = timed(() => nearestNeighbours(A.rows, A.count, B.rows, B.count, words));
  const ann = timed(() => approximateNeighbours(A.rows, A.count, B.rows, B.count, words, set.parameters));
  const unbounded = approximateNeighbours(A.rows, A.count, B.rows, B.count, words, UNBOUNDED);
  tally.pairs++;
  tally.exactWallMs += exact.wallMs;
  tally.exactCpuMs += exact.cpuMs;
  tally.annWallMs += ann.wallMs;
  tally.annCpuMs += ann.cpuMs;
  countNearest(exact.neighbours, unbounded, tally);
  const ratio = matching.DEFAULTS.ratio;
  const matches = { exact: mutualRatioMatches(exact.neighbours, ratio), ann: mutualRatioMatches(ann.neighbours, ratio), unbounded: mutualRatioMatches(unbounded, ratio) };
  const reference = matchKeys(matches.exact);
  const bounded = overlap(matchKeys(matches.ann), reference);
  const free = overlap(matchKeys(matches.unbounded), reference);
  tally.exactMatches += reference.size;
  tally.shared += bounded.shared;
  tally.extra += bounded.extra;
  tally.sharedUnbounded += free.shared;
  tally.extraUnbounded += free.extra;
  const verified = { exact: verifiedInliers(a, b, set, matches.exact, longSide), ann: verifiedInliers(a, b, set, matches.ann, longSide), unbounded: verifiedInliers(a, b, set, matches.unbounded, longSide) };
  tally.verifiedExact += Number(verified.exact.inliers > 0);
  tally.verifiedAnn += Number(verified.ann.inliers > 0);
  tally.verifiedUnbounded += Number(verified.unbounded.inliers > 0);
  tally.inliersExact += verified.exact.inliers;
  tally.inliersAnn += verified.ann.inliers;
  tally.inliersUnbounded += verified.unbounded.inliers;
  tally.trueExact += verified.exact.correct;
  tally.trueAnn += verified.ann.correct;
  tally.trueUnbounded += verified.unbounded.correct;
  tally.putativeAnn += matches.ann.length / 3;
  tally.putativeUnbounded += matches.unbounded.length / 3;
  if (set.truth) {
    const thresholdPx = Math.max(1, matching.DEFAULTS.epipolarThreshold * longSide);
    tally.putativeTrueExact += trueInliers(set.truth, a, b, matches.exact, 3, thresholdPx);
    tally.putativeTrueAnn += trueInliers(set.truth, a, b, matches.ann, 3, thresholdPx);
    tally.putativeTrueUnbounded += trueInliers(set.truth, a, b, matches.unbounded, 3, thresholdPx);
  }
}

/** Rows whose exhaustive nearest distance the index found (before any bound), overall and by that distance. */
function countNearest(exact: Neighbours, approximate: Neighbours, tally: Tally): void {
  for (let i = 0; i < exact.bestA.length; i++) {
    const found = approximate.bestA[i] === exact.bestA[i];
    const bin = DISTANCE_BINS.findIndex((upper) => exact.bestA[i] <= upper);
    const at = bin < 0 ? DISTANCE_BINS.length : bin;
    tally.rows++;
    tally.binRows[at]++;
    if (found) {
      tally.nearestFound++;
      tally.binFound[at]++;
    }
  }
}

/** The whole matching stage with `ann` off and on (worker threads on all cores, the preset's options otherwise). */
async function compareStage(images: ImageRef[], detected: ImageFeatures[], quality: Quality): Promise<Record<string, Record<string, number>>> {
  const out: Record<string, Record<string, number>> = {};
  for (const ann of ["off", "mih"] as const) {
    const wall = performance.now();
    const cpu = cpuMs();
    const matched = await matching.run({ images, features: detected }, { ...QUALITY_PRESETS[quality].matching, ann, annMinKeypoints: 0 });
    const { verifiedPairs, inlierMatches, tracks, guidedPairs, approximatePairs } = matched.report.counts;
    out[ann] = { wallS: (performance.now() - wall) / 1000, mainThreadCpuS: (cpuMs() - cpu) / 1000, verifiedPairs, inlierMatches, tracks, guidedPairs, approximatePairs };
  }
  return out;
}

async function detect(set: string, quality: Quality): Promise<{ images: ImageRef[]; detected: ImageFeatures[] }> {
  const workDir = await mkdtemp(path.join(tmpdir(), "bench-ann-"));
  try {
    const preset = QUALITY_PRESETS[quality];
    const { images } = await ingest.run({ files: await datasetInputs(path.join(datasetsRoot, set)), workDir }, preset.ingest);
    const detected = await features.run({ images }, preset.features);
    return { images, detected: detected.features };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

function printSet(set: string, keypoints: number, tally: Tally, truth: boolean): void {
  const per = (sum: number) => (sum / tally.pairs).toFixed(1);
  const pct = (part: number, whole: number) => `${((100 * part) / Math.max(1, whole)).toFixed(1)} %`;
  console.log(`${set}: ${keypoints.toFixed(0)} keypoints per image, ${tally.pairs} pairs`);
  console.log(`  exhaustive ${per(tally.exactWallMs)} ms/pair wall, ${per(tally.exactCpuMs)} CPU; approximate ${per(tally.annWallMs)} wall, ${per(tally.annCpuMs)} CPU (${(tally.exactCpuMs / tally.annCpuMs).toFixed(2)}× by CPU)`);
  console.log(`  nearest found ${pct(tally.nearestFound, tally.rows)} of rows; by exhaustive nearest distance ${DISTANCE_BINS.map((upper, k) => `≤${upper}: ${pct(tally.binFound[k], tally.binRows[k])} of ${tally.binRows[k]}`).join(", ")}, >${DISTANCE_BINS.at(-1)}: ${pct(tally.binFound.at(-1)!, tally.binRows.at(-1)!)}`);
  console.log(`  ratio+mutual matches: exhaustive ${per(tally.exactMatches)}/pair; approximate has ${pct(tally.shared, tally.exactMatches)} of them + ${pct(tally.extra, tally.exactMatches)} others; without the bound on the second ${pct(tally.sharedUnbounded, tally.exactMatches)} + ${pct(tally.extraUnbounded, tally.exactMatches)}`);
  console.log(`  verified pairs exhaustive ${tally.verifiedExact}, approximate ${tally.verifiedAnn}, unbounded ${tally.verifiedUnbounded}; inliers/pair ${per(tally.inliersExact)}, ${per(tally.inliersAnn)}, ${per(tally.inliersUnbounded)}`);
  if (truth) console.log(`  ratio+mutual matches on the published cameras' epipolar lines: ${pct(tally.putativeTrueExact, tally.exactMatches)}, ${pct(tally.putativeTrueAnn, tally.putativeAnn)}, ${pct(tally.putativeTrueUnbounded, tally.putativeUnbounded)}`);
  if (truth) console.log(`  of those inliers, within the threshold of the published cameras' epipolar lines: ${pct(tally.trueExact, tally.inliersExact)}, ${pct(tally.trueAnn, tally.inliersAnn)}, ${pct(tally.trueUnbounded, tally.inliersUnbounded)} (${per(tally.trueExact)}, ${per(tally.trueAnn)}, ${per(tally.trueUnbounded)} per pair)`);
}

function option(args: string[], name: string): string | undefined {
  return args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
}

export async function run(args: string[]): Promise<void> {
  const quality = (option(args, "quality") ?? "standard") as Quality;
  const parameters: AnnParameters = { ...ANN_PARAMETERS, coverage: Number(option(args, "coverage") ?? ANN_PARAMETERS.coverage) };
  const filters = args.filter((a) => !a.startsWith("--"));
  const sets = await listDatasets(filters.length > 0 ? filters : DEFAULT_SETS);
  console.log(`ann: ${parameters.tables} tables of ${parameters.keyBits} bits, reach ${searchReach(parameters)} bits (coverage ${parameters.coverage}); quality ${quality}; load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores`);
  const results: unknown[] = [];
  for (const set of sets) {
    const { images, detected } = await detect(set, quality);
    const words = wordsPerDescriptor(detected.find((f) => f.count > 0)?.descriptorBytes ?? 61);
    const packed = detected.map((f) => ({ rows: packDescriptors(f.descriptors, f.count, f.descriptorBytes), count: f.count, xy: f.xy }));
    const data: SetData = { images: packed, parameters, truth: await loadTruth(set, images, detected), words };
    const selection = selectPairs(images, packed, words, matching.DEFAULTS);
    const tally = newTally();
    for (let k = 0; k < selection.pairs.length; k += 2) {
      const [a, b] = [selection.pairs[k], selection.pairs[k + 1]];
      const longSide = Math.max(images[a].width, images[a].height, images[b].width, images[b].height);
      comparePair(a, b, data, longSide, tally);
    }
    const keypoints = detected.reduce((s, f) => s + f.count, 0) / detected.length;
    printSet(set, keypoints, tally, data.truth !== null);
    const stage = await compareStage(images, detected, quality);
    console.log(`  stage: ${JSON.stringify(stage)}`);
    results.push({ set, quality, keypoints, tally, stage });
  }
  await mkdir(path.join(repoRoot, "bench", "out"), { recursive: true });
  await writeFile(path.join(repoRoot, "bench", "out", "ann.json"), JSON.stringify(results, null, 2));
}
