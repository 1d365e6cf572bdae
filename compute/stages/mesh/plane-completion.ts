/**
 * @module Completing plain planar surfaces before meshing: the holes that dense stereo leaves in
 * walls, floors and ground become points on their plane where the photos show that plane and
 * nothing behind it.
 *
 * Photometric matching cannot decide depth on white plaster or an even floor, so the dense cloud
 * covers such a surface with scattered islands, and the mesh with them; a closed-loop hole fill
 * (close-holes.ts) cannot help, because the holes join one another and the border. ACMP (Xu &
 * Tao, AAAI 2020) answers this inside PatchMatch with planar priors from a triangulation of the
 * confident pixels; here the same prior acts on the fused cloud, where it is cheap: the dominant
 * planes are found (planes.ts), each plane's inliers are rasterised into an occupancy grid on the
 * plane, the grid is closed morphologically (dilate then erode by `closingCells`: gaps narrower
 * than twice that are bridged, the outline's convex parts are not grown), and each new cell is
 * kept only if the cameras agree:
 * - at least `minViews` registered views see the cell's centre from the plane's front side,
 *   unoccluded (their depth image of the cloud, see-through.ts, has nothing well in front of it);
 * - at most `maxSeeThrough` of them see points well behind it (an opening: doorway, window, the
 *   gap under a table; Jancosek & Pajdla's free-space evidence, CVPR 2011).
 * Kept cells get points on the plane at the cloud's spacing, with the plane's normal, and the
 * signed distance meshes them with the rest; texturing paints them from the photos.
 */
import type { RegisteredView } from "../../scene/index.js";
import { cameraCenter } from "../../scene/index.js";
import { GrowableFloat32, GrowableUint8 } from "../../util/growable.js";
import { planeAxes } from "./plane-fill.js";
import { PointGrid } from "./point-grid.js";
import { findPlanes, type Plane, type PlaneFitOptions } from "./planes.js";
import { firstVariation, rayCosine, type GreyPhoto } from "./photo-texture.js";
import { markBackdrop } from "./backdrop.js";
import { cloudDepthImages, depthPixelOf, type CloudDepthImages, type DepthImage } from "./see-through.js";

export interface PlaneCompletionOptions {
  planes: Omit<PlaneFitOptions, "inlierDistance">;
  /**
   * Plain planes beyond those: up to `maxPlanes` more, down to `minInlierShare` of the cloud,
   * completed only when plain and not a layer of a larger plane (plainPlanes()). A white wall seen
   * at an angle gets few dense points, fewer than the `planes` share of a cloud that a textured
   * part of the scene fills: rendered/courtyard's left wall had 8,739 of 553,103 (1.6 %), and
   * was left with holes over a third of it.
   */
  plainPlanes: { maxPlanes: number; minInlierShare: number; maxLumaVariation: number };
  /** Inlier distance, in voxels. */
  inlierVoxels: number;
  /** Occupancy cell on the plane, in voxels. */
  cellVoxels: number;
  /** Closing radius, in cells. */
  closingCells: number;
  minViews: number;
  maxSeeThrough: number;
  /** Cells per side of a plane's grid, at most (the cell grows to stay within it). */
  maxGridSide: number;
  /**
   * A plane is completed only when its inliers cover at least this many voxels squared
   * (as a square's side): a flattish cap of a curved surface also fits a plane within a voxel,
   * but only over a small area (radius √(2·r·voxel) on a sphere of radius r).
   */
  minSideVoxels: number;
  /**
   * No point is added within this many voxels of a dense point of the plane itself: the signed
   * distance averages every point within its support, and points on the fitted plane right beside
   * real ones would flatten the wall's own relief of stones.
   */
  clearanceVoxels: number;
  /**
   * The same on a plain plane (its points' luma varies by less than `plainPlanes.maxLumaVariation`):
   * a plain wall has no relief of stones to keep, and its few dense points are matching noise a
   * voxel or two off it. Two voxels of clearance around each left the surface there to those
   * points alone, and it tore into specks around them (rendered/street's left front).
   */
  plainClearanceVoxels: number;
  /**
   * Nor within this many voxels of relief: at least `minReliefPoints` dense points that belong to
   * no plane and lie more than twice the inlier distance off this one (a sculpture in front of a
   * wall, an object on a floor). At less than two support radii the two surfaces' signed
   * distances mix and the relief is dragged toward the plane (fountain-P11's sculpture came out
   * doubled, PSNR −1 dB, with 2 voxels). A few stray points are noise, not relief (the plain
   * room's wall lost nearly all its completion when one point sufficed), and another plane's
   * points meet this one at a corner, which they may.
   */
  offPlaneClearanceVoxels: number;
  minReliefPoints: number;
  /**
   * With the photos: a cell is filled only where the photo that sees it most squarely shows it
   * plain (photo-texture.ts: grey levels of side × side samples, `stepVoxels` apart, vary by less
   * than `maxVariation` of their mean), as the standing walls' cells are. A hole the photos show
   * textured is not a plain surface that stereo could not decide (it would have matched that
   * texture): it is a depth edge, a recess or a surface elsewhere, and the plane's fill there lies
   * off the true surface (on the synthetic facade 97 % of the filled cells' mesh was beyond 0.5 %
   * of the radius from it). Up to `maxPhotos` photos are read at `imageSize`; a cell none of them
   * sees, or that even the squarest sees at a cosine below `minCosine`, is judged by the points
   * alone; one whose patch no photo shows whole is left open (as a wall's is). null: the points alone.
   */
  texture: { maxVariation: number; side: number; stepVoxels: number; minCosine: number; imageSize: number; maxPhotos: number } | null;
}

/** The photo texture test's settings when it is turned on (`texture`; off by default, mesh/index.ts). */
export const PLANE_TEXTURE_TEST: NonNullable<PlaneCompletionOptions["texture"]> = { maxVariation: 0.03, side: 5, stepVoxels: 2, minCosine: 0.5, imageSize: 1024, maxPhotos: 48 };

export interface CompletionPoints {
  count: number;
  positions: Float32Array;
  normals: Float32Array;
  colors: Uint8Array;
}

export interface PlaneCompletionReport {
  planes: number;
  /** Of them, plain planes below the `planes` share (plainPlanes()). */
  plainPlanes: number;
  /** Smaller planes found but not completed: not plain, or a layer of a larger plane. */
  planesNotPlain: number;
  planeLayers: number;
  /** Planes through relief replaced by the plain surface found behind them (throughReliefBefore). */
  planesThroughRelief: number;
  planesTooSmall: number;
  cellsTried: number;
  cellsAdded: number;
  cellsSeenThrough: number;
  /** Depthless depth-image pixels read as infinitely far: a studio's backdrop (backdrop.ts) or a clear sky (sky.ts). */
  backdropPixels: number;
  cellsUnseen: number;
  /** Cells left empty because relief or an object stands within offPlaneClearanceVoxels of them. */
  cellsNearRelief: number;
  /** Cells left empty because the photo that sees them best shows texture there. */
  cellsTextured: number;
  pointsAdded: number;
}

interface Grid {
  u: number[];
  v: number[];
  origin: number[];
  minU: number;
  minV: number;
  cell: number;
  cols: number;
  rows: number;
  occupied: Uint8Array;
}

/** Fewer dense points than this are not searched for planes. */
export const PLANE_COMPLETION_MIN_POINTS = 100;

/** The added points, and the planes found with each point's plane (-1: none) over the cloud followed by the added points. */
export interface PlaneCompletion {
  points: CompletionPoints;
  report: PlaneCompletionReport;
  planes: Plane[];
  planeOf: Int16Array;
  /** The input cloud's depth images, when planes needed them (the ground step grows them). */
  depthImages: CloudDepthImages | null;
}

/**
 * Points that fill the plain planes' holes (none when no plane qualifies). `depthImagesAhead`:
 * the cloud's depth images, made on another thread while the planes are sought (null, or a
 * promise of null: made here).
 */
export async function completePlanes(
  cloud: { positions: Float32Array; normals: Float32Array; colors: Uint8Array; count: number },
  views: RegisteredView[],
  voxel: number,
  spacing: number,
  options: PlaneCompletionOptions,
  grey: Array<GreyPhoto | null> | null = null,
  backdrop: Array<Uint8Array | null> | null = null,
  depthImagesAhead: Promise<DepthImage[] | null> | null = null,
): Promise<PlaneCompletion> {
  const report: PlaneCompletionReport = { planes: 0, plainPlanes: 0, planesNotPlain: 0, planeLayers: 0, planesThroughRelief: 0, planesTooSmall: 0, cellsTried: 0, cellsAdded: 0, cellsSeenThrough: 0, backdropPixels: 0, cellsUnseen: 0, cellsNearRelief: 0, cellsTextured: 0, pointsAdded: 0 };
  const empty = { count: 0, positions: new Float32Array(0), normals: new Float32Array(0), colors: new Uint8Array(0) };
  if (views.length < options.minViews || cloud.count < PLANE_COMPLETION_MIN_POINTS) return { points: empty, report, planes: [], planeOf: new Int16Array(cloud.count).fill(-1), depthImages: null };
  const coversEnough = (plane: Plane) => coveredArea(occupancyGrid(cloud.positions, plane, facingSide(plane, cloud.normals), voxel * options.cellVoxels, options.maxGridSide)) >= (options.minSideVoxels * voxel) ** 2;
  const planes = plainPlanes(cloud, { ...options.planes, inlierDistance: options.inlierVoxels * voxel }, options.plainPlanes, options.offPlaneClearanceVoxels * voxel, coversEnough, report);
  report.planes = planes.length;
  if (planes.length === 0) return { points: empty, report, planes, planeOf: new Int16Array(cloud.count).fill(-1), depthImages: null };
  const images = (await depthImagesAhead) ?? cloudDepthImages(cloud.positions, cloud.count, views);
  if (backdrop) report.backdropPixels = markBackdrop(images, backdrop);
  const clearance = options.clearanceVoxels * voxel;
  const offPlaneClearance = options.offPlaneClearanceVoxels * voxel;
  const dense = new PointGrid(cloud.positions, cloud.count, Math.max(clearance, 2 * voxel));
  const planeOf = new Int16Array(cloud.count).fill(-1);
  planes.forEach((plane, k) => { for (const i of plane.inliers) planeOf[i] = k; });
  const centres = views.map((view) => cameraCenter(view.camFromWorld));
  const out = { positions: new GrowableFloat32(), normals: new GrowableFloat32(), colors: new GrowableUint8() };
  const addedPlane: number[] = [];
  for (const [planeIndex, plane] of planes.entries()) {
    const planeClearance = lumaVariation(cloud.colors, plane.inliers) < options.plainPlanes.maxLumaVariation ? Math.min(clearance, options.plainClearanceVoxels * voxel) : clearance;
    const normal = facingSide(plane, cloud.normals);
    const grid = occupancyGrid(cloud.positions, plane, normal, voxel * options.cellVoxels, options.maxGridSide);
    if (coveredArea(grid) < (options.minSideVoxels * voxel) ** 2) {
      report.planesTooSmall++;
      continue;
    }
    const closed = close(grid.occupied, grid.cols, grid.rows, options.closingCells);
    const colour = meanColour(cloud.colors, plane.inliers);
    for (let cellIndex = 0; cellIndex < closed.length; cellIndex++) {
      if (!closed[cellIndex] || grid.occupied[cellIndex]) continue;
      report.cellsTried++;
      const col = cellIndex % grid.cols, row = Math.floor(cellIndex / grid.cols);
      const centre = onPlane(grid, grid.minU + (col + 0.5) * grid.cell, grid.minV + (row + 0.5) * grid.cell);
      const { verdict, seenBy } = cameraVerdict(centre, normal, images, centres, 3 * voxel, options);
      if (verdict !== "keep") {
        if (verdict === "seen-through") report.cellsSeenThrough++;
        else report.cellsUnseen++;
        continue;
      }
      // Checked for the whole cell: its points are within half its diagonal of the centre.
      if (reliefNear(dense, cloud.positions, planeOf, planes, centre, plane, 2 * options.inlierVoxels * voxel, offPlaneClearance + grid.cell * Math.SQRT1_2, options.minReliefPoints)) {
        report.cellsNearRelief++;
        continue;
      }
      if (grey && options.texture && texturedInPhotos(grey, seenBy, centres, centre, normal, grid, voxel, options.texture)) {
        report.cellsTextured++;
        continue;
      }
      report.cellsAdded++;
      // onPlane's arithmetic written out: a cell's points were most of the stage's plane
      // completion (634k candidates on smoke), and each call made two arrays and a closure.
      const per = Math.max(1, Math.round(grid.cell / spacing));
      const { origin, u, v } = grid;
      for (let a = 0; a < per; a++) for (let b = 0; b < per; b++) {
        const pu = grid.minU + (col + (a + 0.5) / per) * grid.cell, pv = grid.minV + (row + (b + 0.5) / per) * grid.cell;
        const x = origin[0] + pu * u[0] + pv * v[0], y = origin[1] + pu * u[1] + pv * v[1], z = origin[2] + pu * u[2] + pv * v[2];
        if (dense.hasPointNearer(x, y, z, planeClearance)) continue;
        out.positions.push3(x, y, z);
        out.normals.push3(normal[0], normal[1], normal[2]);
        out.colors.push3(colour[0], colour[1], colour[2]);
        addedPlane.push(planeIndex);
      }
    }
  }
  report.pointsAdded = out.positions.length / 3;
  const allPlaneOf = new Int16Array(cloud.count + addedPlane.length);
  allPlaneOf.set(planeOf);
  allPlaneOf.set(addedPlane, cloud.count);
  return {
    points: { count: report.pointsAdded, positions: out.positions.toArray(), normals: out.normals.toArray(), colors: out.colors.toArray() },
    report,
    planes,
    planeOf: allPlaneOf,
    depthImages: { images, count: cloud.count },
  };
}

/**
 * Whether at least `minPoints` relief points lie within `radius` of `p`: dense points farther
 * than `offPlane` from this plane that belong to no plane, or to one nearly parallel to it (a
 * panel in front of a wall mixes with it; a perpendicular wall meets it at a corner).
 */
export function reliefNear(dense: PointGrid, positions: Float32Array, planeOf: Int16Array, planes: Plane[], p: number[], plane: Plane, offPlane: number, radius: number, minPoints: number): boolean {
  const n = plane.normal;
  let relief = 0;
  dense.forEachWithin(p[0], p[1], p[2], radius, (i) => {
    if (Math.abs(n[0] * positions[3 * i] + n[1] * positions[3 * i + 1] + n[2] * positions[3 * i + 2] - plane.d) <= offPlane) return true;
    const other = planeOf[i]! >= 0 ? planes[planeOf[i]!]!.normal : null;
    if (other && Math.abs(other[0] * n[0] + other[1] * n[1] + other[2] * n[2]) < PARALLEL_COSINE) return true;
    return ++relief < minPoints;
  });
  return relief >= minPoints;
}

/**
 * The points that reliefNear() counts for one plane, in a grid of their own: the same answer to
 * "at least `minPoints` within `radius`?" for any centre (the points within a radius do not
 * depend on the buckets, and the count only on which points qualify, not on their order), without
 * walking past the plane's own points, and in buckets as large as the queries' radius. Around the
 * ground those points are nearly all a cell sees, and its radius spans hundreds of the dense
 * grid's buckets: SceauxCastle's ground cells spent 1.45 s in reliefNear.
 */
export class ReliefPoints {
  private readonly grid: PointGrid;

  constructor(positions: Float32Array, count: number, planeOf: Int16Array, planes: Plane[], plane: Plane, offPlane: number, cellSize: number) {
    const n = plane.normal;
    const own = new Float32Array(3 * count);
    let kept = 0;
    for (let i = 0; i < count; i++) {
      // The tests of reliefNear, written the same way.
      if (Math.abs(n[0] * positions[3 * i] + n[1] * positions[3 * i + 1] + n[2] * positions[3 * i + 2] - plane.d) <= offPlane) continue;
      const other = planeOf[i]! >= 0 ? planes[planeOf[i]!]!.normal : null;
      if (other && Math.abs(other[0] * n[0] + other[1] * n[1] + other[2] * n[2]) < PARALLEL_COSINE) continue;
      own[3 * kept] = positions[3 * i]; own[3 * kept + 1] = positions[3 * i + 1]; own[3 * kept + 2] = positions[3 * i + 2];
      kept++;
    }
    this.grid = new PointGrid(own.slice(0, 3 * kept), kept, cellSize);
  }

  /** reliefNear(…, p, plane, offPlane, radius, minPoints) for this one's plane and offPlane. */
  near(p: number[], radius: number, minPoints: number): boolean {
    let relief = 0;
    this.grid.forEachWithin(p[0], p[1], p[2], radius, () => ++relief < minPoints);
    return relief >= minPoints;
  }
}

/**
 * The planes to complete: those of `fit` (the largest, each at least its share of the cloud), then
 * smaller ones found after them that are plain and not a layer of a plane kept before:
 * - plain: their points' luma varies by less than `maxLumaVariation` of its mean (standard
 *   deviation over mean). Their holes are then where stereo found nothing to match; in a
 *   textured plane they are the scene's own (a recess, a window, a surface that is not the
 *   plane), which completing would cover. rendered/courtyard's left wall: 0.13; the smaller
 *   planes of Herz-Jesus-P8, fountain-P11 and SceauxCastle: 0.23–0.53 (stone, windows,
 *   roofs), whose completion had cost 0.1–0.2 dB on their held-back photos.
 * - as large on the plane as the planes completed must be (`minSideVoxels`): else their points
 *   stay relief, as a cap of a plain ball that fits a plane within a voxel must for the floor
 *   under the ball;
 * - not a layer: nearly parallel to a kept plane with its points within `clearance` of it on
 *   average. A wall's points spread over a few voxels of depth, and once its plane has taken
 *   those within the inlier distance the rest fit planes of their own just in front of it and
 *   just behind (rendered/courtyard's far wall gave two, 3 cm before and behind); completing
 *   those would build the wall again beside itself.
 * The first planes are found as before, by the same greedy search (findPlanes), so a scene
 * with no plain small plane is completed exactly as without them. A plane found after a kept one
 * (of either kind) that shows the kept one to stand through relief before it takes its place
 * (throughReliefBefore).
 */
export function plainPlanes(
  cloud: { positions: Float32Array; normals: Float32Array; colors: Uint8Array; count: number },
  fit: PlaneFitOptions,
  plain: PlaneCompletionOptions["plainPlanes"],
  clearance: number,
  coversEnough: (plane: Plane) => boolean,
  report: Pick<PlaneCompletionReport, "plainPlanes" | "planesNotPlain" | "planeLayers" | "planesThroughRelief" | "planesTooSmall">,
): Plane[] {
  const found = findPlanes(cloud.positions, cloud.normals, cloud.count, { ...fit, maxPlanes: fit.maxPlanes + plain.maxPlanes, minInlierShare: Math.min(fit.minInlierShare, plain.minInlierShare) });
  // findPlanes' own rule for the fewest inliers of a plane of `fit`.
  const largeInliers = Math.max(16, Math.ceil(fit.minInlierShare * cloud.count));
  let large = 0;
  while (large < found.length && large < fit.maxPlanes && found[large].inliers.length >= largeInliers) large++;
  const kept: Plane[] = [];
  found.forEach((plane, k) => {
    const isLarge = k < large;
    if (!isLarge && lumaVariation(cloud.colors, plane.inliers) >= plain.maxLumaVariation) {
      report.planesNotPlain++;
      return;
    }
    const layerOf = kept.findIndex((larger) => isLayerOf(plane, larger, cloud.positions, clearance));
    if (layerOf >= 0 && throughReliefBefore(kept[layerOf]!, plane, cloud, fit)) {
      // The plane behind is the surface: it takes back its points from the one through the relief.
      kept[layerOf] = withPointsOf(plane, kept[layerOf]!, cloud, fit);
      report.planesThroughRelief++;
    } else if (isLarge) kept.push(plane);
    else if (layerOf >= 0) report.planeLayers++;
    else if (!coversEnough(plane)) report.planesTooSmall++;
    else {
      kept.push(plane);
      report.plainPlanes++;
    }
  });
  return kept;
}

/** Parallel points at 3–10 inlier distances behind a plane, as its cameras see it, are what stands behind it. */
const BEHIND_FROM = 3;
const BEHIND_TO = 10;

/**
 * Whether `larger` is a plane through relief standing before the plain surface `layer` (a layer
 * of it, isLayerOf). Dense stereo's points follow texture: on a plain house front with a shop
 * window and a door 0.2–0.3 m proud of it, a plane tilted 0.8° off the front collects the
 * textured fronts' points at one end and the front's at the other (an inlier distance of one
 * voxel spans 9 m along it at that angle: rendered/street, 51,492 points against the front's own
 * 10,685), and outranks the front. Completed, it stands up to 0.3 m before the front and its
 * cells are seen through. The front is found after it, as a layer behind it, and tells them
 * apart: `larger` meets it where the relief ends (SHARED_SHARE of its points lie on it too), it lies
 * behind `larger` (median 2 inlier distances or more), `larger` has a tenth of its
 * points' number parallel and just behind it (BEHIND_FROM–BEHIND_TO), and `layer` has a quarter of
 * that behind itself at most: a surface seen by the cameras hides what is just behind it. A wall's
 * own spread of points (its layers a few centimetres before and behind: rendered/courtyard) lies
 * within BEHIND_FROM (docs/decisions.md, "A plane through relief gives way to the wall behind it").
 */
function throughReliefBefore(larger: Plane, layer: Plane, cloud: { positions: Float32Array; normals: Float32Array; count: number }, fit: PlaneFitOptions): boolean {
  if (sharedPoints(larger, layer, cloud, fit) < SHARED_SHARE * larger.inliers.length) return false;
  const front = facingSide(larger, cloud.normals);
  const sign = Math.sign(front[0] * larger.normal[0] + front[1] * larger.normal[1] + front[2] * larger.normal[2]);
  const offsets = Float64Array.from(layer.inliers, (i) => signedOffset(cloud.positions, i, front, sign * larger.d));
  offsets.sort();
  if (!(offsets[offsets.length >> 1]! <= -2 * fit.inlierDistance)) return false;
  const behindLarger = parallelBehind(larger, front, cloud, fit);
  if (behindLarger < 0.1 * larger.inliers.length) return false;
  return parallelBehind(layer, facingSide(layer, cloud.normals), cloud, fit) <= 0.25 * behindLarger;
}

/**
 * A plane through relief meets the surface behind it where the relief ends: this share of its
 * points at least lie on that surface too (rendered/street: 4,369 of 51,492, 8.5 %). A wall's
 * recessed windows or doors lie parallel behind it and share none of its points.
 */
const SHARED_SHARE = 0.05;

/** The points of `larger` within the fit's inlier distance (and normal cosine) of `layer`. */
function sharedPoints(larger: Plane, layer: Plane, cloud: { positions: Float32Array; normals: Float32Array }, fit: PlaneFitOptions): number {
  let shared = 0;
  for (const i of larger.inliers) {
    if (Math.abs(signedOffset(cloud.positions, i, layer.normal, layer.d)) > fit.inlierDistance) continue;
    if (Math.abs(signedOffset(cloud.normals, i, layer.normal, 0)) >= fit.minNormalCosine) shared++;
  }
  return shared;
}

/** n·p − d for point i. */
function signedOffset(positions: Float32Array, i: number, n: readonly number[], d: number): number {
  return n[0]! * positions[3 * i]! + n[1]! * positions[3 * i + 1]! + n[2]! * positions[3 * i + 2]! - d;
}

/** The cloud's points whose normals are within the fit's cosine of the plane and that lie BEHIND_FROM–BEHIND_TO inlier distances behind it. */
function parallelBehind(plane: Plane, front: readonly number[], cloud: { positions: Float32Array; normals: Float32Array; count: number }, fit: PlaneFitOptions): number {
  const sign = Math.sign(front[0]! * plane.normal[0] + front[1]! * plane.normal[1] + front[2]! * plane.normal[2]);
  const d = sign * plane.d;
  let behind = 0;
  for (let i = 0; i < cloud.count; i++) {
    const offset = signedOffset(cloud.positions, i, front, d);
    if (offset > -BEHIND_FROM * fit.inlierDistance || offset < -BEHIND_TO * fit.inlierDistance) continue;
    if (Math.abs(signedOffset(cloud.normals, i, front, 0)) >= fit.minNormalCosine) behind++;
  }
  return behind;
}

/** `plane` with its inliers among its own points and `other`'s (both the search's: no point of another plane). */
function withPointsOf(plane: Plane, other: Plane, cloud: { positions: Float32Array; normals: Float32Array }, fit: PlaneFitOptions): Plane {
  const inliers: number[] = [...plane.inliers];
  for (const i of other.inliers) {
    if (Math.abs(signedOffset(cloud.positions, i, plane.normal, plane.d)) > fit.inlierDistance) continue;
    if (Math.abs(signedOffset(cloud.normals, i, plane.normal, 0)) >= fit.minNormalCosine) inliers.push(i);
  }
  return { normal: plane.normal, d: plane.d, inliers: Uint32Array.from(inliers).sort() };
}

/** Standard deviation over mean of the luma (Rec. 601) of the points' colours. */
function lumaVariation(colors: Uint8Array, indices: Uint32Array): number {
  let sum = 0, sumSquares = 0;
  for (const i of indices) {
    const luma = 0.299 * colors[3 * i] + 0.587 * colors[3 * i + 1] + 0.114 * colors[3 * i + 2];
    sum += luma;
    sumSquares += luma * luma;
  }
  const mean = sum / Math.max(1, indices.length);
  return Math.sqrt(Math.max(0, sumSquares / Math.max(1, indices.length) - mean * mean)) / Math.max(1, mean);
}

/** Whether `plane` is nearly parallel to `larger` with its points within `clearance` of it on average. */
function isLayerOf(plane: Plane, larger: Plane, positions: Float32Array, clearance: number): boolean {
  const n = larger.normal;
  if (Math.abs(n[0] * plane.normal[0] + n[1] * plane.normal[1] + n[2] * plane.normal[2]) < PARALLEL_COSINE) return false;
  let offset = 0;
  for (const i of plane.inliers) offset += Math.abs(n[0] * positions[3 * i] + n[1] * positions[3 * i + 1] + n[2] * positions[3 * i + 2] - larger.d);
  return offset < clearance * plane.inliers.length;
}

/** Planes closer than ~25° to parallel count as each other's relief (and as layers of each other). */
export const PARALLEL_COSINE = 0.9;

/** The plane's normal turned to the side its inliers' normals face (the cameras' side). */
function facingSide(plane: Plane, normals: Float32Array): number[] {
  const n = plane.normal;
  let agreement = 0;
  for (const i of plane.inliers) agreement += n[0] * normals[3 * i] + n[1] * normals[3 * i + 1] + n[2] * normals[3 * i + 2];
  return agreement >= 0 ? [...n] : n.map((x) => -x);
}

function occupancyGrid(positions: Float32Array, plane: Plane, normal: number[], cellSize: number, maxSide: number): Grid {
  const { u, v } = planeAxes(normal);
  const origin = normal.map((x) => x * plane.d * Math.sign(normal[0] * plane.normal[0] + normal[1] * plane.normal[1] + normal[2] * plane.normal[2]));
  const us = new Float64Array(plane.inliers.length), vs = new Float64Array(plane.inliers.length);
  let minU = Infinity, minV = Infinity, maxU = -Infinity, maxV = -Infinity;
  plane.inliers.forEach((i, k) => {
    const d = [0, 1, 2].map((a) => positions[3 * i + a] - origin[a]);
    us[k] = d[0] * u[0] + d[1] * u[1] + d[2] * u[2];
    vs[k] = d[0] * v[0] + d[1] * v[1] + d[2] * v[2];
    minU = Math.min(minU, us[k]); maxU = Math.max(maxU, us[k]);
    minV = Math.min(minV, vs[k]); maxV = Math.max(maxV, vs[k]);
  });
  const cell = Math.max(cellSize, (maxU - minU) / maxSide, (maxV - minV) / maxSide);
  const cols = Math.max(1, Math.ceil((maxU - minU) / cell)), rows = Math.max(1, Math.ceil((maxV - minV) / cell));
  const occupied = new Uint8Array(cols * rows);
  for (let k = 0; k < us.length; k++) {
    const col = Math.min(cols - 1, Math.floor((us[k] - minU) / cell)), row = Math.min(rows - 1, Math.floor((vs[k] - minV) / cell));
    occupied[row * cols + col] = 1;
  }
  return { u, v, origin, minU, minV, cell, cols, rows, occupied };
}

/** The area of the grid's occupied cells. */
function coveredArea(grid: Grid): number {
  let occupiedCells = 0;
  for (const cell of grid.occupied) occupiedCells += cell;
  return occupiedCells * grid.cell * grid.cell;
}

function onPlane(grid: Grid, pu: number, pv: number): number[] {
  return [0, 1, 2].map((a) => grid.origin[a] + pu * grid.u[a] + pv * grid.v[a]);
}

/**
 * Morphological closing with a (2r+1)² square: a max filter then a min filter, each separable.
 * The grid spans the inliers' extent, and outside it counts as empty to the max filter and as
 * full to the min filter, so gaps that reach the extent's edge close too, and nothing grows past it.
 */
function close(mask: Uint8Array, cols: number, rows: number, r: number): Uint8Array {
  return filter(filter(mask, cols, rows, r, 1), cols, rows, r, 0);
}

/** Separable max (`keep` 1) or min (`keep` 0) filter of radius r; outside the grid counts as the other value (never wins). */
function filter(mask: Uint8Array, cols: number, rows: number, r: number, keep: 0 | 1): Uint8Array {
  const pass = (src: Uint8Array, horizontal: boolean): Uint8Array => {
    const dst = new Uint8Array(src.length);
    for (let row = 0; row < rows; row++) for (let col = 0; col < cols; col++) {
      let value = keep === 1 ? 0 : 1;
      for (let k = -r; k <= r && value !== keep; k++) {
        const c = horizontal ? col + k : col, w = horizontal ? row : row + k;
        const inside = c >= 0 && w >= 0 && c < cols && w < rows;
        if (!inside) continue;
        const sample = src[w * cols + c];
        if (sample === keep) value = keep;
      }
      dst[row * cols + col] = value;
    }
    return dst;
  };
  return pass(pass(mask, true), false);
}

/**
 * Whether the photo that sees `centre` most squarely (of `seenBy`, those read) shows texture on
 * the plane around it, or shows no whole patch. False when no read photo sees it, or when even
 * the squarest sees it at a grazing angle (cosine below `minCosine`): stereo fails on textured
 * ground seen that way too, so its texture does not say the hole is not the plane's.
 */
function texturedInPhotos(grey: Array<GreyPhoto | null>, seenBy: number[], centres: Float64Array[], centre: number[], normal: number[], grid: Grid, voxel: number, texture: NonNullable<PlaneCompletionOptions["texture"]>): boolean {
  const facing = (view: number) => rayCosine(centre, normal, centres[view]!);
  const read = seenBy.filter((view) => grey[view]).sort((a, b) => facing(b) - facing(a));
  if (read.length === 0 || facing(read[0]!) < texture.minCosine) return false;
  const variation = firstVariation(grey, read, centre, grid.u, grid.v, Math.max(grid.cell, texture.stepVoxels * voxel), texture.side);
  return Number.isNaN(variation) || variation >= texture.maxVariation;
}

/** The cameras' verdict on a point of a plane, and the views (indices into the depth images) that see it unoccluded from the front. */
export interface CameraVerdict {
  verdict: "keep" | "seen-through" | "unseen";
  seenBy: number[];
}

/**
 * Whether the cameras agree that the plane shows at `x`: seen from its front by enough views,
 * unoccluded, and not seen through. With `grazingHeight` (the ground, ground-completion.ts), a
 * point behind counts as seen through only beyond what grazing rays make of the depth image:
 * a pixel of it spans a long stretch of a plane seen at elevation e (a pixel of 1/256 of the
 * photo covers 0.4 units of SceauxCastle's courtyard at the facade's foot, 3.4 units away and
 * 0.11 below the camera), so the wall beyond falls in the same pixel, and the plane's own points,
 * `grazingHeight` below it, lie grazingHeight / sin e behind along the ray. Two pixels' span and
 * that height, over sin e, are added to the margin. With `standingRaise`, a view also does not see
 * `x` when something stands between it and the point that far above x (standingOccluded). With
 * `seeThroughMeasured`, a view sees through `x` only where a measured point (DepthImage.measured)
 * lies beyond it too, while every point occludes: SceauxCastle's facade was filled down to 10
 * voxels below its gravel (no point of the gravel stopped it), the ground cells that three photos
 * look across toward the facade's foot were "seen through" to that fill, and the model's ground,
 * seen from 100_7100, had a band of holes (docs/decisions.md, "Only measured points see through
 * the ground").
 */
export function cameraVerdict(x: number[], normal: number[], images: DepthImage[], centres: Float64Array[], tolerance: number, options: Pick<PlaneCompletionOptions, "minViews" | "maxSeeThrough">, grazingHeight?: number, standingRaise?: number, seeThroughMeasured = false): CameraVerdict {
  const seenBy: number[] = [];
  let through = 0;
  images.forEach((image, index) => {
    const c = centres[index]!;
    const toCamera = [c[0] - x[0], c[1] - x[1], c[2] - x[2]];
    const along = toCamera[0] * normal[0] + toCamera[1] * normal[1] + toCamera[2] * normal[2];
    if (along <= 0) return;
    const pixel = depthPixelOf(image, x[0], x[1], x[2]);
    if (!pixel) return;
    const zc = pixel.depth;
    const depth = image.depth[pixel.index];
    const margin = Math.max(tolerance, 0.05 * zc);
    const sinElevation = along / Math.hypot(toCamera[0], toCamera[1], toCamera[2]);
    // Occluded when the depth image holds a point in front by more than two of its pixels'
    // footprints on the plane (a footprint over sin e along the ray), or by more than 5 % of the
    // depth, the whole rule before: 5 % alone let a cornice 0.34 units before a facade 20 away
    // leave the wall behind it "seen", and the closing filled a band there (docs/decisions.md, "A
    // cell behind relief is occluded"); over sin e, because at grazing angles the plane's own
    // points share the cell's pixel.
    const occlusionMargin = Math.max(tolerance, Math.min(margin, (2 * zc * image.scale) / (image.view.intrinsics.focal * sinElevation)));
    if (depth !== 0 && depth < zc - occlusionMargin) return; // occluded
    if (standingRaise !== undefined && standingOccluded(image, x, normal, zc, standingRaise, tolerance)) return;
    seenBy.push(index);
    let beyond = 0;
    if (grazingHeight !== undefined) {
      beyond = (2 * zc * (image.scale / image.view.intrinsics.focal) + grazingHeight) / sinElevation;
    }
    // A plane's cell is seen through when the depth image holds a point behind it by more than the
    // occlusion's margin: a wall 0.16 units behind a pilaster's plane, 8 units away, was within 5 %
    // of the depth, and the pilasters' fill covered the wall in front of it (docs/decisions.md, "A
    // plane's cell is seen through beyond the occlusion's margin"). The ground keeps 5 % (its
    // grazing rays meet its own spread points behind the cell).
    const throughMargin = grazingHeight === undefined ? occlusionMargin : margin;
    const farthest = zc + throughMargin + beyond;
    // The nearest point beyond, and (with seeThroughMeasured) a measured one beyond as well: where
    // only completions' points lie behind, nothing was seen through.
    if (depth > farthest && (!seeThroughMeasured || !image.measured || image.measured[pixel.index]! > farthest)) through++;
  });
  if (through > options.maxSeeThrough * seenBy.length) return { verdict: "seen-through", seenBy };
  return { verdict: seenBy.length >= options.minViews ? "keep" : "unseen", seenBy };
}

/**
 * Whether something standing on the plane hides `x` from the image's camera: the point raised off
 * the plane, by `raise` plus 1.5 of the depth image's pixel footprints there, is occluded. At a
 * grazing elevation a depth pixel at x also holds the plane's own points up to its footprint / sin e
 * in front, so a wall's foot in front of x cannot be told from the ground there by depth alone; the
 * raised point's pixel holds no ground in front of it (the ray to it meets the plane behind it), so
 * any depth well in front of it is a surface standing between. The synthetic facade's ground was
 * carried 0.1–0.5 units behind the facade's front, inside the building, where every ray passed
 * the wall's foot within 5 % of the depth.
 */
function standingOccluded(image: DepthImage, x: number[], normal: number[], zc: number, raise: number, tolerance: number): boolean {
  const footprint = (zc * image.scale) / image.view.intrinsics.focal;
  // The pixel's lowest rays pass about one footprint below the ray to the raised point: lifted by
  // that and the plane's own spread (`raise`), every ray of its pixel meets the plane behind it.
  const lift = raise + 1.5 * footprint;
  const pixel = depthPixelOf(image, x[0] + lift * normal[0], x[1] + lift * normal[1], x[2] + lift * normal[2]);
  if (!pixel) return false;
  const depth = image.depth[pixel.index];
  return depth !== 0 && depth < pixel.depth - Math.max(tolerance, 2 * footprint);
}

/** The mean colour of the points at `indices` (the vertex colour where no photo paints a completion). */
export function meanColour(colors: Uint8Array, indices: Uint32Array): number[] {
  const sum = [0, 0, 0];
  for (const i of indices) for (let a = 0; a < 3; a++) sum[a] += colors[3 * i + a];
  return sum.map((s) => Math.round(s / Math.max(1, indices.length)));
}
