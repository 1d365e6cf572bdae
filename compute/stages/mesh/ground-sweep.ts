/**
 * @module Placing the ground plane by the photos themselves: a plane sweep (Collins, CVPR 1996)
 * over the plane's height and tilt, scored by the normalised cross-correlation of small patches
 * on the plane between the views that see them.
 *
 * Why: the ground's few dense points give its plane to within their noise, about a voxel, and
 * ground seen at grazing angles is unforgiving: from a camera whose ray meets the ground at
 * elevation e, a plane δ too high moves the photo's texture δ / tan e along the ground (at
 * SceauxCastle's e ≈ 2°, 0.01 units of height moves it 0.3 units, a tenth of the way to the
 * facade), so every view paints the ground's shadows and edges somewhere else. Thousands of
 * patches over the whole ground decide height and tilt far better than the points do.
 */
import { foldOf } from "../../geometry/camera.js";
import type { TaskRunner } from "../../util/pool.js";
import { shared } from "../../util/shared-memory.js";
import type { GreyPhoto } from "./photo-texture.js";
import { planeAxes } from "./plane-fill.js";

export interface GroundSweepOptions {
  /** Long side, in pixels, the photos are read at. */
  imageSize: number;
  /** Patches scored, at most (drawn evenly from the ground's kept cells). */
  maxPatches: number;
  /** Photos read, at most: those that see the most patches (bounds memory on large captures: ~0.8 MB each at 1024 px). */
  maxPhotos: number;
  /** Samples per patch side, and their spacing on the plane in voxels. */
  patchSide: number;
  patchStepVoxels: number;
  /** Heights tried: ± this many voxels, in steps of `offsetStepVoxels`. */
  offsetVoxels: number;
  offsetStepVoxels: number;
  /** Tilts tried about each of the plane's axes: ± this many degrees, in steps of `tiltStepDeg`. */
  tiltDeg: number;
  tiltStepDeg: number;
  /** Most rounds of the coordinate search (height, then each tilt); it stops at a round that moves nothing. */
  maxRounds: number;
  /** Most moves of the joint search that follows (one step of height and of each tilt together)… */
  maxJointMoves: number;
  /** …each of which must take away this share of the disagreement left (1 − mean NCC). */
  minJointGain: number;
  /**
   * The plane found replaces the points' plane only when it lies inside the searched heights and
   * tilts (not on their edge: the photos then agree best on a plane the points rule out, which is
   * not the ground they lie on; Herz-Jesus-P8's sweep ended on the tilt's edge, −3.0° and 7.4
   * voxels off, and its held-back view scored 24.06 dB / 0.691 from the points' plane against
   * 23.97 / 0.689), and only when it takes away at least this share of
   * the disagreement the points' plane leaves. On a textured ground the points already hold the
   * plane and the score is flat around it: the synthetic facade's sweep went from a mean NCC of
   * 0.476 to 0.480 (0.8 % of the disagreement) by moving 2 voxels below the true ground, and the
   * mesh's F-score at 0.5 % of the radius fell 0.802 → 0.781. The sweeps kept on the real and
   * rendered sets took away 8–57 % (SceauxCastle 8 %, Herz-Jesus-P8 11 %, the courtyard 13 %,
   * the plain room 21 %, fountain-P11 57 %). Those figures predate the scoring over the same pairs
   * (patchScorer) and the dense stage's narrower textured window; since them SceauxCastle's best
   * plane lies half a voxel from the points' and takes away 1.9 %, and the points' plane is kept.
   */
  minGain: number;
  /**
   * The photos' plane is refused when the median height of the ground's own points above it is
   * more than this many times their spread about the points' plane (1.4826 × median absolute
   * deviation)… (Infinity: never, the default). Off because the held-back views preferred the
   * photos' plane, when the sweep read the added cells alone (5f5302f): at 3 (and 1 voxel) it
   * refused the sweeps of the facade, object-ring, Herz-Jesus-P8,
   * fountain-P11 and the plain room (their points lie within 0.02–0.17 voxels of their plane, the
   * photos' plane 1.25–2 voxels off it); the facade's mesh F at 0.5 % rose 0.854 → 0.872, but
   * `npm run bench -- views` lost 0.03–0.05 dB on the facade, Herz-Jesus-P8 and the plain room
   * (docs/decisions.md, "The ground sweep reads the ground the points cover too").
   */
  maxPointsOffsetSpreads: number;
  /** …and more than this many voxels. */
  pointsOffsetFloorVoxels: number;
}

export const GROUND_SWEEP_DEFAULTS: GroundSweepOptions = {
  imageSize: 1024,
  maxPatches: 4000,
  maxPhotos: 48,
  patchSide: 5,
  patchStepVoxels: 2,
  offsetVoxels: 8,
  offsetStepVoxels: 0.5,
  tiltDeg: 3,
  tiltStepDeg: 0.5,
  maxRounds: 3,
  maxJointMoves: 12,
  minJointGain: 0.05,
  minGain: 0.05,
  maxPointsOffsetSpreads: Infinity,
  pointsOffsetFloorVoxels: 1,
};

export interface GroundPlane {
  /** Unit normal (up) and offset: normal·x = d. */
  normal: [number, number, number];
  d: number;
}

export interface GroundSweepResult {
  plane: GroundPlane;
  /** Mean patch NCC of the plane found from the points, and of the plane kept. */
  scoreBefore: number;
  scoreAfter: number;
  /** How far the plane moved at the patches' centroid, in voxels, and how much it turned, in degrees. */
  shiftVoxels: number;
  turnDeg: number;
  patches: number;
  /** The best plane the search found, kept or not: its score, its height above the start at the patches' centroid (voxels) and its tilts about the plane's axes (degrees). */
  found: { score: number; shiftVoxels: number; tiltDeg: [number, number] };
  /** Why the found plane was not kept: on the searched range's edge, or too small a gain; null: kept. */
  refused: "edge" | "gain" | null;
}

/**
 * The plane among heights and tilts around `plane` whose patches agree best between the photos.
 * `anchors` are the patches' centres on `plane` (x, y, z each) and `seenBy[k]` the views (indices into
 * `photos`) that see anchor k.
 */
export async function sweepGround(plane: GroundPlane, anchors: Float32Array, seenBy: number[][], photos: Array<GreyPhoto | null>, voxel: number, options: GroundSweepOptions = GROUND_SWEEP_DEFAULTS, helper?: TaskRunner<GroundSweepTask, number>): Promise<GroundSweepResult> {
  const patches = anchors.length / 3;
  const centroid = [0, 0, 0];
  for (let k = 0; k < patches; k++) for (let a = 0; a < 3; a++) centroid[a] += anchors[3 * k + a]! / patches;
  const reach = { height: options.offsetVoxels * voxel, tiltTan: Math.tan((options.tiltDeg * Math.PI) / 180) };
  const scoreAll = candidateScorer(plane, reach, anchors, seenBy, photos, voxel * options.patchStepVoxels, options.patchSide, helper);
  const { u, v } = planeAxes(plane.normal);
  /** A candidate: the plane turned by (a, b) radians about u and v through the centroid, then raised by `offset`. */
  const candidate = (offset: number, a: number, b: number): GroundPlane => {
    const n = [0, 1, 2].map((i) => plane.normal[i]! + Math.tan(a) * v[i]! + Math.tan(b) * u[i]!);
    const length = Math.hypot(n[0]!, n[1]!, n[2]!);
    const normal = n.map((x) => x / length) as [number, number, number];
    const d = normal[0] * centroid[0]! + normal[1] * centroid[1]! + normal[2] * centroid[2]! + offset;
    return { normal, d };
  };
  // The offset of `plane` itself: candidate(startOffset, 0, 0) is `plane`.
  const startOffset = plane.d - (plane.normal[0] * centroid[0]! + plane.normal[1] * centroid[1]! + plane.normal[2] * centroid[2]!);
  const [scoreBefore] = await scoreAll([plane]);
  let best = { offset: startOffset, a: 0, b: 0, score: scoreBefore! };
  // Within one pass `make` reads only what the pass does not change (a height pass the tilts, a
  // tilt pass the height), so its candidates are made up front and scored together, on two threads.
  const tryAll = async (values: number[], make: (x: number) => { offset: number; a: number; b: number }) => {
    const made = values.map(make);
    const scores = await scoreAll(made.map((c) => candidate(c.offset, c.a, c.b)));
    made.forEach((c, i) => {
      if (scores[i]! > best.score) best = { ...c, score: scores[i]! };
    });
  };
  const range = (half: number, step: number) => Array.from({ length: 2 * Math.round(half / step) + 1 }, (_, i) => -half + i * step);
  const rad = Math.PI / 180;
  // Coordinate search: height, then each tilt, in rounds until a round moves nothing (the best
  // height depends on the tilt and the other way round: on fountain-P11 one round stopped at a
  // mean NCC of 0.645, 0.5° and 2.5 voxels from the points' plane; a second found 0.711 at 0.71°
  // and 2.1 voxels, and the held-back view gained 0.12 dB), then height again finer.
  for (let round = 0; round < options.maxRounds; round++) {
    const before = best;
    await tryAll(range(options.offsetVoxels, options.offsetStepVoxels), (x) => ({ offset: startOffset + x * voxel, a: best.a, b: best.b }));
    await tryAll(range(options.tiltDeg, options.tiltStepDeg), (x) => ({ offset: best.offset, a: x * rad, b: best.b }));
    await tryAll(range(options.tiltDeg, options.tiltStepDeg), (x) => ({ offset: best.offset, a: best.a, b: x * rad }));
    if (best === before) break;
  }
  // The score can run along a narrow ridge where height and tilt must change together, which a
  // search along one axis at a time does not climb: on SceauxCastle's courtyard, after a change
  // upstream, it stopped half a voxel low and level at a mean NCC of 0.216, where a full grid of
  // heights and tilts had 0.274 one step of height and of tilt away. So the search then steps to
  // the best of the 26 neighbours that change them together, but only for a clear gain, a step
  // that takes away 5 % of the disagreement left (1 − score): on a plain floor the score is flat,
  // and steps taking away 1.7 % (the plain room, 0.7218 → 0.7265) and 3 % (fountain-P11, 0.711 →
  // 0.719) found planes that rendered worse; SceauxCastle's took away 7 % (scratch
  // bench-out/tmp/sweep-pattern.ts on the sweeps' inputs).
  const heightStep = options.offsetStepVoxels * voxel;
  const tiltStep = options.tiltStepDeg * rad;
  for (let move = 0; move < options.maxJointMoves; move++) {
    const centre = best;
    const neighbours: Array<{ offset: number; a: number; b: number }> = [];
    for (let dh = -1; dh <= 1; dh++) for (let da = -1; da <= 1; da++) for (let db = -1; db <= 1; db++) {
      const offset = centre.offset + dh * heightStep, a = centre.a + da * tiltStep, b = centre.b + db * tiltStep;
      if ((dh === 0 && da === 0 && db === 0) || Math.abs(offset - startOffset) > options.offsetVoxels * voxel + 1e-9 || Math.max(Math.abs(a), Math.abs(b)) > options.tiltDeg * rad + 1e-9) continue;
      neighbours.push({ offset, a, b });
    }
    const scores = await scoreAll(neighbours.map((c) => candidate(c.offset, c.a, c.b)));
    neighbours.forEach((c, i) => {
      const score = scores[i]!;
      if (score > best.score && 1 - score < (1 - options.minJointGain) * (1 - centre.score)) best = { ...c, score };
    });
    if (best === centre) break;
  }
  const coarse = best.offset;
  await tryAll(range(options.offsetStepVoxels, options.offsetStepVoxels / 4), (x) => ({ offset: coarse + x * voxel, a: best.a, b: best.b }));
  const onEdge = Math.abs(coarse - startOffset) >= options.offsetVoxels * voxel - 1e-9 || Math.max(Math.abs(best.a), Math.abs(best.b)) >= options.tiltDeg * rad - 1e-9;
  const found = { score: best.score, shiftVoxels: (best.offset - startOffset) / voxel, tiltDeg: [best.a / rad, best.b / rad] as [number, number] };
  const refused = onEdge ? "edge" : 1 - best.score > (1 - options.minGain) * (1 - scoreBefore!) ? "gain" : null;
  if (refused) best = { offset: startOffset, a: 0, b: 0, score: scoreBefore! };
  const kept = best.offset === startOffset && best.a === 0 && best.b === 0 ? plane : candidate(best.offset, best.a, best.b);
  const turn = Math.acos(Math.min(1, kept.normal[0] * plane.normal[0] + kept.normal[1] * plane.normal[1] + kept.normal[2] * plane.normal[2])) / rad;
  const heightAt = (p: GroundPlane) => p.normal[0] * centroid[0]! + p.normal[1] * centroid[1]! + p.normal[2] * centroid[2]! - p.d;
  return { plane: kept, scoreBefore: scoreBefore!, scoreAfter: best.score, shiftVoxels: (heightAt(plane) - heightAt(kept)) / voxel, turnDeg: turn, patches, found, refused };
}

/** How far the candidate planes reach from the start: in height at the patches' centroid, and the tangent of the largest tilt about each axis. */
export interface SweepReach {
  height: number;
  tiltTan: number;
}

/** Which views see each patch, flat: patch k's views are views[start[k]] … views[start[k + 1] − 1]. */
export interface SeenBy {
  start: Uint32Array;
  views: Uint32Array;
}

/** `seenBy` flat. */
export function flatSeenBy(seenBy: number[][]): SeenBy {
  const start = new Uint32Array(seenBy.length + 1);
  const views = new Uint32Array(seenBy.reduce((sum, list) => sum + list.length, 0));
  let at = 0;
  seenBy.forEach((list, k) => {
    start[k] = at;
    for (const view of list) views[at++] = view;
  });
  start[seenBy.length] = at;
  return { start, views };
}

/**
 * Candidate planes scored by the mesh stage's worker (worker.ts) beside this thread: the patches,
 * photos and planes (4 numbers each: normal, d) in shared memory. Both threads take the next
 * unscored plane from `next` until none is left, and write its score into `scores`.
 */
export interface GroundSweepTask {
  kind: "groundSweep";
  anchors: Float32Array;
  seenBy: SeenBy;
  photos: Array<GreyPhoto | null>;
  step: number;
  side: number;
  /** The starting plane every candidate is scored against, normal and d, and how far the candidates reach from it (patchScorer). */
  start: [number, number, number, number];
  reach: SweepReach;
  planes: Float64Array;
  scores: Float64Array;
  /** Index 0: the next plane to take. */
  next: Int32Array;
}

/** The worker's side of candidateScorer: scores planes taken from the task's counter until none is left; how many it scored. */
export function scoreSweepTask(task: GroundSweepTask): number {
  const [n0, n1, n2, d] = task.start;
  return scoreTaken(patchScorer({ normal: [n0, n1, n2], d }, task.reach, task.anchors, task.seenBy, task.photos, task.step, task.side), task.planes, task.scores, task.next);
}

/** Scores the planes taken one at a time from `next` (shared between threads); how many this thread scored. */
function scoreTaken(scorer: (plane: GroundPlane) => number, planes: Float64Array, scores: Float64Array, next: Int32Array): number {
  const count = planes.length / 4;
  let scored = 0;
  for (let c = Atomics.add(next, 0, 1); c < count; c = Atomics.add(next, 0, 1)) {
    const at = 4 * c;
    scores[c] = scorer({ normal: [planes[at]!, planes[at + 1]!, planes[at + 2]!], d: planes[at + 3]! });
    scored++;
  }
  return scored;
}

/**
 * Scores batches of planes. With `helper` (the stage's worker), both threads take planes from a
 * shared counter until the batch is done: each plane is scored whole by one thread with the same
 * code, so the scores, and the plane chosen, are the same to the bit as on one thread, and
 * neither thread waits on the other for more than one plane. (Halves of each batch had left this
 * thread idle for 0.74 s of SceauxCastle's 3.0-s ground: the worker's half ran slower.) The sweep
 * scores about 200 planes over 4000 patches, ~2.6 s on one thread at SceauxCastle's 11 photos. A
 * helper that fails leaves the planes it had not scored to this thread.
 */
function candidateScorer(start: GroundPlane, reach: SweepReach, anchors: Float32Array, seenBy: number[][], photos: Array<GreyPhoto | null>, step: number, side: number, helper?: TaskRunner<GroundSweepTask, number>) {
  const flat = flatSeenBy(seenBy);
  const scorer = patchScorer(start, reach, anchors, flat, photos, step, side);
  const here = (planes: GroundPlane[]) => planes.map((plane) => scorer(plane));
  if (!helper) return async (planes: GroundPlane[]) => here(planes);
  const inShared = { kind: "groundSweep" as const, anchors: shared(anchors), seenBy: { start: shared(flat.start), views: shared(flat.views) }, photos: photos.map((photo) => photo && { ...photo, grey: shared(photo.grey) }), step, side, start: [...start.normal, start.d] as [number, number, number, number], reach };
  let helping = true;
  return async (planes: GroundPlane[]): Promise<number[]> => {
    if (!helping || planes.length < 2) return here(planes);
    const packed = new Float64Array(new SharedArrayBuffer(32 * planes.length));
    planes.forEach((plane, c) => packed.set([...plane.normal, plane.d], 4 * c));
    const scores = new Float64Array(new SharedArrayBuffer(8 * planes.length)).fill(NaN);
    const next = new Int32Array(new SharedArrayBuffer(4));
    const there = helper.run({ ...inShared, planes: packed, scores, next }).catch(() => null);
    scoreTaken(scorer, packed, scores, next);
    if ((await there) === null) {
      helping = false;
      // A plane the worker took and did not finish has no score yet.
      scores.forEach((score, c) => {
        if (Number.isNaN(score)) scores[c] = scorer(planes[c]!);
      });
    }
    return Array.from(scores);
  };
}

/**
 * Scores a plane against `start`, the plane the sweep begins from. Each anchor is carried along the
 * plane's normal onto it and a patch of side × side samples on the plane around it is read from
 * the views that see it. Every candidate is scored over the same pairs of views: those whose photos
 * read the patch on `start` and hold it inside the frame at every height and tilt the sweep can
 * reach (`reach`). A patch scores its mean NCC over those pairs on `start`, moved by what each
 * gains or loses on this plane; a pair this plane still cannot read (the patch turns flat) keeps
 * its score on `start`. Why: when a candidate dropped the pairs it could not read, a plane that
 * carried poorly matched patches out of a photo scored better for losing them (the synthetic
 * facade's ground went 2 voxels low); when they counted as NCC 0, the true plane lost wherever it
 * carried grazing patches out of the frame (SceauxCastle's and the plain room's sweeps were
 * refused). The score of `start` is its mean NCC over those pairs, over patches with one.
 */
export function patchScorer(start: GroundPlane, reach: SweepReach, anchors: Float32Array, seenBy: SeenBy, photos: Array<GreyPhoto | null>, step: number, side: number) {
  const samples = side * side;
  const values = new Float64Array(photos.length * samples);
  const valid = new Uint8Array(photos.length);
  const half = (side - 1) / 2;
  const { start: first, views } = seenBy;
  const patches = anchors.length / 3;
  // Patch k's pairs of views (x < y in its list) are pair slots pairAt[k] … pairAt[k + 1] − 1.
  const pairAt = new Uint32Array(patches + 1);
  for (let k = 0; k < patches; k++) {
    const m = first[k + 1]! - first[k]!;
    pairAt[k + 1] = pairAt[k]! + (m * (m - 1)) / 2;
  }
  /** Reads patch k on `plane` from each of its views into `values`, `valid` saying which could; how many could. */
  const readAll = (plane: GroundPlane, u: number[], v: number[], k: number): number => {
    const n = plane.normal;
    const ax = anchors[3 * k]!, ay = anchors[3 * k + 1]!, az = anchors[3 * k + 2]!;
    const lift = plane.d - (n[0] * ax + n[1] * ay + n[2] * az);
    const cx = ax + lift * n[0], cy = ay + lift * n[1], cz = az + lift * n[2];
    let seen = 0;
    for (let s = first[k]!, end = first[k + 1]!; s < end; s++) {
      const j = views[s]!;
      const photo = photos[j];
      valid[j] = photo && readPatch(photo, cx, cy, cz, u, v, step, half, side, values, j * samples) ? 1 : 0;
      seen += valid[j]!;
    }
    return seen;
  };
  // Each pair's NCC on `start` (NaN: unread), each patch's mean over them and their count.
  const startNcc = new Float64Array(pairAt[patches]!).fill(NaN);
  const startMean = new Float64Array(patches);
  const startPairs = new Uint32Array(patches);
  {
    const { u, v } = planeAxes(start.normal);
    const n = start.normal;
    const centroid = [0, 0, 0];
    for (let k = 0; k < patches; k++) for (let a = 0; a < 3; a++) centroid[a] += anchors[3 * k + a]! / patches;
    for (let k = 0; k < patches; k++) {
      if (readAll(start, u, v, k) < 2) continue;
      // The patch's centre on `start`, and how far along the normal a candidate can move it: the
      // height reached plus what the largest tilts about both axes add at its distance from the centroid.
      const ax = anchors[3 * k]!, ay = anchors[3 * k + 1]!, az = anchors[3 * k + 2]!;
      const lift = start.d - (n[0] * ax + n[1] * ay + n[2] * az);
      const c = [ax + lift * n[0], ay + lift * n[1], az + lift * n[2]];
      const along = reach.height + Math.SQRT2 * reach.tiltTan * Math.hypot(c[0]! - centroid[0]!, c[1]! - centroid[1]!, c[2]! - centroid[2]!);
      for (let s = first[k]!, end = first[k + 1]!; s < end; s++) {
        const j = views[s]!;
        if (!valid[j]) continue;
        const photo = photos[j]!;
        for (const sign of [-1, 1]) if (!patchInside(photo, c[0]! + sign * along * n[0], c[1]! + sign * along * n[1], c[2]! + sign * along * n[2], u, v, step * (side - 1) / 2)) valid[j] = 0;
      }
      let sum = 0, pairs = 0, slot = pairAt[k]!;
      for (let x = first[k]!, end = first[k + 1]!; x < end; x++) for (let y = x + 1; y < end; y++, slot++) {
        if (!valid[views[x]!] || !valid[views[y]!]) continue;
        startNcc[slot] = dot(values, views[x]! * samples, views[y]! * samples, samples);
        sum += startNcc[slot]!;
        pairs++;
      }
      if (pairs === 0) continue;
      startMean[k] = sum / pairs;
      startPairs[k] = pairs;
    }
  }
  // `perPatch`, when given (one slot per anchor), receives each patch's score (NaN: not scored).
  return (plane: GroundPlane, perPatch?: Float64Array): number => {
    const { u, v } = planeAxes(plane.normal);
    let total = 0, scored = 0;
    for (let k = 0; k < patches; k++) {
      if (startPairs[k] === 0) {
        if (perPatch) perPatch[k] = NaN;
        continue;
      }
      scored++;
      let score = startMean[k]!;
      if (readAll(plane, u, v, k) >= 2) {
        let change = 0, slot = pairAt[k]!;
        for (let x = first[k]!, end = first[k + 1]!; x < end; x++) for (let y = x + 1; y < end; y++, slot++) {
          if (!valid[views[x]!] || !valid[views[y]!] || Number.isNaN(startNcc[slot]!)) continue;
          change += dot(values, views[x]! * samples, views[y]! * samples, samples) - startNcc[slot]!;
        }
        score += change / startPairs[k]!;
      }
      if (perPatch) perPatch[k] = score;
      total += score;
    }
    return scored > 0 ? total / scored : -1;
  };
}

/** Where world point (X, Y, Z) falls in `photo`'s pixels, written into `pixel` (x, y); false when it lies behind the photo, past its lens's fold, or outside it. */
function pixelOf(photo: GreyPhoto, X: number, Y: number, Z: number, pixel: Float64Array): boolean {
  const { R, t } = photo.view.camFromWorld;
  const { focal, cx, cy, k1, k2 } = photo.view.intrinsics;
  const zc = R[6] * X + R[7] * Y + R[8] * Z + t[2];
  if (!(zc > 0)) return false;
  const x = (R[0] * X + R[1] * Y + R[2] * Z + t[0]) / zc, y = (R[3] * X + R[4] * Y + R[5] * Z + t[1]) / zc;
  const r2 = x * x + y * y;
  if (r2 >= foldOf(k1, k2)) return false; // past the lens's fold a far point lands on another's pixel
  const dist = 1 + k1 * r2 + k2 * r2 * r2;
  const px = (focal * dist * x + cx) * photo.scale - 0.5, py = (focal * dist * y + cy) * photo.scale - 0.5;
  pixel[0] = px;
  pixel[1] = py;
  return px >= 0 && py >= 0 && px < photo.width - 1 && py < photo.height - 1;
}

/** Scratch for pixelOf: this thread's last projected pixel. */
const pixel = new Float64Array(2);

/** Whether the four corners of a patch (centre c, half-side `halfSize` along u and v) lie in front of the photo and inside it. */
function patchInside(photo: GreyPhoto, cx: number, cy: number, cz: number, u: number[], v: number[], halfSize: number): boolean {
  for (const a of [-halfSize, halfSize]) for (const b of [-halfSize, halfSize]) {
    if (!pixelOf(photo, cx + a * u[0]! + b * v[0]!, cy + a * u[1]! + b * v[1]!, cz + a * u[2]! + b * v[2]!, pixel)) return false;
  }
  return true;
}

/**
 * Reads the patch into `out` at `offset`, normalised to zero mean and unit length; false when it
 * leaves the photo, lies behind it, or is flat. The hottest loop of the ground sweep (2.7 s of
 * SceauxCastle's mesh stage over both threads): pixelOf and bilinear are written out with the
 * photo's camera read once, the same operations in the same order, so the same values.
 */
function readPatch(photo: GreyPhoto, cx: number, cy: number, cz: number, u: number[], v: number[], step: number, half: number, side: number, out: Float64Array, offset: number): boolean {
  const { R, t } = photo.view.camFromWorld;
  const { focal, cx: principalX, cy: principalY, k1, k2 } = photo.view.intrinsics;
  const fold = foldOf(k1, k2);
  const r0 = R[0]!, r1 = R[1]!, r2 = R[2]!, r3 = R[3]!, r4 = R[4]!, r5 = R[5]!, r6 = R[6]!, r7 = R[7]!, r8 = R[8]!;
  const t0 = t[0]!, t1 = t[1]!, t2 = t[2]!;
  const u0 = u[0]!, u1 = u[1]!, u2 = u[2]!, v0 = v[0]!, v1 = v[1]!, v2 = v[2]!;
  const { grey, width, scale } = photo;
  const lastX = width - 1, lastY = photo.height - 1;
  let mean = 0;
  for (let i = 0; i < side; i++) for (let j = 0; j < side; j++) {
    const a = (i - half) * step, b = (j - half) * step;
    const X = cx + a * u0 + b * v0, Y = cy + a * u1 + b * v1, Z = cz + a * u2 + b * v2;
    // pixelOf's projection.
    const zc = r6 * X + r7 * Y + r8 * Z + t2;
    if (!(zc > 0)) return false;
    const x = (r0 * X + r1 * Y + r2 * Z + t0) / zc, y = (r3 * X + r4 * Y + r5 * Z + t1) / zc;
    const radius2 = x * x + y * y;
    if (radius2 >= fold) return false;
    const dist = 1 + k1 * radius2 + k2 * radius2 * radius2;
    const px = (focal * dist * x + principalX) * scale - 0.5, py = (focal * dist * y + principalY) * scale - 0.5;
    if (!(px >= 0 && py >= 0 && px < lastX && py < lastY)) return false;
    // bilinear's sample.
    const x0 = Math.floor(px), y0 = Math.floor(py), tx = px - x0, ty = py - y0;
    const o = y0 * width + x0;
    const value = (grey[o]! * (1 - tx) + grey[o + 1]! * tx) * (1 - ty) + (grey[o + width]! * (1 - tx) + grey[o + width + 1]! * tx) * ty;
    out[offset + i * side + j] = value;
    mean += value;
  }
  mean /= side * side;
  let norm = 0;
  for (let s = 0; s < side * side; s++) {
    out[offset + s] -= mean;
    norm += out[offset + s]! * out[offset + s]!;
  }
  // Flat patches (under one grey level of spread) say nothing about where the plane is.
  if (norm < side * side) return false;
  const inv = 1 / Math.sqrt(norm);
  for (let s = 0; s < side * side; s++) out[offset + s] *= inv;
  return true;
}

function dot(values: Float64Array, a: number, b: number, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += values[a + i]! * values[b + i]!;
  return s;
}
