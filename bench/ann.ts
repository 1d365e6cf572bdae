/**
 * @module `npm run bench -- ann [set-name-filter...] [--quality=preview|standard|high]
 * [--coverage=c] [--weak=n]`: the approximate descriptor search (compute/stages/matching/ann.ts)
 * against the exhaustive one (kernel.ts) on real features. Per set (default Herz-Jesus-P8 and
 * fountain-P11), features are detected as the quality preset does; then every pair the
 * matching stage would search goes through each search variant in this thread (VARIANTS: the
 * exhaustive search, the approximate one, without the bound on the second-nearest, with weak
 * pairs searched exhaustively again), each ending in the ratio + mutual
 * test and geometric verification (verify.ts, the stage's defaults and per-pair seed).
 * Printed per set: keypoints per image; the share of rows whose exhaustive nearest neighbour
 * the index finds, by its distance; per variant, CPU and wall ms per pair, its matches (the
 * share of the exhaustive search's it also gives, and those it gives beside them), verified
 * pairs and inliers per pair, and on sets with published cameras the share of matches and of
 * inliers on those cameras' epipolar lines; the pairs that verify only some ways, with how
 * often each way's matches verify under 20 other RANSAC seeds. Then the
 * whole matching stage (worker threads, guided matching as the preset has it) with `ann` off
 * and on (any keypoint count, the stage's other defaults). Writes bench/out/ann.json.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { essentialFromPoses } from "../compute/geometry/essential.js";
import { sampsonError } from "../compute/geometry/fundamental.js";
import { mutualRatioMatches } from "../compute/math/mutual-nearest.js";
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

/**
 * The searches compared, each ending in ratio + mutual matches: exhaustive; approximate
 * (ann.ts as is); unbounded (no bound on the second-nearest); escalated (approximate, then a
 * pair with at most `weak` matches is searched exhaustively again: the stage's way, pair.ts).
 */
const VARIANTS = ["exhaustive", "approximate", "unbounded", "escalated"] as const;
type Variant = (typeof VARIANTS)[number];

/** One variant's sums over a set's pairs; the means are taken when printing. */
interface VariantTally {
  wallMs: number;
  cpuMs: number;
  matches: number;
  /** Matches the exhaustive search also gives, and matches it does not. */
  shared: number;
  extra: number;
  verifiedPairs: number;
  inliers: number;
  /** Matches and verified inliers within the verification threshold of the published cameras' epipolar geometry (sets with published cameras). */
  matchesOnTrueLines: number;
  inliersOnTrueLines: number;
}

interface Tally {
  pairs: number;
  variants: Record<Variant, VariantTally>;
  /** Rows, and rows whose exhaustive nearest distance the index found (no bound), overall and per DISTANCE_BINS bin (and one beyond). */
  rows: number;
  nearestFound: number;
  binRows: number[];
  binFound: number[];
  /** Per pair: matches and verified inliers of each variant, in VARIANTS order. */
  perPair: Array<{ a: number; b: number; matches: number[]; inliers: number[]; correct: number[]; seedsVerified?: number[] }>;
}

function newTally(): Tally {
  const variant = (): VariantTally => ({ wallMs: 0, cpuMs: 0, matches: 0, shared: 0, extra: 0, verifiedPairs: 0, inliers: 0, matchesOnTrueLines: 0, inliersOnTrueLines: 0 });
  const bins = () => new Array<number>(DISTANCE_BINS.length + 1).fill(0);
  return { pairs: 0, variants: Object.fromEntries(VARIANTS.map((v) => [v, variant()])) as Record<Variant, VariantTally>, rows: 0, nearestFound: 0, binRows: bins(), binFound: bins(), perPair: [] };
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e3;
}

/** A variant's matches and the time its steps took. */
interface Searched {
  matches: Uint32Array;
  wallMs: number;
  cpuMs: number;
}

function timed(search: () => Uint32Array): Searched {
  const wall = performance.now();
  const cpu = cpuMs();
  const matches = search();
  return { matches, wallMs: performance.now() - wall, cpuMs: cpuMs() - cpu };
}

/** Matches as "a,b" keys, for set comparisons. */
function matchKeys(matches: Uint32Array): Set<string> {
  const keys = new Set<string>();
  for (let k = 0; k < matches.length; k += 3) keys.add(`${matches[k]},${matches[k + 1]}`);
  return keys;
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

/** A pair's verified inliers (0 when verification rejects it), with the stage's per-pair seed unless given, and how many of them the published cameras accept. */
function verifiedInliers(a: number, b: number, set: SetData, matches: Uint32Array, longSide: number, seed = 0x9e3779b1 ^ (a * 65599 + b)): { inliers: number; correct: number } {
  const options: VerifyOptions = matching.DEFAULTS;
  const rng = createRng(seed);
  const verified = verifyPair(a, b, set.images[a].xy, set.images[b].xy, matches, longSide, options, rng);
  if (!verified.pair) return { inliers: 0, correct: 0 };
  const thresholdPx = Math.max(1, options.epipolarThreshold * longSide);
  return { inliers: verified.pair.matches.length / 2, correct: set.truth ? trueInliers(set.truth, a, b, verified.pair.matches, 2, thresholdPx) : 0 };
}

interface SetData {
  images: PackedImage[];
  /** The approximate search's parameters (ANN_PARAMETERS unless --coverage= says otherwise). */
  parameters: AnnParameters;
  /** Pairs with at most this many approximate matches are searched exhaustively again in the escalated variant (the stage's annWeakMatches unless --weak= says otherwise). */
  weak: number;
  truth: Truth | null;
  words: number;
}

/** Every variant's matches for one pair, with their times (a variant built on another includes its time). */
function searchPair(a: number, b: number, set: SetData, tally: Tally): Record<Variant, Searched> {
  const [A, B, words, ratio] = [set.images[a], set.images[b], set.words, matching.DEFAULTS.ratio];
  let exactBest: Uint32Array = new Uint32Array(0);
  const exhaustive = timed(() => {
    const neighbours = nearestNeighbours(A.rows, A.count, B.rows, B.count, words);
    exactBest = neighbours.bestA;
    return mutualRatioMatches(neighbours, ratio);
  });
  const approximate = timed(() => mutualRatioMatches(approximateNeighbours(A.rows, A.count, B.rows, B.count, words, set.parameters), ratio));
  const free = approximateNeighbours(A.rows, A.count, B.rows, B.count, words, UNBOUNDED);
  countNearest(exactBest, free.bestA, tally);
  const weak = approximate.matches.length / 3 <= set.weak;
  const escalated = { matches: exhaustive.matches, wallMs: approximate.wallMs + exhaustive.wallMs, cpuMs: approximate.cpuMs + exhaustive.cpuMs };
  return { exhaustive, approximate, unbounded: { matches: mutualRatioMatches(free, ratio), wallMs: NaN, cpuMs: NaN }, escalated: weak ? escalated : approximate };
}

/** Rows whose exhaustive nearest distance the index found (before any bound), overall and by that distance. */
function countNearest(exactBest: Uint32Array, foundBest: Uint32Array, tally: Tally): void {
  for (let i = 0; i < exactBest.length; i++) {
    const bin = DISTANCE_BINS.findIndex((upper) => exactBest[i] <= upper);
    const at = bin < 0 ? DISTANCE_BINS.length : bin;
    const found = Number(foundBest[i] === exactBest[i]);
    tally.rows++;
    tally.binRows[at]++;
    tally.nearestFound += found;
    tally.binFound[at] += found;
  }
}

/** Seeds for the verification of marginal pairs. */
const SEEDS = 20;

function verifiedUnderSeeds(a: number, b: number, set: SetData, matches: Uint32Array, longSide: number): number {
  let verified = 0;
  for (let seed = 1; seed <= SEEDS; seed++) if (verifiedInliers(a, b, set, matches, longSide, seed).inliers > 0) verified++;
  return verified;
}

function comparePair(a: number, b: number, set: SetData, longSide: number, tally: Tally): void {
  const searched = searchPair(a, b, set, tally);
  const reference = matchKeys(searched.exhaustive.matches);
  const thresholdPx = Math.max(1, matching.DEFAULTS.epipolarThreshold * longSide);
  const verifiedOf = new Map<Uint32Array, { inliers: number; correct: number }>(); // variants that share their matches share the verification
  const row: Tally["perPair"][number] = { a, b, matches: [], inliers: [], correct: [] };
  for (const variant of VARIANTS) {
    const { matches, wallMs, cpuMs } = searched[variant];
    const keys = matchKeys(matches);
    const shared = [...keys].filter((key) => reference.has(key)).length;
    if (!verifiedOf.has(matches)) verifiedOf.set(matches, verifiedInliers(a, b, set, matches, longSide));
    const verified = verifiedOf.get(matches)!;
    const t = tally.variants[variant];
    t.wallMs += wallMs;
    t.cpuMs += cpuMs;
    t.matches += keys.size;
    t.shared += shared;
    t.extra += keys.size - shared;
    t.verifiedPairs += Number(verified.inliers > 0);
    t.inliers += verified.inliers;
    t.inliersOnTrueLines += verified.correct;
    t.matchesOnTrueLines += set.truth ? trueInliers(set.truth, a, b, matches, 3, thresholdPx) : 0;
    row.matches.push(keys.size);
    row.inliers.push(verified.inliers);
    row.correct.push(verified.correct);
  }
  // A pair that verifies only some ways sits near the inlier threshold: how often does each variant's matches verify under other RANSAC seeds?
  if (new Set(row.inliers.map((n) => n > 0)).size > 1) row.seedsVerified = VARIANTS.map((v) => verifiedUnderSeeds(a, b, set, searched[v].matches, longSide));
  tally.pairs++;
  tally.perPair.push(row);
}

/** The whole matching stage with `ann` off and on (worker threads on all cores, the preset's options otherwise); CPU of the process, all threads. */
async function compareStage(images: ImageRef[], detected: ImageFeatures[], quality: Quality): Promise<Record<string, Record<string, number | string>>> {
  const out: Record<string, Record<string, number | string>> = {};
  const verified: Array<Map<string, number>> = [];
  for (const ann of ["off", "mih"] as const) {
    const wall = performance.now();
    const cpu = cpuMs();
    const matched = await matching.run({ images, features: detected }, { ...QUALITY_PRESETS[quality].matching, ann, annMinKeypoints: 0 });
    const { verifiedPairs, inlierMatches, tracks, guidedPairs, approximatePairs, escalatedPairs } = matched.report.counts;
    out[ann] = { wallS: (performance.now() - wall) / 1000, cpuS: (cpuMs() - cpu) / 1000, verifiedPairs, inlierMatches, tracks, guidedPairs, approximatePairs, escalatedPairs };
    verified.push(new Map(matched.pairs.map((p) => [`${p.imageA}-${p.imageB}`, p.matches.length / 2])));
  }
  // Pairs only one run verified, with their inliers: marginal pairs flip with a few matches or RANSAC's draws.
  const only = (k: number) => [...verified[k]].filter(([pair]) => !verified[1 - k].has(pair)).map(([pair, n]) => `${pair} (${n})`).join(" ");
  out.off.only = only(0);
  out.mih.only = only(1);
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
  const exhaustive = tally.variants.exhaustive;
  console.log(`${set}: ${keypoints.toFixed(0)} keypoints per image, ${tally.pairs} pairs`);
  console.log(`  nearest found (no bound) for ${pct(tally.nearestFound, tally.rows)} of rows; by the exhaustive nearest distance ${DISTANCE_BINS.map((upper, k) => `≤${upper}: ${pct(tally.binFound[k], tally.binRows[k])}`).join(", ")}, >${DISTANCE_BINS.at(-1)}: ${pct(tally.binFound.at(-1)!, tally.binRows.at(-1)!)}`);
  for (const variant of VARIANTS) {
    const t = tally.variants[variant];
    const time = Number.isNaN(t.cpuMs) ? "(not timed)" : `${per(t.cpuMs)} ms CPU/pair (${per(t.wallMs)} wall, ${(exhaustive.cpuMs / t.cpuMs).toFixed(2)}×)`;
    const onLines = truth ? `, on true lines ${pct(t.matchesOnTrueLines, t.matches)}` : "";
    const inliersOnLines = truth ? `, on true lines ${pct(t.inliersOnTrueLines, t.inliers)}` : "";
    console.log(`  ${variant.padEnd(11)} ${time}; matches ${per(t.matches)}/pair: ${pct(t.shared, exhaustive.matches)} of exhaustive's + ${pct(t.extra, exhaustive.matches)} others${onLines}; verified pairs ${t.verifiedPairs}, inliers ${per(t.inliers)}/pair${inliersOnLines}`);
  }
  for (const p of tally.perPair.filter((q) => q.seedsVerified)) {
    const onLines = truth ? ` (${p.correct.join(", ")} on true lines)` : "";
    console.log(`  pair ${p.a}-${p.b} verifies only some ways: matches ${p.matches.join(", ")}; inliers ${p.inliers.join(", ")}${onLines}; verified under ${p.seedsVerified!.join(", ")} of ${SEEDS} other seeds (${VARIANTS.join(", ")})`);
  }
}

function option(args: string[], name: string): string | undefined {
  return args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
}

export async function run(args: string[]): Promise<void> {
  const quality = (option(args, "quality") ?? "standard") as Quality;
  const parameters: AnnParameters = { ...ANN_PARAMETERS, coverage: Number(option(args, "coverage") ?? ANN_PARAMETERS.coverage) };
  const weak = Number(option(args, "weak") ?? matching.DEFAULTS.annWeakMatches);
  const filters = args.filter((a) => !a.startsWith("--"));
  const sets = await listDatasets(filters.length > 0 ? filters : DEFAULT_SETS);
  console.log(`ann: ${parameters.tables} tables of ${parameters.keyBits} bits, reach ${searchReach(parameters)} bits (coverage ${parameters.coverage}); weak pairs: ≤ ${weak} matches; quality ${quality}; load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores`);
  const results: unknown[] = [];
  for (const set of sets) {
    const { images, detected } = await detect(set, quality);
    const words = wordsPerDescriptor(detected.find((f) => f.count > 0)?.descriptorBytes ?? 61);
    const packed = detected.map((f) => ({ rows: packDescriptors(f.descriptors, f.count, f.descriptorBytes), count: f.count, xy: f.xy }));
    const data: SetData = { images: packed, parameters, weak, truth: await loadTruth(set, images, detected), words };
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
