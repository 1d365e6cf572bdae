/**
 * @module Completing the ground: the plane the photos were taken above, filled wherever the
 * cameras see it unoccluded and not seen through, out to the cameras themselves.
 *
 * Ground seen from eye height is seen at grazing angles (a courtyard 40 m away from a camera
 * 1.6 m up is seen at 88° from its normal), and gravel, asphalt or a lawn in full sun has little
 * texture at the working resolution: dense stereo leaves a few scattered points on it, far too
 * few (well under the 3 % share) for the dominant planes of plane-completion.ts, whose fill
 * also stays within its inliers' extent, while the ground the photos show reaches from the
 * photographer's feet to the far walls. What marks the ground is the cameras' own geometry:
 * the photos are upright, so their mean "up" is the world's up, and a person, a pole or a
 * drone keeps about the same height above the ground, so the ground is the plane below every
 * camera that its scattered points agree on. On SceauxCastle the plane with most horizontal
 * points under the cameras was the entrance stairs (treads and risers make a slope); the one
 * with the widest footprint was the courtyard, with every camera 0.102–0.119 units above it.
 *
 * Cells of a grid on that plane, over the extent of the cloud and the cameras, get points when
 * the camera verdict of plane-completion.ts keeps them (at least `minViews` views see the cell
 * from above, unoccluded by the cloud, and at most `maxSeeThrough` of them see points below it:
 * Jancosek & Pajdla's free-space evidence, CVPR 2011; a view whose ray to the point just above the
 * cell meets a surface in front does not see it) and no relief (an object standing on the ground)
 * is near. A plane that is not clearly below all cameras, or tilted more than
 * `maxTiltDeg` from their up, is no ground: nothing is added.
 */
import { selectInPlace } from "../../math/select.js";
import type { ImageRef, RegisteredView } from "../../scene/index.js";
import { cameraCenter } from "../../scene/index.js";
import type { TaskRunner } from "../../util/pool.js";
import { sweepRegions, type GroundRegionOptions, type GroundRegions } from "./ground-regions.js";
import { sweepGround, type GroundPlane, type GroundSweepOptions, type GroundSweepTask } from "./ground-sweep.js";
import { loadGreyPhotos, type GreyPhoto } from "./photo-texture.js";
import { cameraVerdict, ReliefPoints, type CompletionPoints } from "./plane-completion.js";
import { groundHull, hullBox, insideHull, type Hull } from "./ground-extent.js";
import { planeAxes } from "./plane-fill.js";
import { PointGrid } from "./point-grid.js";
import { findPlanes, type Plane } from "./planes.js";
import { cloudDepthImages, withMorePoints, type CloudDepthImages, type DepthImage } from "./see-through.js";

export interface GroundCompletionOptions {
  /**
   * A cell is also hidden from a view where the point a little above it is (plane-completion.ts,
   * standingOccluded): a wall or a block in front of the cell within 5 % of its depth. Without it
   * the synthetic facade's ground ran on 0.1–0.5 units behind the facade's front, inside the
   * building (`npm run bench -- dense facade`, docs/decisions.md "Ground behind a standing surface
   * is hidden").
   */
  standingOcclusion: boolean;
  /** Largest angle between the ground's normal and the cameras' mean up (photos pitched up or down tilt that mean). */
  maxTiltDeg: number;
  /** The cameras' up vectors must agree: the length of their mean, at least (1: all the same). */
  minUpAgreement: number;
  /** Inlier distance of the ground's points, in voxels (its points are sparse and noisy). */
  inlierVoxels: number;
  /** Fewest points on the ground before it is trusted. */
  minInliers: number;
  /** Every camera at least this far above the ground, in voxels. */
  minCameraHeightVoxels: number;
  /**
   * The ground's points must span at least this share of the filled extent (the cloud's and the
   * cameras') along both of the plane's axes: a compact patch (a landing, a slope of stairs) is
   * not extended to the whole scene.
   */
  minSpanShare: number;
  /** Occupancy cell on the ground, in voxels; the footprint that ranks candidate planes uses cells of 4× this. */
  cellVoxels: number;
  /** Cells per side of the ground's grid, at most (the cell grows to stay within it). */
  maxGridSide: number;
  /** Cell-and-view visibility checks, at most: the cell grows on captures of many photos. */
  maxViewChecks: number;
  minViews: number;
  maxSeeThrough: number;
  /** No point within this many voxels of a cloud point (the real ground and the walls keep their own). */
  clearanceVoxels: number;
  /** Nor within this many voxels of relief, as in plane-completion.ts (minReliefPoints points off the ground). */
  offPlaneClearanceVoxels: number;
  minReliefPoints: number;
  /**
   * The ground reaches no further than the hull of its points and the cameras (ground-extent.ts),
   * counting the points that share a coarse cell of at least this many voxels (wider on a sparse
   * ground)…
   */
  extentCellVoxels: number;
  /** …with this many of the ground's points at least (a lone point far out does not count). */
  extentMinPoints: number;
  /**
   * One cell in this many that the cloud already covers is also a patch of the photos' sweep
   * (ground-sweep.ts), beside every cell the ground adds. Swept over the added cells alone, which lie
   * where few photos reach (along their bottom edges), the synthetic facade's ground went 1.9 voxels
   * below the true ground that its points and its photos both hold. 0: none.
   */
  sweepCoveredEvery: number;
  /**
   * A height per tile of the ground, swept after the whole plane (ground-regions.ts); null: one
   * plane, the default. Off: with GROUND_REGION_DEFAULTS SceauxCastle's held-back view gained
   * 0.54 dB and 0.007 of SSIM on the table's seed but lost 0.007 of its coverage, and every other
   * set stayed within 0.04 dB (docs/decisions.md, "A height per tile of the ground: an option, off by default").
   */
  regions: GroundRegionOptions | null;
}

export const GROUND_DEFAULTS: GroundCompletionOptions = {
  standingOcclusion: true,
  maxTiltDeg: 25,
  minUpAgreement: 0.7,
  inlierVoxels: 2,
  minInliers: 200,
  minCameraHeightVoxels: 4,
  minSpanShare: 0.25,
  cellVoxels: 2,
  maxGridSide: 2000,
  maxViewChecks: 200_000_000,
  // One view suffices: the plane is known from the ground's points, and the photo shows ground there.
  // Two views took the strip along the photos' bottom edges that only one photo sees: the synthetic
  // facade's mesh F½ 0.902 → 0.916, but SceauxCastle's held-back view lost 0.049 of its coverage
  // (docs/decisions.md, "The ground's grid covers its hull").
  minViews: 1,
  maxSeeThrough: 0.5,
  clearanceVoxels: 2,
  offPlaneClearanceVoxels: 5,
  minReliefPoints: 30,
  extentCellVoxels: 8,
  extentMinPoints: 3,
  sweepCoveredEvery: 4,
  regions: null,
};

export interface GroundCompletionReport {
  /** 1 when a ground plane was found. */
  groundFound: number;
  groundInliers: number;
  /** The lowest camera's height above the ground, in voxels (0 without a ground). */
  groundCameraHeightVoxels: number;
  groundCellsTried: number;
  groundCellsAdded: number;
  groundCellsSeenThrough: number;
  groundCellsUnseen: number;
  groundCellsNearRelief: number;
  /** Cells beyond the hull of the ground's points and the cameras (ground-extent.ts). */
  groundCellsBeyond: number;
  groundPointsAdded: number;
  /** The photo sweep (0 without photos): patches scored, mean NCC before and after, how far the plane moved (voxels) and turned (degrees). */
  groundSweepPatches: number;
  groundSweepScoreBefore: number;
  groundSweepScoreAfter: number;
  groundSweepShiftVoxels: number;
  groundSweepTurnDeg: number;
  /** The best plane the sweep found, kept or not: its mean NCC, height above the points' plane (voxels), whether it was refused (0: kept, 1: on the searched range's edge, 2: too small a gain). */
  groundSweepFoundScore: number;
  groundSweepFoundShiftVoxels: number;
  groundSweepRefused: number;
  /** The spread of the ground's points about the points' plane (1.4826 × their median absolute deviation), in voxels. */
  groundInlierSpreadVoxels: number;
  /** The median height of the ground's points above the photos' plane, in voxels (0 without a sweep). */
  groundSweepPointsOffsetVoxels: number;
  /** 1 when the photos' plane was refused because the ground's points lie clearly off it (GroundSweepOptions.maxPointsOffsetSpreads). */
  groundSweepRefusedByPoints: number;
  /** The tiles swept for a height of their own, those moved, and the largest move (voxels). */
  groundRegionTilesSwept: number;
  groundRegionTilesMoved: number;
  /** Tiles whose best height gained enough but within the patches' noise (ground-regions.ts `minSignificance`). */
  groundRegionTilesNoise: number;
  groundRegionLargestMoveVoxels: number;
  /**
   * The ground kept, read against the cameras: its normal's angle from their mean up (degrees) and
   * their mean height above it (voxels). Where the photos show the ground near a camera's feet a
   * voxel of height moves its texture by many pixels, so these say how a model's ground differs
   * from another's (docs/decisions.md, "The ground is the plane the cameras stand above").
   */
  groundTiltFromUpDeg: number;
  groundMeanCameraHeightVoxels: number;
}

interface Ground {
  /** Unit normal pointing up (to the cameras) and offset: normal·x = d on the ground. */
  normal: [number, number, number];
  d: number;
  inliers: number;
  /** The inliers' positions (x, y, z each). */
  inlierPositions: Float32Array;
  lowestCameraHeight: number;
}

/** The photos, when the ground's plane is to be placed by them (ground-sweep.ts) and not by its points alone. */
export interface GroundPhotos {
  images: ImageRef[];
  sweep: GroundSweepOptions;
}

/**
 * The ground's points, the plane they lie on (null: no ground), the depth images of the cloud it
 * was given (null without a ground) and the photos the sweep read, by view (null: not read).
 */
export interface GroundCompletion {
  points: CompletionPoints;
  report: GroundCompletionReport;
  plane: GroundPlane | null;
  images: DepthImage[] | null;
  grey: Array<GreyPhoto | null>;
}

/** A cell of the ground's grid the cameras keep: its centre in plane coordinates and the views that see it. */
interface KeptCell {
  u: number;
  v: number;
  seenBy: number[];
}

/**
 * Points on the ground where the cameras show it and the cloud has none. `planes` and `planeOf`
 * are plane-completion's (over this cloud), so that walls meeting the ground are not relief.
 * With `photos`, the plane is then placed by them (ground-sweep.ts) before the points are made.
 * `known` are depth images of the cloud's first points (plane completion's), which are grown (and
 * changed) here instead of projecting every point again; or a promise of them, grown to the
 * whole cloud on another thread while the ground is sought. `helper` (the stage's worker) scores half
 * of the sweep's planes.
 */
export async function completeGround(
  cloud: { positions: Float32Array; normals: Float32Array; colors: Uint8Array; count: number },
  views: RegisteredView[],
  voxel: number,
  planes: Plane[],
  planeOf: Int16Array,
  options: GroundCompletionOptions = GROUND_DEFAULTS,
  photos?: GroundPhotos,
  known: CloudDepthImages | Promise<CloudDepthImages> | null = null,
  helper?: TaskRunner<GroundSweepTask, number>,
): Promise<GroundCompletion> {
  const report: GroundCompletionReport = { groundFound: 0, groundInliers: 0, groundCameraHeightVoxels: 0, groundCellsTried: 0, groundCellsAdded: 0, groundCellsSeenThrough: 0, groundCellsUnseen: 0, groundCellsNearRelief: 0, groundCellsBeyond: 0, groundPointsAdded: 0, groundSweepPatches: 0, groundRegionTilesSwept: 0, groundRegionTilesMoved: 0, groundRegionTilesNoise: 0, groundRegionLargestMoveVoxels: 0, groundSweepScoreBefore: 0, groundSweepScoreAfter: 0, groundSweepShiftVoxels: 0, groundSweepTurnDeg: 0, groundSweepFoundScore: 0, groundSweepFoundShiftVoxels: 0, groundSweepRefused: 0, groundInlierSpreadVoxels: 0, groundSweepPointsOffsetVoxels: 0, groundSweepRefusedByPoints: 0, groundTiltFromUpDeg: 0, groundMeanCameraHeightVoxels: 0 };
  const empty = { count: 0, positions: new Float32Array(0), normals: new Float32Array(0), colors: new Uint8Array(0) };
  if (views.length < options.minViews || cloud.count < options.minInliers) return { points: empty, report, plane: null, images: null, grey: [] };
  const centres = views.map((view) => cameraCenter(view.camFromWorld));
  const found = findGround(cloud, views, centres, voxel, options);
  if (!found) return { points: empty, report, plane: null, images: null, grey: [] };
  Object.assign(report, { groundFound: 1, groundInliers: found.inliers, groundCameraHeightVoxels: found.lowestCameraHeight / voxel });
  const spread = 1.4826 * medianAbsoluteDeviation(heightsAbove(found, found.inlierPositions));
  report.groundInlierSpreadVoxels = spread / voxel;

  const { u, v } = planeAxes(found.normal);
  const origin = found.normal.map((x) => x * found.d);
  const at = (pu: number, pv: number): number[] => [0, 1, 2].map((a) => origin[a]! + pu * u[a]! + pv * v[a]!);
  const dense = new PointGrid(cloud.positions, cloud.count, Math.max(options.clearanceVoxels * voxel, 2 * voxel));
  const knownNow = await known;
  const images = knownNow && knownNow.count <= cloud.count ? withMorePoints(knownNow.images, cloud.positions, knownNow.count, cloud.count) : cloudDepthImages(cloud.positions, cloud.count, views);
  // Every view's photo in grey, decoded from the first cell kept on (sharp's threads, on the core
  // this thread leaves free) while the other cells are chosen, not once the sweep wants them:
  // SceauxCastle's 11 photos at 1,024 px were 0.4–0.56 s of waiting. All of them: the sweep reads
  // those that see its patches, every view unless there are more than it reads.
  let ahead: Promise<Array<GreyPhoto | null>> | undefined;
  const readAhead = photos && views.length <= photos.sweep.maxPhotos ? () => (ahead ??= loadGreyPhotos(views, photos.images, photos.sweep.imageSize, new Set(views.keys()))) : undefined;
  const { kept, covered, cell, extent } = keptCells(cloud, views, images, centres, voxel, found, at, dense, planes, planeOf, options, report, readAhead);
  report.groundCellsAdded = kept.length;
  let ground: GroundPlane = { normal: found.normal, d: found.d };
  let grey: Array<GreyPhoto | null> = [];
  let regions: GroundRegions | null = null;
  if (photos && kept.length > 0) {
    // The sweep reads the ground the cloud covers too, where the photos and the points both speak,
    // not only the cells it adds (docs/decisions.md, "The ground sweep reads the ground the points cover too").
    const swept = await placeByPhotos(ground, [...kept, ...covered], at, views, voxel, photos, helper, ahead);
    grey = swept.grey;
    Object.assign(report, { groundSweepPatches: swept.patches, groundSweepScoreBefore: swept.scoreBefore, groundSweepScoreAfter: swept.scoreAfter, groundSweepShiftVoxels: swept.shiftVoxels, groundSweepTurnDeg: swept.turnDeg, groundSweepFoundScore: swept.found.score, groundSweepFoundShiftVoxels: swept.found.shiftVoxels, groundSweepRefused: swept.refused === "edge" ? 1 : swept.refused === "gain" ? 2 : 0 });
    // The points' word against the photos': where the ground's points lie tightly on their plane,
    // a photos' plane clearly off them is refused (GroundSweepOptions.maxPointsOffsetSpreads).
    const offset = median(heightsAbove(swept.plane, found.inlierPositions));
    report.groundSweepPointsOffsetVoxels = offset / voxel;
    const allowed = Math.max(photos.sweep.pointsOffsetFloorVoxels * voxel, photos.sweep.maxPointsOffsetSpreads * spread);
    if (Math.abs(offset) > allowed) report.groundSweepRefusedByPoints = 1;
    else ground = swept.plane;
    if (options.regions) {
      const patches = [...kept, ...covered].map((c) => ({ u: c.u, v: c.v, at: onto(ground, found.normal, at(c.u, c.v)), seenBy: c.seenBy }));
      regions = sweepRegions(ground, patches, extent, grey, voxel, photos.sweep.patchStepVoxels * voxel, photos.sweep.patchSide, options.regions);
      Object.assign(report, { groundRegionTilesSwept: regions.report.tilesSwept, groundRegionTilesMoved: regions.report.tilesMoved, groundRegionTilesNoise: regions.report.tilesNoise, groundRegionLargestMoveVoxels: regions.report.largestMoveVoxels });
    }
  }
  const { up } = meanUp(views);
  const cosUp = ground.normal[0] * up[0] + ground.normal[1] * up[1] + ground.normal[2] * up[2];
  report.groundTiltFromUpDeg = (Math.acos(Math.min(1, cosUp)) * 180) / Math.PI;
  report.groundMeanCameraHeightVoxels = centres.reduce((sum, c) => sum + ground.normal[0] * c[0] + ground.normal[1] * c[1] + ground.normal[2] * c[2] - ground.d, 0) / centres.length / voxel;
  // One point per voxel face: the signed distance's support holds several, and the ground is large.
  const per = Math.max(1, Math.round(cell / voxel));
  const clearance = options.clearanceVoxels * voxel;
  const out: number[] = [];
  const fade = options.regions ? options.regions.fadeVoxels * voxel : 0;
  for (const { u: cu, v: cv } of kept) {
    // How much of its tile's height the cell takes: less the nearer the cloud (GroundRegionOptions.fadeVoxels).
    let share = 0;
    if (regions && regions.report.tilesMoved > 0) {
      const centre = onto(ground, found.normal, at(cu, cv));
      share = fade > 0 ? Math.min(1, Math.sqrt(dense.nearestDistance2(centre[0]!, centre[1]!, centre[2]!, fade)) / fade) : 1;
    }
    for (let a = 0; a < per; a++) for (let b = 0; b < per; b++) {
      const pu = cu + ((a + 0.5) / per - 0.5) * cell, pv = cv + ((b + 0.5) / per - 0.5) * cell;
      const p = onto(ground, found.normal, at(pu, pv));
      const lift = share > 0 ? share * regions!.heightAt(pu, pv) : 0;
      if (lift !== 0) for (let axis = 0; axis < 3; axis++) p[axis] += lift * ground.normal[axis]!;
      if (dense.hasPointNearer(p[0]!, p[1]!, p[2]!, clearance)) continue;
      out.push(p[0]!, p[1]!, p[2]!);
    }
  }
  const count = out.length / 3;
  report.groundPointsAdded = count;
  const normals = new Float32Array(3 * count);
  for (let i = 0; i < count; i++) normals.set(ground.normal, 3 * i);
  return { points: { count, positions: new Float32Array(out), normals, colors: groundColours(cloud, found, voxel, count) }, report, plane: ground, images, grey };
}

/** The cells of a grid on the ground, over the box of its extent's hull (ground-extent.ts), that the cameras keep and no relief stands near (`onKept` is called at each). */
function keptCells(
  cloud: { positions: Float32Array; count: number },
  views: RegisteredView[],
  images: DepthImage[],
  centres: Float64Array[],
  voxel: number,
  found: Ground,
  at: (u: number, v: number) => number[],
  dense: PointGrid,
  planes: Plane[],
  planeOf: Int16Array,
  options: GroundCompletionOptions,
  report: GroundCompletionReport,
  onKept?: () => void,
): { kept: KeptCell[]; covered: KeptCell[]; cell: number; extent: { minU: number; maxU: number; minV: number; maxV: number } } {
  const { u, v } = planeAxes(found.normal);
  const hull = extentHull(cloud.positions, cloud.count, centres, found, at(0, 0), u, v, voxel, options);
  const extent = hullBox(hull);
  const width = extent.maxU - extent.minU, depth = extent.maxV - extent.minV;
  const cell = Math.max(options.cellVoxels * voxel, width / options.maxGridSide, depth / options.maxGridSide, Math.sqrt((width * depth * views.length) / options.maxViewChecks));
  const cols = Math.max(1, Math.ceil(width / cell));
  const rows = Math.max(1, Math.ceil(depth / cell));
  const asPlane: Plane = { normal: found.normal, d: found.d, inliers: new Uint32Array(0) };
  const radius = options.offPlaneClearanceVoxels * voxel + cell * Math.SQRT1_2;
  // The relief's own grid, in buckets of the query's radius (a few per axis, where the dense grid's
  // voxel-sized buckets were hundreds), is made when the first cell gets as far as its test.
  let relief: ReliefPoints | undefined;
  const reliefAt = (p: number[]) => (relief ??= new ReliefPoints(cloud.positions, cloud.count, planeOf, planes, asPlane, 2 * options.inlierVoxels * voxel, radius)).near(p, radius, options.minReliefPoints);
  const kept: KeptCell[] = [];
  const covered: KeptCell[] = [];
  for (let row = 0; row < rows; row++) {
    for (let col = 0; col < cols; col++) {
      const cu = extent.minU + (col + 0.5) * cell, cv = extent.minV + (row + 0.5) * cell;
      if (!insideHull(hull, cu, cv)) {
        report.groundCellsBeyond++;
        continue;
      }
      const centre = at(cu, cv);
      // A cell the cloud already covers keeps its own points; one in `sweepCoveredEvery` of them
      // (along the grid's diagonals) that the cameras keep is a patch for the photos' sweep.
      const isCovered = dense.hasPointNearer(centre[0]!, centre[1]!, centre[2]!, cell * Math.SQRT1_2);
      if (isCovered && !(options.sweepCoveredEvery > 0 && (row + col) % options.sweepCoveredEvery === 0)) continue;
      if (!isCovered) report.groundCellsTried++;
      const verdict = cameraVerdict(centre, found.normal, images, centres, 3 * voxel, options, 2 * options.inlierVoxels * voxel, options.standingOcclusion ? 2 * options.inlierVoxels * voxel : undefined, true);
      if (isCovered) {
        if (verdict.verdict === "keep") covered.push({ u: cu, v: cv, seenBy: verdict.seenBy });
        continue;
      }
      if (verdict.verdict !== "keep") {
        if (verdict.verdict === "seen-through") report.groundCellsSeenThrough++;
        else report.groundCellsUnseen++;
        continue;
      }
      // Relief stands on the ground: asked at the cell and one radius above it, so the sides of an object count, not only its foot.
      if (reliefAt(centre) || reliefAt(centre.map((x, a) => x + radius * found.normal[a]!))) {
        report.groundCellsNearRelief++;
        continue;
      }
      kept.push({ u: cu, v: cv, seenBy: verdict.seenBy });
      onKept?.();
    }
  }
  return { kept, covered, cell, extent };
}

/** The hull of the ground's own points (within its inlier distance) and the cameras' feet, in plane coordinates. */
function extentHull(positions: Float32Array, count: number, centres: Float64Array[], found: Ground, origin: number[], u: number[], v: number[], voxel: number, options: GroundCompletionOptions): Hull {
  const n = found.normal;
  const near = options.inlierVoxels * voxel;
  /** Writes the plane coordinates of (x, y, z) at pair k of `out`. */
  const toPlane = (out: Float64Array, k: number, x: number, y: number, z: number) => {
    const dx = x - origin[0]!, dy = y - origin[1]!, dz = z - origin[2]!;
    out[2 * k] = dx * u[0]! + dy * u[1]! + dz * u[2]!;
    out[2 * k + 1] = dx * v[0]! + dy * v[1]! + dz * v[2]!;
  };
  const groundUV = new Float64Array(2 * count);
  let kept = 0;
  for (let i = 0; i < count; i++) {
    const x = positions[3 * i]!, y = positions[3 * i + 1]!, z = positions[3 * i + 2]!;
    if (Math.abs(n[0] * x + n[1] * y + n[2] * z - found.d) <= near) toPlane(groundUV, kept++, x, y, z);
  }
  const cameraUV = new Float64Array(2 * centres.length);
  centres.forEach((c, k) => toPlane(cameraUV, k, c[0]!, c[1]!, c[2]!));
  return groundHull(groundUV.subarray(0, 2 * kept), cameraUV, options.extentCellVoxels * voxel, options.extentMinPoints);
}

/** `p` carried along `along` onto `plane`. */
function onto(plane: GroundPlane, along: number[], p: number[]): number[] {
  const n = plane.normal;
  const lift = (plane.d - (n[0] * p[0]! + n[1] * p[1]! + n[2] * p[2]!)) / (n[0] * along[0]! + n[1] * along[1]! + n[2] * along[2]!);
  return p.map((x, a) => x + lift * along[a]!);
}

/** The plane swept against the photos over patches at (up to maxPatches of) the kept cells. */
/** `ahead`: every view's photo, decoded already; else those the sweep wants are decoded here. */
async function placeByPhotos(plane: GroundPlane, kept: KeptCell[], at: (u: number, v: number) => number[], views: RegisteredView[], voxel: number, photos: GroundPhotos, helper?: TaskRunner<GroundSweepTask, number>, ahead?: Promise<Array<GreyPhoto | null>>) {
  const step = Math.max(1, Math.ceil(kept.length / photos.sweep.maxPatches));
  const chosen = kept.filter((_, i) => i % step === 0);
  const anchors = new Float32Array(3 * chosen.length);
  chosen.forEach((c, k) => anchors.set(at(c.u, c.v), 3 * k));
  // The photos that see the most patches; the others are left out of every patch.
  const patchesSeen = new Map<number, number>();
  for (const c of chosen) for (const view of c.seenBy) patchesSeen.set(view, (patchesSeen.get(view) ?? 0) + 1);
  const wanted = new Set([...patchesSeen.entries()].sort((a, b) => b[1] - a[1]).slice(0, photos.sweep.maxPhotos).map(([view]) => view));
  const grey = ahead ? (await ahead).map((photo, view) => (wanted.has(view) ? photo : null)) : await loadGreyPhotos(views, photos.images, photos.sweep.imageSize, wanted);
  return { ...(await sweepGround(plane, anchors, chosen.map((c) => c.seenBy.filter((view) => wanted.has(view))), grey, voxel, photos.sweep, helper)), grey };
}

/** The cameras' mean up (the photos' −y axis in the world), and how well they agree (the mean's length). */
function meanUp(views: RegisteredView[]): { up: [number, number, number]; agreement: number } {
  const up: [number, number, number] = [0, 0, 0];
  for (const view of views) for (let a = 0; a < 3; a++) up[a] -= view.camFromWorld.R[3 + a];
  const length = Math.hypot(up[0], up[1], up[2]);
  for (let a = 0; a < 3; a++) up[a] /= length || 1;
  return { up, agreement: length / Math.max(1, views.length) };
}

/**
 * The ground: among planes of the near-horizontal points below the lowest camera, the one with
 * the widest footprint that lies below every camera; null when there is none.
 */
function findGround(cloud: { positions: Float32Array; normals: Float32Array; count: number }, views: RegisteredView[], centres: Float64Array[], voxel: number, options: GroundCompletionOptions): Ground | null {
  const { up, agreement } = meanUp(views);
  if (agreement < options.minUpAgreement) return null;
  const heightOf = (x: ArrayLike<number>, o = 0) => up[0] * x[o] + up[1] * x[o + 1] + up[2] * x[o + 2];
  const lowest = Math.min(...centres.map((c) => heightOf(c)));
  const cosTilt = Math.cos((options.maxTiltDeg * Math.PI) / 180);
  const candidates: number[] = [];
  for (let i = 0; i < cloud.count; i++) {
    if (heightOf(cloud.positions, 3 * i) < lowest - options.minCameraHeightVoxels * voxel && Math.abs(heightOf(cloud.normals, 3 * i)) >= cosTilt) candidates.push(i);
  }
  if (candidates.length < options.minInliers) return null;
  const positions = new Float32Array(3 * candidates.length), normals = new Float32Array(3 * candidates.length);
  for (let k = 0; k < candidates.length; k++) {
    const from = 3 * candidates[k]!;
    for (let a = 0; a < 3; a++) {
      positions[3 * k + a] = cloud.positions[from + a]!;
      normals[3 * k + a] = cloud.normals[from + a]!;
    }
  }
  const planes = findPlanes(positions, normals, candidates.length, { maxPlanes: 4, minInlierShare: 0.05, minNormalCosine: cosTilt, inlierDistance: options.inlierVoxels * voxel, iterations: 400, sampleSize: 20_000 });
  let best: Ground | null = null;
  let bestFootprint = 0;
  for (const plane of planes) {
    if (plane.inliers.length < options.minInliers) continue;
    const sign = heightOf(plane.normal) >= 0 ? 1 : -1;
    if (sign * heightOf(plane.normal) < cosTilt) continue;
    const normal = plane.normal.map((x) => sign * x) as [number, number, number];
    const d = sign * plane.d;
    const cameraHeight = Math.min(...centres.map((c) => normal[0] * c[0] + normal[1] * c[1] + normal[2] * c[2] - d));
    if (cameraHeight < options.minCameraHeightVoxels * voxel) continue;
    if (!spansScene(positions, plane.inliers, cloud, centres, normal, d, options.minSpanShare)) continue;
    const area = footprintCells(positions, plane.inliers, normal, 4 * options.cellVoxels * voxel);
    if (area > bestFootprint) {
      bestFootprint = area;
      best = { normal, d, inliers: plane.inliers.length, inlierPositions: gather(positions, plane.inliers), lowestCameraHeight: cameraHeight };
    }
  }
  return best;
}

/** Whether the inliers' 5th–95th percentile span is at least `share` of the footprint's along both axes of the plane. */
function spansScene(positions: Float32Array, inliers: Uint32Array, cloud: { positions: Float32Array; count: number }, centres: Float64Array[], normal: [number, number, number], d: number, share: number): boolean {
  const { u, v } = planeAxes(normal);
  const origin = normal.map((x) => x * d);
  const whole = footprint(cloud.positions, cloud.count, centres, origin, u, v);
  const us = new Float64Array(inliers.length), vs = new Float64Array(inliers.length);
  for (let k = 0; k < inliers.length; k++) {
    const i = inliers[k];
    const x0 = positions[3 * i] - origin[0], x1 = positions[3 * i + 1] - origin[1], x2 = positions[3 * i + 2] - origin[2];
    us[k] = x0 * u[0] + x1 * u[1] + x2 * u[2];
    vs[k] = x0 * v[0] + x1 * v[1] + x2 * v[2];
  }
  const [u0, u1] = percentiles(us, 0.05), [v0, v1] = percentiles(vs, 0.05);
  return u1 - u0 >= share * (whole.maxU - whole.minU) && v1 - v0 >= share * (whole.maxV - whole.minV);
}

/** Distinct cells of side `cell` on the plane that the inliers fall in. */
function footprintCells(positions: Float32Array, inliers: Uint32Array, normal: number[], cell: number): number {
  const { u, v } = planeAxes(normal);
  const rows = new Float64Array(inliers.length), columns = new Float64Array(inliers.length);
  let minColumn = Infinity, maxColumn = -Infinity;
  for (let k = 0; k < inliers.length; k++) {
    const i = inliers[k];
    const x0 = positions[3 * i], x1 = positions[3 * i + 1], x2 = positions[3 * i + 2];
    rows[k] = Math.floor((x0 * u[0] + x1 * u[1] + x2 * u[2]) / cell);
    columns[k] = Math.floor((x0 * v[0] + x1 * v[1] + x2 * v[2]) / cell);
    minColumn = Math.min(minColumn, columns[k]);
    maxColumn = Math.max(maxColumn, columns[k]);
  }
  // A cell as one number, row-major over the columns' span (exact while rows × span < 2^53).
  const span = maxColumn - minColumn + 1;
  const cells = new Set<number>();
  for (let k = 0; k < inliers.length; k++) cells.add(rows[k] * span + (columns[k] - minColumn));
  return cells.size;
}

/** The ground's extent in plane coordinates: the cloud's 2nd to 98th percentiles (stray points left out) and every camera. */
function footprint(positions: Float32Array, count: number, centres: Float64Array[], origin: number[], u: number[], v: number[]): { minU: number; maxU: number; minV: number; maxV: number } {
  const step = Math.max(1, Math.floor(count / 50_000));
  const us: number[] = [], vs: number[] = [];
  const project = (x: ArrayLike<number>, o = 0) => {
    const d = [x[o] - origin[0], x[o + 1] - origin[1], x[o + 2] - origin[2]];
    us.push(d[0] * u[0] + d[1] * u[1] + d[2] * u[2]);
    vs.push(d[0] * v[0] + d[1] * v[1] + d[2] * v[2]);
  };
  for (let i = 0; i < count; i += step) project(positions, 3 * i);
  const cloudU = percentiles(us), cloudV = percentiles(vs);
  us.length = 0;
  vs.length = 0;
  for (const c of centres) project(c);
  return { minU: Math.min(cloudU[0], ...us), maxU: Math.max(cloudU[1], ...us), minV: Math.min(cloudV[0], ...vs), maxV: Math.max(cloudV[1], ...vs) };
}

/**
 * The `tail` and 1 − `tail` quantiles (the values a sort would put at those ranks); a Float64Array
 * is reordered in place (the callers' own scratch). Selected, not sorted: sorting a ground plane's
 * inliers twice took ~0.2 s of the ground's time on the rendered smoke set.
 */
function percentiles(values: number[] | Float64Array, tail = 0.02): [number, number] {
  const scratch = values instanceof Float64Array ? values : Float64Array.from(values);
  if (scratch.length === 0) return [NaN, NaN];
  const low = Math.floor(tail * (scratch.length - 1)), high = Math.ceil((1 - tail) * (scratch.length - 1));
  const lowValue = selectInPlace(scratch, low);
  // Everything from `low` on is ≥ lowValue, so the higher rank lies there.
  return [lowValue, selectInPlace(scratch, high, low)];
}

/** The ground's points' median colour for every added point (the texture stage paints the surface from the photos; this is the vertex colour where no photo does). */
function groundColours(cloud: { positions: Float32Array; colors: Uint8Array; count: number }, ground: Ground, voxel: number, count: number): Uint8Array {
  // Per channel, a histogram of the byte values: its median is the sorted values' middle one.
  const histograms = [new Uint32Array(256), new Uint32Array(256), new Uint32Array(256)];
  const [nx, ny, nz] = ground.normal;
  let near = 0;
  for (let i = 0; i < cloud.count; i++) {
    if (Math.abs(nx * cloud.positions[3 * i] + ny * cloud.positions[3 * i + 1] + nz * cloud.positions[3 * i + 2] - ground.d) > 2 * voxel) continue;
    for (let a = 0; a < 3; a++) histograms[a][cloud.colors[3 * i + a]]++;
    near++;
  }
  const median = histograms.map((histogram) => {
    if (near === 0) return 128;
    // The value at rank ⌊near / 2⌋ (0-based) of the sorted values.
    let below = 0;
    for (let value = 0; value < 256; value++) if ((below += histogram[value]) > near >> 1) return value;
    return 255;
  });
  const colors = new Uint8Array(3 * count);
  for (let i = 0; i < count; i++) colors.set(median, 3 * i);
  return colors;
}

/** The positions of `indices` (x, y, z each) gathered from `positions`. */
function gather(positions: Float32Array, indices: Uint32Array): Float32Array {
  const out = new Float32Array(3 * indices.length);
  for (let k = 0; k < indices.length; k++) for (let a = 0; a < 3; a++) out[3 * k + a] = positions[3 * indices[k]! + a]!;
  return out;
}

/** Each point's signed height above `plane`. */
function heightsAbove(plane: GroundPlane, points: Float32Array): Float64Array {
  const [nx, ny, nz] = plane.normal;
  const out = new Float64Array(points.length / 3);
  for (let k = 0; k < out.length; k++) out[k] = nx * points[3 * k]! + ny * points[3 * k + 1]! + nz * points[3 * k + 2]! - plane.d;
  return out;
}

/** The median of `values` (reordered in place; NaN when empty). */
function median(values: Float64Array): number {
  return values.length === 0 ? NaN : selectInPlace(values, Math.floor((values.length - 1) / 2));
}

/** The median absolute deviation of `values` from their median (reordered in place). */
function medianAbsoluteDeviation(values: Float64Array): number {
  const centre = median(values);
  for (let k = 0; k < values.length; k++) values[k] = Math.abs(values[k]! - centre);
  return median(values);
}
