/**
 * @module Completing walls that stand on the ground and that stereo saw only at their edges.
 *
 * A plain wall in shade gives dense stereo nothing to match but its outline: its top edge
 * against the sky, perhaps a corner. Too few points, and not spread over the wall, for any plane
 * search (plane-completion.ts); rendered/courtyard's shaded wall had about 600 points, all in a
 * band along its top, and came back as a hole over a third of the photos that face it. Its
 * outline still says where it stands: walls are upright on the ground, so its points project
 * onto the ground along the line of its foot (wall-lines.ts), and the wall is the upright plane
 * through that line, from the ground up to the points above it. The upright planes that plane
 * completion found stand on the ground the same way: below their points, down to the ground,
 * their holes are no longer bounded by their own inliers (rendered/courtyard's left wall kept a
 * hole at its foot where it met the ground).
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
import type { RegisteredView } from "../../scene/index.js";
import { cameraCenter } from "../../scene/index.js";
import type { GroundPlane } from "./ground-sweep.js";
import { planeAxes } from "./plane-fill.js";
import { meanColour, PARALLEL_COSINE, type CompletionPoints } from "./plane-completion.js";
import type { Plane } from "./planes.js";
import { PointGrid } from "./point-grid.js";
import type { DepthImage } from "./see-through.js";
import { STANDING_WALL_DEFAULTS, type StandingWallOptions, type StandingWallReport } from "./standing-wall-options.js";
import { cellTexture, columnCells, fillCell, keptCells, readPhotos, wallCell, type FillContext, type KeptCell, type Wall, type WallPhotos } from "./wall-cells.js";
import type { GreyPhoto } from "./photo-texture.js";
import { findWallRuns, type WallRun } from "./wall-lines.js";

export { STANDING_WALL_DEFAULTS, type StandingWallOptions, type StandingWallReport } from "./standing-wall-options.js";

/**
 * Points on upright walls: over the runs of points that stand on the ground, and under the
 * upright planes. `cloud` is the dense cloud followed by completion points, of which the first
 * `denseCount` are the dense ones; `planes` and `planeOf` are plane completion's (over the
 * cloud), `images` depth images of it, `photos` the photos of the views (a wall is filled only
 * where they show it plain) and those already read in grey by view (the ground sweep's).
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
  photos: WallPhotos,
  options: StandingWallOptions = STANDING_WALL_DEFAULTS,
): Promise<{ points: CompletionPoints; report: StandingWallReport }> {
  const report: StandingWallReport = { wallRuns: 0, wallLayers: 0, wallPlanes: 0, wallCellsTried: 0, wallCellsAdded: 0, wallCellsSeenThrough: 0, wallCellsUnseen: 0, wallCellsNearRelief: 0, wallCellsTextured: 0, wallCellsTooFew: 0, wallEndCellsAdded: 0, wallRaisedCellsAdded: 0, wallPointsAdded: 0 };
  const empty = { points: { count: 0, positions: new Float32Array(0), normals: new Float32Array(0), colors: new Uint8Array(0) }, report };
  const centres = views.map((view) => cameraCenter(view.camFromWorld));
  const walls = findWalls(cloud.positions, denseCount, ground, planes, centres, voxel, options, report);
  if (walls.length === 0) return empty;
  const area = walls.reduce((sum, wall) => sum + (wall.to - wall.from) * wall.h.reduce((most, h) => Math.max(most, h), 0), 0);
  const cell = Math.max(options.cellVoxels * voxel, Math.sqrt((area * views.length) / options.maxViewChecks));
  const dense = new PointGrid(cloud.positions, cloud.count, Math.max(options.clearanceVoxels * voxel, 2 * voxel));
  const out = { positions: [] as number[], normals: [] as number[], colors: [] as number[] };
  const context: FillContext = { cloud, dense, planes, planeOf, ground, images, centres, voxel, spacing, options, report, out };
  const fewestCells = ((options.minSideVoxels * voxel) / cell) ** 2;
  const kept: KeptCell[] = [];
  for (const wall of walls) {
    toCorners(wall, planes, cloud.positions, options.maxGapVoxels * voxel, options.offPlaneClearanceVoxels * voxel);
    wall.tops = columnTops(wall, cell, options.maxGapVoxels * voxel);
    const own = keptCells(wall, cell, context);
    // Too few to fill even if all were plain: their photos need not be read.
    if (own.length < fewestCells) report.wallCellsTooFew += own.length;
    else kept.push(...own);
  }
  if (kept.length === 0) return empty;
  const grey = await readPhotos(kept, views, photos, options);
  const textures = kept.map((k) => cellTexture(k, grey, cell, voxel, options));
  for (const wall of fillPlainWalls(kept, textures, cell, fewestCells, context)) {
    // A plane's inliers already reach its ends; a run's points may stop short of them (its top edge seen in part).
    if (!wall.fromPlane) for (const end of [0, 1] as const) if (!wall.cornered[end]) extendFreeEnd(wall, end, grey, cell, context);
    raiseColumns(wall, grey, cell, context);
  }
  report.wallPointsAdded = out.positions.length / 3;
  return {
    points: { count: report.wallPointsAdded, positions: new Float32Array(out.positions), normals: new Float32Array(out.normals), colors: new Uint8Array(out.colors) },
    report,
  };
}

/**
 * Points on the plain kept cells of each wall with more than half of its kept cells plain
 * (`textures` below maxTextureVariation) and at least `fewestCells` of them: a wall mostly
 * textured is relief, or openings with plain patches, not a plain wall.
 */
function fillPlainWalls(kept: KeptCell[], textures: number[], cell: number, fewestCells: number, context: FillContext): Wall[] {
  const { report, options } = context;
  const filled: Wall[] = [];
  for (const wall of new Set(kept.map((k) => k.wall))) {
    const own = kept.flatMap((k, index) => (k.wall === wall ? [index] : []));
    const plain = own.filter((index) => textures[index]! < options.maxTextureVariation);
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
    const colour = meanColour(context.cloud.colors, wall.points);
    for (const index of plain) fillCell(kept[index]!, cell, colour, context);
    filled.push(wall);
  }
  return filled;
}

/**
 * How far past its end (`end` 0: before `from`, 1: after `to`) the wall's foot runs before it
 * crosses a plane across it: a wall carried on stops there, at a corner it found no points of.
 */
function clearRun(wall: Wall, end: 0 | 1, planes: Plane[]): number {
  let clear = Infinity;
  for (const plane of planes) {
    const t = footCrossing(wall, plane);
    const beyond = t === null ? -1 : end === 0 ? wall.from - t : t - wall.to;
    if (beyond >= 0) clear = Math.min(clear, beyond);
  }
  return clear;
}

/** Where along the wall's foot a plane across it (not within ~25° of parallel) crosses it; null for one nearly parallel. */
function footCrossing(wall: Wall, plane: Plane): number | null {
  const n = plane.normal;
  const across = n[0] * wall.along[0]! + n[1] * wall.along[1]! + n[2] * wall.along[2]!;
  if (Math.abs(across) < 1 - PARALLEL_COSINE) return null;
  return (plane.d - (n[0] * wall.base[0]! + n[1] * wall.base[1]! + n[2] * wall.base[2]!)) / across;
}

/**
 * A plain wall carried on past a free end (one that meets no plane), column by column for up to
 * maxEndVoxels and never across a plane (clearRun()), at the height of its last column, while nearly every cell of the column
 * (`minEndShare`) is covered by the cloud or kept by the cameras and plain in the photos: its
 * points may stop short of its end (rendered/courtyard's shaded wall showed its top edge to a
 * metre before it), and past the true end the photos show what lies beyond, the ground's texture
 * at least, so the column fails. The cells in the column's upper half that the cameras see
 * through are sky over a wall lower there than its last column's 90th percentile (columnTops()),
 * not a reason to stop: the column is judged on its other cells (rendered/courtyard-wide's shaded
 * wall stopped 1.8 m short of its end on the top 10 cells of 72, all sky).
 */
function extendFreeEnd(wall: Wall, end: 0 | 1, grey: Array<GreyPhoto | null>, cell: number, context: FillContext): void {
  const { options, voxel, report } = context;
  const top = end === 0 ? wall.tops[0]! : wall.tops[wall.tops.length - 1]!;
  const colour = meanColour(context.cloud.colors, wall.points);
  const columns = Math.floor(Math.min(options.maxEndVoxels * voxel, clearRun(wall, end, context.planes)) / cell);
  for (let c = 0; c < columns; c++) {
    const t = end === 0 ? wall.from - (c + 0.5) * cell : wall.to + (c + 0.5) * cell;
    const column = columnCells(wall, t, top, cell, context);
    if (column.rows === 0) return;
    const standing = column.rows - column.throughAbove;
    const plain = column.kept.filter((k) => cellTexture(k, grey, cell, voxel, options) < options.maxTextureVariation);
    if (plain.length + column.covered < options.minEndShare * standing) return;
    report.wallEndCellsAdded += plain.length;
    for (const k of plain) fillCell(k, cell, colour, context);
  }
}

/**
 * Each column of a plain wall raised above its top, cell by cell for up to maxRiseVoxels, while
 * the cameras keep the cell (or the cloud covers it), no relief stands near and the photos show
 * it plain. A column's top is where its points stop, which on a plain wall is where matching last
 * found something, not where the wall ends: a street's house fronts, photographed from the street
 * below them, run on out of the top of the photos taken near them, and their points stop lower
 * (bench/street.ts). Above a wall's true top the cameras see the sky or what stands behind through
 * the cell, and out of every photo's frame they see nothing of it: either way the column stops.
 */
function raiseColumns(wall: Wall, grey: Array<GreyPhoto | null>, cell: number, context: FillContext): void {
  const { options, voxel, report } = context;
  const colour = meanColour(context.cloud.colors, wall.points);
  const rows = Math.floor((options.maxRiseVoxels * voxel) / cell);
  for (let c = 0; c < wall.tops.length; c++) {
    const top = wall.tops[c]!;
    if (!(top > 0)) continue;
    const t = wall.from + (c + 0.5) * cell;
    for (let r = Math.ceil(top / cell); r < Math.ceil(top / cell) + rows; r++) {
      const verdict = wallCell(wall, t, (r + 0.5) * cell, cell, context);
      if (verdict === "covered") continue;
      if (typeof verdict !== "object" || !(cellTexture(verdict, grey, cell, voxel, options) < options.maxTextureVariation)) break;
      report.wallRaisedCellsAdded++;
      fillCell(verdict, cell, colour, context);
    }
  }
}

/** The walls over the runs of standing points that are no layer of a plane, then the upright planes. */
function findWalls(positions: Float32Array, denseCount: number, ground: GroundPlane, planes: Plane[], centres: Float64Array[], voxel: number, options: StandingWallOptions, report: StandingWallReport): Wall[] {
  const { u, v } = planeAxes(ground.normal);
  const standing = standingPoints(positions, denseCount, planes, ground, u, v, options.minHeightVoxels * voxel, options.offPlaneClearanceVoxels * voxel);
  const runs = findWallRuns(standing.uv, {
    maxLines: options.maxLines, minPoints: options.minPoints, minLength: options.minLengthVoxels * voxel, inlierDistance: options.inlierVoxels * voxel,
    maxGap: options.maxGapVoxels * voxel, iterations: options.iterations, sampleSize: options.sampleSize,
  });
  report.wallRuns = runs.length;
  const walls: Wall[] = [];
  for (const run of runs) {
    const wall = wallOverRun(run, standing, ground, u, v, centres);
    if (layerOfPlane(wall, positions, planes, options.layerVoxels * voxel)) report.wallLayers++;
    else walls.push(wall);
  }
  for (const plane of planes) {
    const wall = wallUnderPlane(plane, positions, ground, centres, options.maxTiltDeg);
    if (!wall) continue;
    walls.push(wall);
    report.wallPlanes++;
  }
  return walls;
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

/**
 * Whether the wall is a layer of a plane: nearly parallel to it (within ~25°) with its points
 * within `distance` of it on average. Such a run is the plane's own spread of depth, or a surface
 * so close before it that the cameras cannot tell the two apart: a cell is seen through only
 * beyond 5 % of its depth (cameraVerdict), which is 0.5 m at 10 m.
 */
function layerOfPlane(wall: Wall, positions: Float32Array, planes: Plane[], distance: number): boolean {
  return planes.some((plane) => {
    const n = plane.normal;
    if (Math.abs(n[0] * wall.normal[0]! + n[1] * wall.normal[1]! + n[2] * wall.normal[2]!) < PARALLEL_COSINE) return false;
    let offset = 0;
    for (const i of wall.points) offset += Math.abs(n[0] * positions[3 * i]! + n[1] * positions[3 * i + 1]! + n[2] * positions[3 * i + 2]! - plane.d);
    return offset < distance * wall.points.length;
  });
}

/** `normal`, or its opposite, whichever most of the cameras are in front of (as seen from `base`). */
function towardCameras(normal: number[], base: number[], centres: Float64Array[]): number[] {
  let side = 0;
  for (const c of centres) side += Math.sign((c[0]! - base[0]!) * normal[0]! + (c[1]! - base[1]!) * normal[1]! + (c[2]! - base[2]!) * normal[2]!);
  return side < 0 ? normal.map((x) => -x) : normal;
}

/** The wall over a run: its line on the ground in 3-D, upright, its normal turned to most of the cameras. */
function wallOverRun(run: WallRun, standing: Standing, ground: GroundPlane, u: number[], v: number[], centres: Float64Array[]): Wall {
  const base = [0, 1, 2].map((a) => ground.normal[a]! * ground.d + run.origin[0] * u[a]! + run.origin[1] * v[a]!);
  const along = [0, 1, 2].map((a) => run.direction[0] * u[a]! + run.direction[1] * v[a]!);
  // Across the line, in the ground: direction rotated a quarter turn in the plane's coordinates.
  const normal = towardCameras([0, 1, 2].map((a) => -run.direction[1] * u[a]! + run.direction[0] * v[a]!), base, centres);
  const t = Float64Array.from(run.inliers, (k) => (standing.uv[2 * k]! - run.origin[0]) * run.direction[0] + (standing.uv[2 * k + 1]! - run.origin[1]) * run.direction[1]);
  const h = Float64Array.from(run.inliers, (k) => standing.height[k]!);
  const points = Uint32Array.from(run.inliers, (k) => standing.index[k]!);
  return { base, along, up: [...ground.normal], normal, from: run.from, to: run.to, points, t, h, tops: new Float64Array(0), cornered: [false, false], fromPlane: false };
}

/**
 * The wall under an upright plane (within `maxTiltDeg` of upright): its foot is the plane's line
 * on the ground, its upright axis the ground's normal turned into the plane, its extent that of
 * its inliers along the foot; null for a plane that is not upright.
 */
function wallUnderPlane(plane: Plane, positions: Float32Array, ground: GroundPlane, centres: Float64Array[], maxTiltDeg: number): Wall | null {
  const n = plane.normal, g = ground.normal;
  const c = n[0] * g[0] + n[1] * g[1] + n[2] * g[2];
  if (Math.abs(c) > Math.sin((maxTiltDeg * Math.PI) / 180)) return null;
  const alongRaw = [g[1] * n[2] - g[2] * n[1], g[2] * n[0] - g[0] * n[2], g[0] * n[1] - g[1] * n[0]];
  const alongLength = Math.hypot(alongRaw[0]!, alongRaw[1]!, alongRaw[2]!);
  const along = alongRaw.map((x) => x / alongLength);
  const upRaw = g.map((x, a) => x - c * n[a]!);
  const upLength = Math.hypot(upRaw[0]!, upRaw[1]!, upRaw[2]!);
  const up = upRaw.map((x) => x / upLength);
  // The point a·n + b·g on both planes: n·x = d and g·x = ground.d.
  const a = (plane.d - c * ground.d) / (1 - c * c), b = (ground.d - c * plane.d) / (1 - c * c);
  const base = [0, 1, 2].map((k) => a * n[k]! + b * g[k]!);
  const t = new Float64Array(plane.inliers.length), h = new Float64Array(plane.inliers.length);
  let from = Infinity, to = -Infinity;
  plane.inliers.forEach((i, k) => {
    const d = [positions[3 * i]! - base[0]!, positions[3 * i + 1]! - base[1]!, positions[3 * i + 2]! - base[2]!];
    t[k] = d[0]! * along[0]! + d[1]! * along[1]! + d[2]! * along[2]!;
    h[k] = d[0]! * up[0]! + d[1]! * up[1]! + d[2]! * up[2]!;
    from = Math.min(from, t[k]!);
    to = Math.max(to, t[k]!);
  });
  if (!(to > from)) return null;
  return { base, along, up, normal: towardCameras([...n], base, centres), from, to, points: plane.inliers, t, h, tops: new Float64Array(0), cornered: [false, false], fromPlane: true };
}

/**
 * The wall carried, at either end, to a plane across it that meets its foot within `maxGap`
 * with points of its own within `near` of the corner: walls end at walls (rendered/courtyard's
 * shaded wall showed its top edge to 0.9 m short of the tower it abuts). The columns added take
 * the height of the last.
 */
function toCorners(wall: Wall, planes: Plane[], positions: Float32Array, maxGap: number, near: number): void {
  let { from, to } = wall;
  for (const plane of planes) {
    const t = footCrossing(wall, plane);
    if (t === null) continue;
    const beyondEnd = t > wall.to && t - wall.to <= maxGap, beforeStart = t < wall.from && wall.from - t <= maxGap;
    if (!(beyondEnd || beforeStart) || !pointsAtCorner(plane, positions, wall, t, near)) continue;
    if (beyondEnd) to = Math.max(to, t);
    else from = Math.min(from, t);
  }
  wall.cornered = [from < wall.from, to > wall.to];
  wall.from = from;
  wall.to = to;
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
 * The height each column of the wall reaches: the 90th percentile of its points' heights (a few
 * points of a bright edge land above it), interpolated linearly over gaps of up to `maxGap`
 * (and carried out to the ends, which toCorners() moved by no more); 0 over wider gaps. Then a
 * column lower than columns on both sides of it within `maxGap` is raised to the lower of the
 * two sides' highest (closedTops()).
 */
function columnTops(wall: Wall, cell: number, maxGap: number): Float64Array {
  const columns = Math.max(1, Math.ceil((wall.to - wall.from) / cell));
  const heights: number[][] = Array.from({ length: columns }, () => []);
  wall.t.forEach((t, k) => {
    if (wall.h[k]! > 0) heights[Math.min(columns - 1, Math.max(0, Math.floor((t - wall.from) / cell)))]!.push(wall.h[k]!);
  });
  const tops = new Float64Array(columns).fill(NaN);
  heights.forEach((column, c) => {
    if (column.length === 0) return;
    column.sort((a, b) => a - b);
    tops[c] = column[Math.floor(0.9 * (column.length - 1))]!;
  });
  const widest = Math.floor(maxGap / cell);
  let previous = -1;
  for (let c = 0; c < columns; c++) {
    if (Number.isNaN(tops[c]!)) continue;
    if (previous < 0 || c - previous - 1 <= widest) {
      for (let g = previous + 1; g < c; g++) tops[g] = previous < 0 ? tops[c]! : tops[previous]! + ((tops[c]! - tops[previous]!) * (g - previous)) / (c - previous);
    }
    previous = c;
  }
  for (let g = previous + 1; g < columns; g++) tops[g] = tops[previous]!;
  // Wider gaps stay empty: an upright plane's points may lie far apart on it (two towers' faces in line).
  return closedTops(tops, widest).map((top) => (Number.isNaN(top) ? 0 : top));
}

/**
 * The column tops closed over `widest` columns, as a morphological closing of the profile: each
 * column rises to min(highest within `widest` before it, highest within `widest` after it) when
 * that is above its own. A column's points say how high the wall goes only where they reach its
 * top edge; on a plain wall most of them come from whatever the photos matched lower down, and a
 * few columns whose points all stop there are a lack of points, not a lower wall: on
 * rendered/courtyard's left wall a band of points at 1.3–1.7 m set the tops of half a metre of
 * columns between columns reaching 4.5–5 m, and the wall kept a slit from 1 to 3 m high in every
 * photo that saw it. A wall that really steps down for longer than `widest` keeps its step (and
 * its ends are not raised: only a dip with higher columns on both sides is), and columns over a
 * wider gap (NaN) stay empty.
 */
function closedTops(tops: Float64Array, widest: number): Float64Array {
  const closed = Float64Array.from(tops);
  const highest = (from: number, to: number) => {
    let most = -Infinity;
    for (let c = Math.max(0, from); c <= Math.min(tops.length - 1, to); c++) if (tops[c]! > most) most = tops[c]!;
    return most;
  };
  for (let c = 0; c < tops.length; c++) {
    if (Number.isNaN(tops[c]!)) continue;
    const rim = Math.min(highest(c - widest, c - 1), highest(c + 1, c + widest));
    if (rim > tops[c]!) closed[c] = rim;
  }
  return closed;
}

