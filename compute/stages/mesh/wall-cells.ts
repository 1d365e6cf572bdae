/**
 * @module The cells of an upright wall (standing-walls.ts): which of them the cameras keep, how
 * plain the photos show them, and the points that fill them.
 */
import type { ImageRef, RegisteredView } from "../../scene/index.js";
import type { GroundPlane } from "./ground-sweep.js";
import { firstVariation, loadGreyPhotos, rayCosine, type GreyPhoto } from "./photo-texture.js";
import { cameraVerdict, PARALLEL_COSINE } from "./plane-completion.js";
import type { Plane } from "./planes.js";
import type { PointGrid } from "./point-grid.js";
import type { DepthImage } from "./see-through.js";
import type { StandingWallOptions, StandingWallReport } from "./standing-wall-options.js";

/**
 * An upright wall: a point on the ground under it, the unit direction along its foot, its unit
 * upright axis (in the wall) and its normal (to the cameras); its extent along the foot; its
 * points (cloud indices), each one's place along the foot and height; the height each column of
 * a cell's width reaches; which of its ends meet another plane; whether it is a plane's.
 */
export interface Wall {
  base: number[];
  along: number[];
  up: number[];
  normal: number[];
  from: number;
  to: number;
  points: Uint32Array;
  t: Float64Array;
  h: Float64Array;
  tops: Float64Array;
  /** Whether each end (at `from`, at `to`) was carried to a corner. */
  cornered: [boolean, boolean];
  /** An upright plane of plane completion (else a run of points along a line of the ground). */
  fromPlane: boolean;
}

/** The photos of the views, and those already read in grey by view (the ground sweep's). */
export interface WallPhotos {
  images: ImageRef[];
  read: Array<GreyPhoto | null>;
}

export interface FillContext {
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
export interface KeptCell {
  wall: Wall;
  t: number;
  h: number;
  views: number[];
}

/** The wall's cells that the cameras keep, the cloud leaves empty and no relief stands near. */
export function keptCells(wall: Wall, cell: number, context: FillContext): KeptCell[] {
  const kept: KeptCell[] = [];
  for (let c = 0; c < wall.tops.length; c++) kept.push(...columnCells(wall, wall.from + (c + 0.5) * cell, wall.tops[c]!, cell, context).kept);
  return kept;
}

/**
 * The kept cells of the column at `t` up to `top`, how many of its cells the cloud already
 * covers, and how many cells of its upper half the cameras see through (`throughAbove`: sky or
 * what stands beyond, over a wall lower there than `top`).
 */
export function columnCells(wall: Wall, t: number, top: number, cell: number, context: FillContext): { kept: KeptCell[]; covered: number; rows: number; throughAbove: number } {
  const rows = Math.ceil(top / cell);
  const kept: KeptCell[] = [];
  let covered = 0, throughAbove = 0;
  for (let r = 0; r < rows; r++) {
    const verdict = wallCell(wall, t, (r + 0.5) * cell, cell, context);
    if (verdict === "covered") covered++;
    else if (verdict === "seen-through" && 2 * r >= rows) throughAbove++;
    else if (typeof verdict === "object") kept.push(verdict);
  }
  return { kept, covered, rows, throughAbove };
}

/**
 * The wall's cell at `t` along its foot and `h` up it: covered by the cloud, seen through or
 * unseen by the cameras (cameraVerdict), beside relief, or kept (with the views that see it,
 * most squarely first). The report counts the cells tried and why they were not kept.
 */
export function wallCell(wall: Wall, t: number, h: number, cell: number, context: FillContext): KeptCell | "covered" | "seen-through" | "unseen" | "relief" {
  const { dense, images, centres, voxel, options, report } = context;
  const centre = pointOn(wall, t, h);
  if (dense.hasPointWithin(centre[0]!, centre[1]!, centre[2]!, cell * Math.SQRT1_2)) return "covered";
  report.wallCellsTried++;
  const { verdict, seenBy } = cameraVerdict(centre, wall.normal, images, centres, 3 * voxel, options);
  if (verdict !== "keep") {
    if (verdict === "seen-through") report.wallCellsSeenThrough++;
    else report.wallCellsUnseen++;
    return verdict;
  }
  if (reliefNear(wall, centre, options.offPlaneClearanceVoxels * voxel + cell * Math.SQRT1_2, 2 * options.inlierVoxels * voxel, context)) {
    report.wallCellsNearRelief++;
    return "relief";
  }
  return { wall, t, h, views: squarestFirst(centre, wall.normal, seenBy, centres) };
}

/** The point `t` along the wall's foot and `h` up it. */
export function pointOn(wall: Wall, t: number, h: number): number[] {
  return [0, 1, 2].map((a) => wall.base[a]! + t * wall.along[a]! + h * wall.up[a]!);
}

/** `seenBy` ordered by how squarely each view's ray meets the wall at `x`, at most SQUAREST_VIEWS of them. */
function squarestFirst(x: number[], normal: number[], seenBy: number[], centres: Float64Array[]): number[] {
  return seenBy.map((view) => ({ view, cosine: rayCosine(x, normal, centres[view]!) })).sort((a, b) => b.cosine - a.cosine).slice(0, SQUAREST_VIEWS).map((s) => s.view);
}

/** Views asked about a cell's texture, at most: the first whose photo shows the whole patch answers. */
const SQUAREST_VIEWS = 3;

/** Points on the kept cell, at the cloud's spacing, clear of the cloud's own points. */
export function fillCell(kept: KeptCell, cell: number, colour: number[], context: FillContext): void {
  const { dense, voxel, spacing, options, out } = context;
  const clearance = options.clearanceVoxels * voxel;
  const per = Math.max(1, Math.round(cell / spacing));
  const normal = kept.wall.normal;
  for (let a = 0; a < per; a++) for (let b = 0; b < per; b++) {
    const p = pointOn(kept.wall, kept.t + ((a + 0.5) / per - 0.5) * cell, kept.h + ((b + 0.5) / per - 0.5) * cell);
    if (dense.hasPointNearer(p[0]!, p[1]!, p[2]!, clearance)) continue;
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
    if (plane && Math.abs(plane.normal[0] * n[0]! + plane.normal[1] * n[1]! + plane.normal[2] * n[2]!) < PARALLEL_COSINE) return true;
    return ++relief < options.minReliefPoints;
  });
  return relief >= options.minReliefPoints;
}

/**
 * The photos in grey of the views that see the kept cells most squarely (at most maxPhotos, those
 * that see the most), by view: the ground sweep has read most of them already (at its own size:
 * the patch is sampled on the wall, not in pixels).
 */
export async function readPhotos(kept: KeptCell[], views: RegisteredView[], photos: WallPhotos, options: StandingWallOptions): Promise<Array<GreyPhoto | null>> {
  const cellsSeen = new Map<number, number>();
  for (const k of kept) for (const view of k.views) cellsSeen.set(view, (cellsSeen.get(view) ?? 0) + 1);
  const wanted = new Set([...cellsSeen.entries()].sort((a, b) => b[1] - a[1]).slice(0, options.maxPhotos).map(([view]) => view));
  const missing = new Set([...wanted].filter((view) => !photos.read[view]));
  const loaded = missing.size > 0 ? await loadGreyPhotos(views, photos.images, options.imageSize, missing) : [];
  return views.map((_, view) => photos.read[view] ?? loaded[view] ?? null);
}

/**
 * How much texture the kept cell shows in the photo that sees it most squarely and shows the
 * whole patch (photo-texture.ts); NaN when no photo of `grey` shows it whole.
 */
export function cellTexture(k: KeptCell, grey: Array<GreyPhoto | null>, cell: number, voxel: number, options: StandingWallOptions): number {
  return firstVariation(grey, k.views, pointOn(k.wall, k.t, k.h), k.wall.along, k.wall.up, Math.max(cell, options.textureStepVoxels * voxel), options.textureSide);
}
