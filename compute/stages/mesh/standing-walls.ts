/**
 * @module Completing walls that stand on the ground and that stereo saw only at their edges.
 *
 * A plain wall in shade gives dense stereo nothing to match but its outline: its top edge
 * against the sky, perhaps a corner. Too few points, and not spread over the wall, for any plane
 * search (plane-completion.ts); rendered/courtyard's shaded wall had about 600 points, all in a
 * band along its top, and came back as a hole over a third of the photos that face it. Its
 * outline still says where it stands: walls are upright on the ground, so its points project
 * onto the ground along the line of its foot (wall-lines.ts), and the wall is the upright plane
 * through that line, from the ground up to the points above it.
 *
 * Each cell of that plane, column by column along the run of points and up to the height the
 * column's points reach (interpolated across gaps in the run), is filled where the cameras agree
 * as for any plane (plane-completion.ts, `cameraVerdict`): enough views see it from the front,
 * unoccluded, and few of them see points behind it (Jancosek & Pajdla's free-space evidence, CVPR
 * 2011). The rail of a fence, the edge of a table or the lintel of an open door is a line of
 * points above the ground too, but the cameras see the ground or the room behind it, so its
 * cells are seen through and stay empty. Cells the cloud already covers, and cells near relief
 * (points off the wall, not on the ground nor on a plane across it), are left alone.
 */
import type { ImageRef, RegisteredView } from "../../scene/index.js";
import { cameraCenter } from "../../scene/index.js";
import { loadGreyPhotos, type GreyPhoto, type GroundPlane } from "./ground-sweep.js";
import { patchVariation } from "./photo-texture.js";
import { planeAxes } from "./plane-fill.js";
import { cameraVerdict, type CompletionPoints } from "./plane-completion.js";
import type { Plane } from "./planes.js";
import { PointGrid } from "./point-grid.js";
import type { DepthImage } from "./see-through.js";
import { findWallRuns, type WallRun } from "./wall-lines.js";

export interface StandingWallOptions {
  /** Lines sought among the points' footprints, at most. */
  maxLines: number;
  /** A run of a wall's footprint holds at least this many points… */
  minPoints: number;
  /** …and is at least this long, in voxels. */
  minLengthVoxels: number;
  /** Gaps along a run up to this long (voxels) are bridged: a wall's top edge is not seen whole. */
  maxGapVoxels: number;
  /** Footprint points lie within this many voxels of their line. */
  inlierVoxels: number;
  /** Only points at least this high above the ground (voxels) belong to walls: lower ones are the ground's own. */
  minHeightVoxels: number;
  /** Occupancy cell on a wall, in voxels (grown to stay within maxViewChecks). */
  cellVoxels: number;
  /** Cell-and-view visibility checks over all walls, at most. */
  maxViewChecks: number;
  minViews: number;
  maxSeeThrough: number;
  /** No point is added within this many voxels of a cloud point. */
  clearanceVoxels: number;
  /** A wall nearly parallel to a plane with its points within this many voxels of it on average is that plane's layer. */
  layerVoxels: number;
  /** Nor within this many voxels of relief (at least minReliefPoints points off the wall). */
  offPlaneClearanceVoxels: number;
  minReliefPoints: number;
  /**
   * A kept cell is filled only where the photo that sees it most squarely shows it plain: the
   * grey levels of side × side samples, `textureStepVoxels` apart on the wall around it, vary by
   * less than this share of their mean (photo-texture.ts); and only on a wall with more than half
   * of its kept cells plain. rendered/courtyard's shaded wall: 0.008–0.013 (10th–90th
   * percentile); the walls found on Herz-Jesus-P8, fountain-P11 and SceauxCastle, facades in
   * relief and stone: medians 0.09–0.33, and a tenth of their cells under 0.03–0.05.
   */
  maxTextureVariation: number;
  /**
   * A wall's plain cells must cover at least this many voxels squared (as a square's side), as a
   * plane's inliers must (plane-completion.ts): a few plain cells between relief are no wall
   * (synthetic/facade got 54 cells, rendered/plain-room 16, each −0.12 dB on its held-back photos).
   */
  minSideVoxels: number;
  textureSide: number;
  textureStepVoxels: number;
  /** Long side, in pixels, the photos are read at for that test, and how many of them at most. */
  imageSize: number;
  maxPhotos: number;
  iterations: number;
  sampleSize: number;
}

export const STANDING_WALL_DEFAULTS: StandingWallOptions = {
  maxLines: 8,
  minPoints: 100,
  minLengthVoxels: 40,
  maxGapVoxels: 40,
  inlierVoxels: 2,
  minHeightVoxels: 10,
  cellVoxels: 2,
  maxViewChecks: 50_000_000,
  minViews: 2,
  maxSeeThrough: 0.2,
  clearanceVoxels: 2,
  layerVoxels: 15,
  offPlaneClearanceVoxels: 5,
  minReliefPoints: 30,
  maxTextureVariation: 0.03,
  minSideVoxels: 40,
  textureSide: 5,
  textureStepVoxels: 2,
  imageSize: 1024,
  maxPhotos: 48,
  iterations: 400,
  sampleSize: 5_000,
};

export interface StandingWallReport {
  /** Runs of points along lines of the ground (wall footprints) found. */
  wallRuns: number;
  /** Of them, runs that are layers of a plane (layerOfPlane()). */
  wallLayers: number;
  wallCellsTried: number;
  wallCellsAdded: number;
  wallCellsSeenThrough: number;
  wallCellsUnseen: number;
  wallCellsNearRelief: number;
  /** Cells the cameras kept but the photo shows textured (or cannot show), or on a wall mostly textured. */
  wallCellsTextured: number;
  /** Cells of walls whose plain cells cover less than minSideVoxels squared. */
  wallCellsTooFew: number;
  wallPointsAdded: number;
}

/** A wall to fill: its run along the ground, its outward normal (to the cameras) and the height of each column. */
interface Wall {
  run: WallRun;
  /** The run's line in 3-D: a point on the ground and the unit direction along it. */
  base: number[];
  along: number[];
  normal: number[];
  /** Height reached in each column of `cell` along the run. */
  tops: Float64Array;
}

/**
 * Points on upright walls over the runs of points that stand on the ground. `cloud` is the
 * dense cloud followed by completion points, of which the first `denseCount` are the dense ones;
 * `planes` and `planeOf` are plane completion's (over the cloud), `images` depth images of it,
 * `photos` the photos of the views (a wall is filled only where they show it plain) and those
 * already read in grey by view (the ground sweep's).
 */
export async function completeStandingWalls(
  cloud: { positions: Float32Array; colors: Uint8Array; count: number },
  denseCount: number,
  views: RegisteredView[],
  voxel: number,
  spacing: number,
  ground: GroundPlane,
  planes: Plane[],
  planeOf: Int16Array,
  images: DepthImage[],
  photos: { images: ImageRef[]; read: Array<GreyPhoto | null> },
  options: StandingWallOptions = STANDING_WALL_DEFAULTS,
): Promise<{ points: CompletionPoints; report: StandingWallReport }> {
  const report: StandingWallReport = { wallRuns: 0, wallLayers: 0, wallCellsTried: 0, wallCellsAdded: 0, wallCellsSeenThrough: 0, wallCellsUnseen: 0, wallCellsNearRelief: 0, wallCellsTextured: 0, wallCellsTooFew: 0, wallPointsAdded: 0 };
  const empty = { points: { count: 0, positions: new Float32Array(0), normals: new Float32Array(0), colors: new Uint8Array(0) }, report };
  const centres = views.map((view) => cameraCenter(view.camFromWorld));
  const { u, v } = planeAxes(ground.normal);
  const standing = standingPoints(cloud.positions, denseCount, planes, ground, u, v, options.minHeightVoxels * voxel, options.offPlaneClearanceVoxels * voxel);
  const runs = findWallRuns(standing.uv, {
    maxLines: options.maxLines, minPoints: options.minPoints, minLength: options.minLengthVoxels * voxel, inlierDistance: options.inlierVoxels * voxel,
    maxGap: options.maxGapVoxels * voxel, iterations: options.iterations, sampleSize: options.sampleSize,
  });
  report.wallRuns = runs.length;
  const walls: Wall[] = [];
  let area = 0;
  for (const run of runs) {
    const wall = wallOf(run, ground, u, v, centres);
    if (layerOfPlane(wall, standing, cloud.positions, planes, options.layerVoxels * voxel)) {
      report.wallLayers++;
      continue;
    }
    walls.push(wall);
    area += (run.to - run.from) * maxOf(standing.height, run.inliers);
  }
  if (walls.length === 0) return empty;
  const cell = Math.max(options.cellVoxels * voxel, Math.sqrt((area * views.length) / options.maxViewChecks));
  const dense = new PointGrid(cloud.positions, cloud.count, Math.max(options.clearanceVoxels * voxel, 2 * voxel));
  const out = { positions: [] as number[], normals: [] as number[], colors: [] as number[] };
  const context: FillContext = { standing, cloud, dense, planes, planeOf, ground, images, centres, voxel, spacing, options, report, out };
  const fewestCells = ((options.minSideVoxels * voxel) / cell) ** 2;
  const kept: KeptCell[] = [];
  for (const wall of walls) {
    wall.run = toCorners(wall, planes, cloud.positions, options.maxGapVoxels * voxel, options.offPlaneClearanceVoxels * voxel);
    wall.tops = columnTops(wall.run, standing, cell);
    const own = keptCells(wall, cell, context);
    // Too few to fill even if all were plain: their photos need not be read.
    if (own.length < fewestCells) report.wallCellsTooFew += own.length;
    else kept.push(...own);
  }
  if (kept.length === 0) return empty;
  const textures = await cellTextures(kept, views, photos, ground, cell, voxel, options);
  for (const wall of new Set(kept.map((k) => k.wall))) {
    const own = kept.flatMap((k, index) => (k.wall === wall ? [index] : []));
    const plain = own.filter((index) => textures[index]! < options.maxTextureVariation);
    // A wall most of whose kept cells are textured is relief or openings with plain patches, not a plain wall.
    if (2 * plain.length <= own.length) {
      report.wallCellsTextured += own.length;
      continue;
    }
    if (plain.length < fewestCells) {
      report.wallCellsTooFew += own.length;
      continue;
    }
    report.wallCellsTextured += own.length - plain.length;
    report.wallCellsAdded += plain.length;
    const colour = meanColour(cloud.colors, wall.run.inliers, standing.index);
    for (const index of plain) fillCell(kept[index]!, cell, colour, context);
  }
  report.wallPointsAdded = out.positions.length / 3;
  return {
    points: { count: report.wallPointsAdded, positions: new Float32Array(out.positions), normals: new Float32Array(out.normals), colors: new Uint8Array(out.colors) },
    report,
  };
}

/**
 * The dense points farther than `clearance` from every plane and at least `minHeight` above the
 * ground: their cloud index, plane coordinates and height. A plane's own points are its
 * inliers, but a wall's points spread over a few voxels of depth, and the ones its plane left
 * over line up along it in the footprint (rendered/courtyard's far wall gave lines crossing it
 * at 8°, which are no wall).
 */
interface Standing {
  index: Uint32Array;
  uv: Float64Array;
  height: Float64Array;
}

function standingPoints(positions: Float32Array, count: number, planes: Plane[], ground: GroundPlane, u: number[], v: number[], minHeight: number, clearance: number): Standing {
  const n = ground.normal;
  const index: number[] = [], uv: number[] = [], height: number[] = [];
  const nearPlane = (x: number, y: number, z: number) => planes.some((p) => Math.abs(p.normal[0] * x + p.normal[1] * y + p.normal[2] * z - p.d) <= clearance);
  for (let i = 0; i < count; i++) {
    const x = positions[3 * i]!, y = positions[3 * i + 1]!, z = positions[3 * i + 2]!;
    const h = n[0] * x + n[1] * y + n[2] * z - ground.d;
    if (h < minHeight || nearPlane(x, y, z)) continue;
    index.push(i);
    uv.push(x * u[0]! + y * u[1]! + z * u[2]!, x * v[0]! + y * v[1]! + z * v[2]!);
    height.push(h);
  }
  return { index: Uint32Array.from(index), uv: Float64Array.from(uv), height: Float64Array.from(height) };
}

function maxOf(values: Float64Array, indices: Uint32Array): number {
  let most = 0;
  for (const i of indices) most = Math.max(most, values[i]!);
  return most;
}

/**
 * Whether the wall is a layer of a plane: nearly parallel to it (within ~25°) with the run's
 * points within `distance` of it on average. Such a run is the plane's own spread of depth, or
 * a surface so close before it that the cameras cannot tell the two apart: a cell is seen
 * through only beyond 5 % of its depth (cameraVerdict), which is 0.5 m at 10 m.
 */
function layerOfPlane(wall: Wall, standing: Standing, positions: Float32Array, planes: Plane[], distance: number): boolean {
  return planes.some((plane) => {
    const n = plane.normal;
    if (Math.abs(n[0] * wall.normal[0]! + n[1] * wall.normal[1]! + n[2] * wall.normal[2]!) < PARALLEL_COSINE) return false;
    let offset = 0;
    for (const k of wall.run.inliers) {
      const i = standing.index[k]!;
      offset += Math.abs(n[0] * positions[3 * i]! + n[1] * positions[3 * i + 1]! + n[2] * positions[3 * i + 2]! - plane.d);
    }
    return offset < distance * wall.run.inliers.length;
  });
}

/** Planes closer than ~25° to parallel count as layers of each other (as in plane-completion.ts). */
const PARALLEL_COSINE = 0.9;

/** The wall over a run: its line on the ground in 3-D and its normal turned to most of the cameras. */
function wallOf(run: WallRun, ground: GroundPlane, u: number[], v: number[], centres: Float64Array[]): Wall {
  const base = [0, 1, 2].map((a) => ground.normal[a]! * ground.d + run.origin[0] * u[a]! + run.origin[1] * v[a]!);
  const along = [0, 1, 2].map((a) => run.direction[0] * u[a]! + run.direction[1] * v[a]!);
  // Across the line, in the ground: direction rotated a quarter turn in the plane's coordinates.
  let normal = [0, 1, 2].map((a) => -run.direction[1] * u[a]! + run.direction[0] * v[a]!);
  let side = 0;
  for (const c of centres) side += Math.sign((c[0]! - base[0]!) * normal[0]! + (c[1]! - base[1]!) * normal[1]! + (c[2]! - base[2]!) * normal[2]!);
  if (side < 0) normal = normal.map((x) => -x);
  return { run, base, along, normal, tops: new Float64Array(0) };
}

/**
 * The run carried, at either end, to a plane across it that meets its line within `maxGap`
 * with points of its own within `near` of the corner: walls end at walls (rendered/courtyard's
 * shaded wall showed its top edge to 0.9 m short of the tower it abuts). The columns added take
 * the height of the run's last.
 */
function toCorners(wall: Wall, planes: Plane[], positions: Float32Array, maxGap: number, near: number): WallRun {
  let { from, to } = wall.run;
  for (const plane of planes) {
    const n = plane.normal;
    const across = n[0] * wall.along[0]! + n[1] * wall.along[1]! + n[2] * wall.along[2]!;
    if (Math.abs(across) < 1 - PARALLEL_COSINE) continue;
    const t = (plane.d - (n[0] * wall.base[0]! + n[1] * wall.base[1]! + n[2] * wall.base[2]!)) / across;
    const beyondEnd = t > wall.run.to && t - wall.run.to <= maxGap, beforeStart = t < wall.run.from && wall.run.from - t <= maxGap;
    if (!(beyondEnd || beforeStart) || !pointsAtCorner(plane, positions, wall, t, near)) continue;
    if (beyondEnd) to = Math.max(to, t);
    else from = Math.min(from, t);
  }
  return { ...wall.run, from, to };
}

/** Whether some of the plane's points lie within `near` of the wall's upright line at `t` (at any height). */
function pointsAtCorner(plane: Plane, positions: Float32Array, wall: Wall, t: number, near: number): boolean {
  const corner = [0, 1, 2].map((a) => wall.base[a]! + t * wall.along[a]!);
  for (const i of plane.inliers) {
    const d = [positions[3 * i]! - corner[0]!, positions[3 * i + 1]! - corner[1]!, positions[3 * i + 2]! - corner[2]!];
    const alongWall = d[0]! * wall.along[0]! + d[1]! * wall.along[1]! + d[2]! * wall.along[2]!;
    const offWall = d[0]! * wall.normal[0]! + d[1]! * wall.normal[1]! + d[2]! * wall.normal[2]!;
    if (Math.abs(alongWall) <= near && Math.abs(offWall) <= near) return true;
  }
  return false;
}

/**
 * The height each column of the run reaches: the 90th percentile of its points' heights (a few
 * points of a bright edge land above it), interpolated linearly over columns with none.
 */
function columnTops(run: WallRun, standing: Standing, cell: number): Float64Array {
  const columns = Math.max(1, Math.ceil((run.to - run.from) / cell));
  const heights: number[][] = Array.from({ length: columns }, () => []);
  for (const k of run.inliers) {
    const t = (standing.uv[2 * k]! - run.origin[0]) * run.direction[0] + (standing.uv[2 * k + 1]! - run.origin[1]) * run.direction[1];
    heights[Math.min(columns - 1, Math.max(0, Math.floor((t - run.from) / cell)))]!.push(standing.height[k]!);
  }
  const tops = new Float64Array(columns).fill(NaN);
  heights.forEach((column, c) => {
    if (column.length === 0) return;
    column.sort((a, b) => a - b);
    tops[c] = column[Math.floor(0.9 * (column.length - 1))]!;
  });
  let previous = -1;
  for (let c = 0; c < columns; c++) {
    if (Number.isNaN(tops[c]!)) continue;
    for (let g = previous + 1; g < c; g++) tops[g] = previous < 0 ? tops[c]! : tops[previous]! + ((tops[c]! - tops[previous]!) * (g - previous)) / (c - previous);
    previous = c;
  }
  for (let g = previous + 1; g < columns; g++) tops[g] = tops[previous]!;
  return tops;
}

interface FillContext {
  standing: Standing;
  cloud: { positions: Float32Array; colors: Uint8Array; count: number };
  dense: PointGrid;
  planes: Plane[];
  planeOf: Int16Array;
  ground: GroundPlane;
  images: DepthImage[];
  centres: Float64Array[];
  voxel: number;
  spacing: number;
  options: StandingWallOptions;
  report: StandingWallReport;
  out: { positions: number[]; normals: number[]; colors: number[] };
}

/** A cell the cameras keep: where on the wall, and the views that see it, most squarely first. */
interface KeptCell {
  wall: Wall;
  t: number;
  h: number;
  views: number[];
}

/** The wall's cells that the cameras keep, the cloud leaves empty and no relief stands near. */
function keptCells(wall: Wall, cell: number, context: FillContext): KeptCell[] {
  const { dense, images, centres, voxel, options, report } = context;
  const offWall = 2 * options.inlierVoxels * voxel;
  const reliefRadius = options.offPlaneClearanceVoxels * voxel + cell * Math.SQRT1_2;
  const kept: KeptCell[] = [];
  for (let c = 0; c < wall.tops.length; c++) {
    const rows = Math.ceil(wall.tops[c]! / cell);
    for (let r = 0; r < rows; r++) {
      const t = wall.run.from + (c + 0.5) * cell, h = (r + 0.5) * cell;
      const centre = pointOn(wall, context.ground, t, h);
      if (dense.hasPointWithin(centre[0]!, centre[1]!, centre[2]!, cell * Math.SQRT1_2)) continue;
      report.wallCellsTried++;
      const { verdict, seenBy } = cameraVerdict(centre, wall.normal, images, centres, 3 * voxel, options);
      if (verdict !== "keep") {
        if (verdict === "seen-through") report.wallCellsSeenThrough++;
        else report.wallCellsUnseen++;
        continue;
      }
      if (reliefNear(wall, centre, reliefRadius, offWall, context)) {
        report.wallCellsNearRelief++;
        continue;
      }
      kept.push({ wall, t, h, views: squarestFirst(centre, wall.normal, seenBy, centres) });
    }
  }
  return kept;
}

function pointOn(wall: Wall, ground: GroundPlane, t: number, h: number): number[] {
  return [0, 1, 2].map((a) => wall.base[a]! + t * wall.along[a]! + h * ground.normal[a]!);
}

/** `seenBy` ordered by how squarely each view's ray meets the wall at `x`, at most SQUAREST_VIEWS of them. */
function squarestFirst(x: number[], normal: number[], seenBy: number[], centres: Float64Array[]): number[] {
  const cosine = (view: number) => {
    const c = centres[view]!;
    const ray = [c[0]! - x[0]!, c[1]! - x[1]!, c[2]! - x[2]!];
    return (ray[0]! * normal[0]! + ray[1]! * normal[1]! + ray[2]! * normal[2]!) / Math.hypot(ray[0]!, ray[1]!, ray[2]!);
  };
  return seenBy.map((view) => ({ view, cosine: cosine(view) })).sort((a, b) => b.cosine - a.cosine).slice(0, SQUAREST_VIEWS).map((s) => s.view);
}

/** Views asked about a cell's texture, at most: the first whose photo shows the whole patch answers. */
const SQUAREST_VIEWS = 3;

/** Points on the kept cell, at the cloud's spacing, clear of the cloud's own points. */
function fillCell(kept: KeptCell, cell: number, colour: number[], context: FillContext): void {
  const { dense, voxel, spacing, options, out } = context;
  const clearance = options.clearanceVoxels * voxel;
  const per = Math.max(1, Math.round(cell / spacing));
  const normal = kept.wall.normal;
  for (let a = 0; a < per; a++) for (let b = 0; b < per; b++) {
    const p = pointOn(kept.wall, context.ground, kept.t + ((a + 0.5) / per - 0.5) * cell, kept.h + ((b + 0.5) / per - 0.5) * cell);
    if (dense.nearestDistance2(p[0]!, p[1]!, p[2]!, clearance) < clearance * clearance) continue;
    out.positions.push(p[0]!, p[1]!, p[2]!);
    out.normals.push(normal[0]!, normal[1]!, normal[2]!);
    out.colors.push(colour[0]!, colour[1]!, colour[2]!);
  }
}

/**
 * Whether at least minReliefPoints points within `radius` of `p` stand off the wall: farther than
 * `offWall` from it, above the ground, and on no plane across the wall (a wall or the ground
 * meeting it at a corner may).
 */
function reliefNear(wall: Wall, p: number[], radius: number, offWall: number, context: FillContext): boolean {
  const { cloud, planes, planeOf, ground, options } = context;
  const n = wall.normal, up = ground.normal;
  const wallOffset = n[0]! * wall.base[0]! + n[1]! * wall.base[1]! + n[2]! * wall.base[2]!;
  let relief = 0;
  context.dense.forEachWithin(p[0]!, p[1]!, p[2]!, radius, (i) => {
    const x = cloud.positions[3 * i]!, y = cloud.positions[3 * i + 1]!, z = cloud.positions[3 * i + 2]!;
    if (Math.abs(n[0]! * x + n[1]! * y + n[2]! * z - wallOffset) <= offWall) return true;
    if (up[0] * x + up[1] * y + up[2] * z - ground.d <= offWall) return true;
    const plane = i < planeOf.length && planeOf[i]! >= 0 ? planes[planeOf[i]!]! : null;
    if (plane && Math.abs(plane.normal[0] * n[0]! + plane.normal[1] * n[1]! + plane.normal[2] * n[2]!) < 0.9) return true;
    return ++relief < options.minReliefPoints;
  });
  return relief >= options.minReliefPoints;
}

/** The mean colour of the run's points (the vertex colour where no photo paints the wall). */
function meanColour(colors: Uint8Array, inliers: Uint32Array, index: Uint32Array): number[] {
  const sum = [0, 0, 0];
  for (const k of inliers) for (let a = 0; a < 3; a++) sum[a] += colors[3 * index[k]! + a]!;
  return sum.map((s) => Math.round(s / Math.max(1, inliers.length)));
}

/**
 * How much texture each kept cell shows in the photo that sees it most squarely and shows the
 * whole patch (photo-texture.ts); NaN when no photo shows it whole.
 */
async function cellTextures(kept: KeptCell[], views: RegisteredView[], photos: { images: ImageRef[]; read: Array<GreyPhoto | null> }, ground: GroundPlane, cell: number, voxel: number, options: StandingWallOptions): Promise<number[]> {
  const cellsSeen = new Map<number, number>();
  for (const k of kept) for (const view of k.views) cellsSeen.set(view, (cellsSeen.get(view) ?? 0) + 1);
  const wanted = new Set([...cellsSeen.entries()].sort((a, b) => b[1] - a[1]).slice(0, options.maxPhotos).map(([view]) => view));
  // The ground sweep has read most of them already (at its own size: the patch is sampled on the wall, not in pixels).
  const missing = new Set([...wanted].filter((view) => !photos.read[view]));
  const loaded = missing.size > 0 ? await loadGreyPhotos(views, photos.images, options.imageSize, missing) : [];
  const grey = views.map((_, view) => photos.read[view] ?? loaded[view] ?? null);
  const step = Math.max(cell, options.textureStepVoxels * voxel);
  const variations = kept.map((k) => {
    for (const view of k.views) {
      const photo = grey[view];
      const variation = photo ? patchVariation(photo, pointOn(k.wall, ground, k.t, k.h), k.wall.along, ground.normal, step, options.textureSide) : NaN;
      if (!Number.isNaN(variation)) return variation;
    }
    return NaN;
  });
  return variations;
}

