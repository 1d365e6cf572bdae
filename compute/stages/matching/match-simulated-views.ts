/**
 * @module Matching's second pass for photos taken far apart: the pairs of the given photos
 * matched again view by view against simulated oblique views of each other
 * (features/views.ts; ASIFT, Morel & Yu, SIAM J. Imaging Sciences 2009), the matches of all
 * views pooled, verified, and the keypoints they use added to the photos' features.
 *
 * View by view, not all views pooled into one set per photo: the same corner found in two
 * views has two near-identical descriptors, so in a pooled set each is the other's
 * second-nearest and Lowe's ratio test rejects both (pooled, templeSparseRing without every 2nd
 * photo kept the same 5 verified pairs as plain matching; view by view, its neighbours 43°
 * apart went from 16–39 inliers to 39–199).
 *
 * A view-matched pair is accepted on stricter terms than a plain one: pooling eight matchings
 * gives RANSAC ~250 putative matches per pair, and a fundamental matrix finds ~20 inliers among
 * that many random ones (pairs of that set 77–153° apart: 17–22 inliers, 8–10 % of their
 * putatives; true neighbours: 18–62 %).
 */
import type { ImageFeatures, SimulatedViews } from "../../scene/features.js";
import type { ImageRef } from "../../scene/images.js";
import type { VerifiedPair } from "../../scene/matches.js";
import { createRng } from "../../math/random.js";
import type { TaskRunner } from "../../util/pool.js";
import { packDescriptors, wordsPerDescriptor } from "./hamming.js";
import type { Options } from "./options.js";
import { verifyPair } from "./verify.js";
import { poolViewMatches, type PackedSets, type ViewPairResult, type ViewPairTask } from "./view-matches.js";

export interface WideBaselineOptions {
  /** F inliers a view-matched pair needs. */
  minInliers: number;
  /** …and the share of its pooled putative matches they must be. */
  minInlierShare: number;
  /** A view's keypoint this close (pixels) to one the photo has already is that keypoint. */
  mergeRadiusPx: number;
}

export const WIDE_BASELINE_DEFAULTS: WideBaselineOptions = { minInliers: 30, minInlierShare: 0.15, mergeRadiusPx: 1 };

export interface WideBaselineInput {
  images: ImageRef[];
  /** Plain features in the order of `images`. */
  features: ImageFeatures[];
  /** Simulated views in the order of `images`. */
  views: SimulatedViews[];
  pairs: VerifiedPair[];
  /** Positions (in `images`) of the photos whose pairs are matched again. */
  targets: number[];
}

export interface WideBaselineResult {
  features: ImageFeatures[];
  pairs: VerifiedPair[];
  counts: { targets: number; pairsTried: number; pairsGained: number; pairsImproved: number; keypointsAdded: number };
}

/** The photo's plain features and its views', in PackedSets' order. */
type FeatureSets = ImageFeatures[];

export async function rematchWideBaseline(input: WideBaselineInput, matchingOptions: Options, options: WideBaselineOptions = WIDE_BASELINE_DEFAULTS, runner?: TaskRunner<ViewPairTask, ViewPairResult>): Promise<WideBaselineResult> {
  const { images, features, views } = input;
  const words = wordsPerDescriptor(features[0]?.descriptorBytes ?? 61);
  const sets: FeatureSets[] = features.map((plain, i) => [plain, ...views[i].views]);
  const packed: PackedSets[] = sets.map((list) => ({ xy: list.map((f) => f.xy), rows: list.map((f) => packDescriptors(f.descriptors, f.count, f.descriptorBytes)), counts: list.map((f) => f.count) }));
  const byKey = new Map(input.pairs.map((p) => [pairKey(p.imageA, p.imageB), p]));
  const isTarget = new Set(input.targets);
  const tried: [number, number][] = [];
  for (let a = 0; a < images.length; a++) {
    for (let b = a + 1; b < images.length; b++) {
      // Every pair of a target, the strong ones too: leaving pairs of ≥ 200 plain inliers alone
      // did worse on the stress suite's wideRing (max rotation 0.11–2.42° over five renderings,
      // against 0.08–0.22°).
      if (isTarget.has(a) || isTarget.has(b)) tried.push([a, b]);
    }
  }
  // The matchings run on the workers when given. Each pair is verified here as its matching
  // arrives, while the workers match the next ones (templeSparseRing without every 2nd photo:
  // 0.8 s of verifying that had the workers idle when done after the last matching); merging
  // stays in pair order, so the keypoints added do not depend on which matching finished first.
  const run = (task: ViewPairTask) => (runner ? runner.run(task) : Promise.resolve(poolViewMatches(task)));
  const results = await Promise.all(
    tried.map(([a, b]) =>
      run({ kind: "views", a: packed[a], b: packed[b], before: plainMatches(byKey.get(pairKey(a, b)), a), ratio: matchingOptions.ratio, words }).then(({ pooled }) => ({
        pooled,
        verified: verifyPooled(a, b, pooled, sets[a], sets[b], images, matchingOptions, options, createRng(0x77b ^ pairKey(a, b))),
      })),
    ),
  );
  const grown = features.map((f) => new GrowingFeatures(f, options.mergeRadiusPx));
  const counts = { targets: input.targets.length, pairsTried: tried.length, pairsGained: 0, pairsImproved: 0, keypointsAdded: 0 };
  tried.forEach(([a, b], k) => {
    const { pooled, verified } = results[k];
    const before = byKey.get(pairKey(a, b));
    if (!verified || verified.inliers.length / 2 <= (before ? before.matches.length / 2 : 0)) return;
    byKey.set(pairKey(a, b), { ...verified.pair, imageA: a, imageB: b, matches: mergedMatches(verified.inliers, pooled, sets[a], sets[b], grown[a], grown[b]) });
    if (before) counts.pairsImproved++;
    else counts.pairsGained++;
  });
  const merged = grown.map((g) => g.build());
  counts.keypointsAdded = merged.reduce((sum, f, i) => sum + f.count - features[i].count, 0);
  const pairs = [...byKey.values()].sort((p, q) => p.imageA - q.imageA || p.imageB - q.imageB);
  return { features: merged, pairs, counts };
}

function pairKey(a: number, b: number): number {
  return a < b ? a * 1_000_003 + b : b * 1_000_003 + a;
}

/** A verified plain pair's matches as (index in image `a`, index in the other) pairs. */
function plainMatches(pair: VerifiedPair | undefined, a: number): Uint32Array | null {
  if (!pair) return null;
  if (pair.imageA === a) return pair.matches;
  const flipped = new Uint32Array(pair.matches.length);
  for (let k = 0; k < pair.matches.length; k += 2) {
    flipped[k] = pair.matches[k + 1];
    flipped[k + 1] = pair.matches[k];
  }
  return flipped;
}

/** The inliers as keypoint indices of the grown features; a keypoint twice (two view keypoints merged into one) keeps its first match. */
function mergedMatches(inliers: Uint32Array, pooled: Uint32Array, setsA: FeatureSets, setsB: FeatureSets, grownA: GrowingFeatures, grownB: GrowingFeatures): Uint32Array {
  const matches = new Uint32Array(inliers.length);
  let kept = 0;
  const usedA = new Set<number>();
  const usedB = new Set<number>();
  for (let k = 0; k < inliers.length; k += 2) {
    const m = 4 * inliers[k];
    const ia = grownA.indexOf(setsA[pooled[m]], pooled[m + 1]);
    const ib = grownB.indexOf(setsB[pooled[m + 2]], pooled[m + 3]);
    if (usedA.has(ia) || usedB.has(ib)) continue;
    usedA.add(ia);
    usedB.add(ib);
    matches[kept++] = ia;
    matches[kept++] = ib;
  }
  return matches.slice(0, kept);
}

/** Verification of the pooled matches, with the stricter acceptance; inliers index the pooled quads (k, k). */
function verifyPooled(a: number, b: number, pooled: Uint32Array, setsA: FeatureSets, setsB: FeatureSets, images: ImageRef[], matchingOptions: Options, options: WideBaselineOptions, rng: () => number): { pair: VerifiedPair; inliers: Uint32Array } | null {
  const count = pooled.length / 4;
  if (count < options.minInliers) return null;
  const xyA = new Float32Array(2 * count);
  const xyB = new Float32Array(2 * count);
  const triples = new Uint32Array(3 * count);
  for (let k = 0; k < count; k++) {
    const fa = setsA[pooled[4 * k]].xy;
    const fb = setsB[pooled[4 * k + 2]].xy;
    const ia = pooled[4 * k + 1];
    const ib = pooled[4 * k + 3];
    xyA[2 * k] = fa[2 * ia];
    xyA[2 * k + 1] = fa[2 * ia + 1];
    xyB[2 * k] = fb[2 * ib];
    xyB[2 * k + 1] = fb[2 * ib + 1];
    triples[3 * k] = k;
    triples[3 * k + 1] = k;
  }
  const longSide = Math.max(images[a].width, images[a].height, images[b].width, images[b].height);
  const verified = verifyPair(a, b, xyA, xyB, triples, longSide, matchingOptions, rng);
  if (!verified.pair) return null;
  const inliers = verified.pair.matches;
  if (inliers.length / 2 < options.minInliers || inliers.length / 2 < options.minInlierShare * count) return null;
  return { pair: verified.pair, inliers };
}

/**
 * A photo's features with view keypoints added: a view keypoint within `radius` pixels of one
 * the photo has (plain or added before) is that one, so tracks through it stay one track.
 */
class GrowingFeatures {
  private readonly cells = new Map<number, number[]>();
  private readonly added: { from: ImageFeatures; index: number }[] = [];
  private readonly known = new Map<ImageFeatures, Map<number, number>>();

  constructor(
    private readonly plain: ImageFeatures,
    private readonly radius: number,
  ) {
    for (let i = 0; i < plain.count; i++) this.insert(plain.xy[2 * i], plain.xy[2 * i + 1], i);
  }

  /** The merged index of keypoint `index` of `from` (the plain features or one view's). */
  indexOf(from: ImageFeatures, index: number): number {
    if (from === this.plain) return index;
    let seen = this.known.get(from);
    if (!seen) this.known.set(from, (seen = new Map()));
    const cached = seen.get(index);
    if (cached !== undefined) return cached;
    const x = from.xy[2 * index];
    const y = from.xy[2 * index + 1];
    const near = this.nearest(x, y);
    const merged = near ?? this.plain.count + this.added.length;
    if (near === undefined) {
      this.added.push({ from, index });
      this.insert(x, y, merged);
    }
    seen.set(index, merged);
    return merged;
  }

  build(): ImageFeatures {
    if (this.added.length === 0) return this.plain;
    const { plain } = this;
    const bytes = plain.descriptorBytes;
    const count = plain.count + this.added.length;
    const out: ImageFeatures = { imageIndex: plain.imageIndex, count, xy: new Float32Array(2 * count), scale: new Float32Array(count), angle: new Float32Array(count), descriptors: new Uint8Array(count * bytes), descriptorBytes: bytes, rgb: new Uint8Array(3 * count) };
    out.xy.set(plain.xy);
    out.scale.set(plain.scale);
    out.angle.set(plain.angle);
    out.descriptors.set(plain.descriptors);
    out.rgb.set(plain.rgb);
    this.added.forEach(({ from, index }, k) => {
      const i = plain.count + k;
      out.xy[2 * i] = from.xy[2 * index];
      out.xy[2 * i + 1] = from.xy[2 * index + 1];
      out.scale[i] = from.scale[index];
      out.angle[i] = from.angle[index];
      out.descriptors.set(from.descriptors.subarray(index * bytes, (index + 1) * bytes), i * bytes);
      out.rgb.set(from.rgb.subarray(3 * index, 3 * index + 3), 3 * i);
    });
    return out;
  }

  private cellOf(x: number, y: number): number {
    return Math.floor(y / this.radius) * 1_000_003 + Math.floor(x / this.radius);
  }

  private insert(x: number, y: number, index: number): void {
    const key = this.cellOf(x, y);
    const list = this.cells.get(key);
    if (list) list.push(index);
    else this.cells.set(key, [index]);
  }

  private position(index: number): [number, number] {
    if (index < this.plain.count) return [this.plain.xy[2 * index], this.plain.xy[2 * index + 1]];
    const { from, index: i } = this.added[index - this.plain.count];
    return [from.xy[2 * i], from.xy[2 * i + 1]];
  }

  private nearest(x: number, y: number): number | undefined {
    const cx = Math.floor(x / this.radius);
    const cy = Math.floor(y / this.radius);
    let best: number | undefined;
    let bestDistance = this.radius * this.radius;
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        for (const index of this.cells.get((cy + dy) * 1_000_003 + cx + dx) ?? []) {
          const [px, py] = this.position(index);
          const distance = (px - x) ** 2 + (py - y) ** 2;
          if (distance <= bestDistance) {
            bestDistance = distance;
            best = index;
          }
        }
      }
    }
    return best;
  }
}
