/**
 * @module Mesh stage: a triangle mesh of the dense, oriented point cloud.
 *
 * Method (why not screened Poisson): the signed distance to the points' tangent planes
 * (Hoppe et al. 1992, averaged with smooth weights as in Kolluri 2005) is sampled on a
 * sparse lattice that exists only within a couple of voxels of the data, and its zero set is
 * extracted by surface nets (Gibson 1998). Everything is local, so cost and memory grow with
 * the surface, not the bounding volume, and nothing is invented where there are no points:
 * open scenes (facades, terrain, an object on a table) stay open, where a global Poisson
 * solve (Kazhdan & Hoppe 2013) closes them with a balloon that must then be trimmed by a
 * density heuristic. The price is that holes in the data stay holes, so the plain planes that
 * dense stereo leaves as islands (white walls, floors, ground) are completed with points on
 * their plane where the cameras see that plane and nothing behind it (plane-completion.ts; a studio's
 * dark backdrop and a clear sky count as seen through: backdrop.ts, sky.ts), the
 * ground under the cameras likewise (ground-completion.ts), and a plain wall that stereo saw only
 * at its edges is stood upright on the ground under them (standing-walls.ts). A plain object
 * whose outline the photos show against measured depth is closed as the space no view saw
 * through (a visual hull carved with each view's own depth: hull-completion.ts).
 *
 * First, normals facing away from every camera are flipped (orient.ts). Then, after
 * extraction: faces farther than `trimDistance` from every point are cut, small disconnected
 * pieces dropped, small flat holes and pinholes closed (fill-holes.ts; large enclosed ones by close-holes.ts
 * where enabled), the mesh simplified to `faceBudget` with meshoptimizer, vertices given
 * area-weighted normals and coloured from the photos where a registered view sees them
 * (z-buffered, project-colors.ts), else from the nearby points. Faces are
 * counter-clockwise seen from outside, outside being where the point normals point.
 *
 * CONTRIBUTOR NOTES (measured on 2 shared cores, so times are rough):
 * - A hash per lattice node (open addressing, even with a good finaliser) cost ~1 µs per
 *   scattered sample at 300k points; 4³ bricks behind one hash (brick-lattice.ts) made the
 *   signed distance ~5× faster and extraction ~4× faster.
 * - Support radius 2 voxels left pinholes over sampling gaps (cells missing a corner); 2.5
 *   closed them. Any minimum node weight that shrinks the band below R does the same, hence
 *   MIN_NODE_WEIGHT ≈ 0. A narrower kernel ((1 − d²/R²)⁸) opened more holes at box edges
 *   than ⁴.
 * - Trimming at 1 voxel cut ~4% of a randomly sampled sphere into pinholes; 1.5 voxels plus
 *   the "surrounded by data" rescue in trimFaces cut almost none and still stops the fringe
 *   of open surfaces.
 * - The face estimate from spacing alone (area ≈ N·s²) was 2.5× low on random samples;
 *   occupied cells at 4× the voxel (chooseVoxelSize) land within ~10%.
 * - Reversing whole pieces whose faces mostly turn away from their nearest camera was tried
 *   and dropped: a small object seen mostly from one side votes itself inside out.
 * - The signed distance, the longest phase on one thread, sums half of the points on a worker
 *   (signed-distance.ts): on the rendered smoke set 1.19 → 0.86 s, the stage 6.17 → 5.83 s
 *   (four runs each on the same cloud), the same mesh bytes as one thread. The vertex colours
 *   hand it half of their views too: on the facade's cloud 1.40 → 1.18 s (three runs each).
 *   The ground sweep hands it half of each batch of planes: on SceauxCastle's cloud ground
 *   completion 4.0–4.2 → 2.8 s, the stage 10.5 → 8.6–9.3 s (two runs each), the same mesh.
 */
import { availableParallelism } from "node:os";
import type { ImageRef, Mesh, PointCloud, ProgressFn, RegisteredView, StageReport, ViewDepth } from "../../scene/index.js";
import { WorkerPool, type TaskRunner } from "../../util/pool.js";
import { vertexColors, vertexNormals } from "./attributes.js";
import { compactVertices, dropDegenerateFaces, removeSmallComponents, trimFaces } from "./cleanup.js";
import { closeEnclosedHoles, type EnclosedHoleOptions } from "./close-holes.js";
import { fillSmallHoles } from "./fill-holes.js";
import { completeHulls, HULL_DEFAULTS, viewDepthImages, type HullCompletionOptions } from "./hull-completion.js";
import { completeGround, GROUND_DEFAULTS, type GroundCompletionOptions } from "./ground-completion.js";
import { GROUND_SWEEP_DEFAULTS, type GroundSweepOptions, type GroundSweepTask } from "./ground-sweep.js";
import { completePlanes, PLANE_COMPLETION_MIN_POINTS, type CompletionPoints, type PlaneCompletionOptions } from "./plane-completion.js";
import { orientTowardCameras } from "./orient.js";
import { colorFromImages } from "./project-colors.js";
import { medianSpacing, occupiedCells, PointGrid } from "./point-grid.js";
import { buildSignedDistance, type LatticeSums, type SignedDistanceTask } from "./signed-distance.js";
import type { ColorSums, ColorTask } from "./project-colors.js";
import type { MeshResult, MeshTask } from "./worker-task.js";
import { simplifyAhead, simplifyToBudget, type SimplifyResult, type SimplifyTask } from "./simplify.js";
import { loadGreyPhotos } from "./photo-texture.js";
import { BACKDROP_DEFAULTS, backdropMasks, markBackdrop, type BackdropOptions } from "./backdrop.js";
import { SKY_DEFAULTS, skyMasks, unionMasks, type SkyOptions } from "./sky.js";
import { carveSky, SKY_CARVE_DEFAULTS, type SkyCarveOptions } from "./sky-carve.js";
import { cloudDepthImages, cloudDepthImagesOn, grownDepthImagesOn, markMeasured, type DepthImageTask } from "./see-through.js";
import { completeStandingWalls, STANDING_WALL_DEFAULTS, type StandingWallOptions } from "./standing-walls.js";
import { extractSurfaceNets } from "./surface-nets.js";
import type { RawMesh } from "./surface-nets.js";

export const NAME = "mesh";

export interface Options {
  /** Most faces in the output (presets: preview 50k, standard 200k, high 1M). */
  faceBudget: number;
  /** Voxel size as a multiple of the median point spacing; made coarser if the budget needs it. */
  resolution: number;
  /** Faces whose centroid is farther than this from every point are cut, in voxels. */
  trimDistance: number;
  /**
   * Support radius of the signed distance, in voxels. At 2
   * the corners of some surface cells over sampling gaps have no data and the surface gets
   * pinholes; 2.5 closed every test surface. At 2 the synthetic facade's mesh scores better (F½
   * 0.931 against 0.924), but with its pinholes closed the held-back views of every real set and of
   * the plain room still lost coverage (docs/decisions.md, "The signed distance reaches 2.5 voxels: 2 tried, not kept").
   */
  supportRadius: number;
  /**
   * Connected pieces with fewer than this fraction of all faces are dropped. At 1 % the ground
   * of fountain-P11, broken into pieces by holes, lost 391 of 394 pieces; 0.05 % keeps real
   * patches of ground and wall and still drops the specks of stray points.
   */
  minComponentFraction: number;
  /** Holes closed before simplification: longest boundary loop (edges at the lattice size) and its flatness (fill-holes.ts). */
  maxHoleEdges: number;
  maxHoleFlatness: number;
  /** …or a loop's largest distance from its plane at most this, in voxels (fill-holes.ts maxDeviation). */
  maxHoleDeviation: number;
  /**
   * …or, bent, a loop along the corner where two of the planes the completions found meet: each
   * vertex within this many voxels of one of them, the loop within maxCreaseRadius voxels of their
   * line (fill-holes.ts creases); 0: off.
   */
  maxCreaseOffPlanes: number;
  maxCreaseRadius: number;
  /** Large flat holes enclosed by surface that no camera sees through (close-holes.ts); maxEdges 0 turns it off. */
  enclosedHoles: EnclosedHoleOptions;
  /** Points added on plain planes' holes before meshing (plane-completion.ts); maxPlanes 0 turns it off. */
  planeCompletion: PlaneCompletionOptions;
  /** The ground below the cameras, completed where they see it (ground-completion.ts); null: off. */
  groundCompletion: GroundCompletionOptions | null;
  /** Upright walls on the ground, over lines of points standing on it and under upright planes (standing-walls.ts), after the ground; null: off. */
  standingWalls: StandingWallOptions | null;
  /** Plain objects closed where the photos show them as depthless regions enclosed by seen-through space (hull-completion.ts), after the walls; null: off. */
  hullCompletion: HullCompletionOptions | null;
  /** The ground's plane placed by the photos (ground-sweep.ts) when they are given; null: by its points only. */
  groundSweep: GroundSweepOptions | null;
  /** Depthless pixels where the photos show a dark, smooth backdrop count as seen-through space for the completions (backdrop.ts); null: off. */
  backdrop: BackdropOptions | null;
  /** Depthless pixels where the photos show a clear sky joined to their top border count as seen-through space for the completions (sky.ts); null: off. */
  sky: SkyOptions | null;
  /** Faces that the photos show a clear sky through (by `sky`'s colours) are cut after extraction (sky-carve.ts); null: off. */
  skyCarve: SkyCarveOptions | null;
  /** How many times the budget the extraction may produce before simplification. */
  oversample: number;
  /**
   * Long side in pixels the photos are read at to colour the vertices (0: colour from the
   * points only). Vertices no photo sees keep the points' colour.
   */
  colorImageSize: number;
  /** Threads: 2 hands half of the signed distance's points, of the ground sweep's planes and of the colouring views to a worker (the mesh is the same with 1). */
  threads: number;
  /**
   * Fewest points for which the worker is started: below, its start costs about what it would
   * save (the signed distance takes ~1.5 µs per point here, a worker ~0.3 s of a core to start).
   */
  minHelperPoints: number;
}

export const DEFAULTS: Options = {
  faceBudget: 200_000,
  resolution: 2,
  trimDistance: 1.5,
  supportRadius: 2.5,
  minComponentFraction: 0.0005,
  maxHoleEdges: 300,
  maxHoleFlatness: 0.2,
  maxHoleDeviation: 1,
  maxCreaseOffPlanes: 2.5,
  maxCreaseRadius: 8,
  // Off: after plane completion it closed no hole on fountain-P11, Herz-Jesus-P8 or the plain
  // room (every remaining loop was far from flat) and cost ~3 s of cleanup on each
  // (`npm run bench -- views plain-room fountain Herz`, 1a88779). Kept for captures whose holes
  // lie in surfaces too small or too curved for the planes (maxEdges 4000 turns it on).
  enclosedHoles: { maxEdges: 0, maxFlatness: 0.1, minAlignment: 0.8, maxSeeThrough: 0.1, maxSamples: 2000 },
  planeCompletion: {
    planes: { maxPlanes: 6, minInlierShare: 0.03, minNormalCosine: 0.8, iterations: 400, sampleSize: 20_000 },
    plainPlanes: { maxPlanes: 6, minInlierShare: 0.005, maxLumaVariation: 0.18 },
    inlierVoxels: 1,
    cellVoxels: 2,
    closingCells: 8,
    minViews: 2,
    maxSeeThrough: 0.2,
    maxGridSide: 1500,
    minSideVoxels: 40,
    clearanceVoxels: 2,
    plainClearanceVoxels: 0.5,
    offPlaneClearanceVoxels: 5,
    minReliefPoints: 30,
    // Off: it trades coverage for fidelity (synthetic facade mesh F½ 0.802 → 0.820, SceauxCastle
    // SSIM 0.726 → 0.738, but object-ring coverage 0.947 → 0.934, templeSparseRing 0.962 → 0.931,
    // smoke 26.15 → 25.94 dB; docs/decisions.md "Holes the photos show textured"); plane-completion.ts PLANE_TEXTURE_TEST turns it on.
    texture: null,
  },
  groundCompletion: GROUND_DEFAULTS,
  groundSweep: GROUND_SWEEP_DEFAULTS,
  backdrop: BACKDROP_DEFAULTS,
  sky: SKY_DEFAULTS,
  skyCarve: SKY_CARVE_DEFAULTS,
  standingWalls: STANDING_WALL_DEFAULTS,
  hullCompletion: HULL_DEFAULTS,
  oversample: 2,
  colorImageSize: 1024,
  threads: Math.min(2, availableParallelism()),
  minHelperPoints: 50_000,
};

export interface Input {
  cloud: PointCloud;
  views: RegisteredView[];
  images?: ImageRef[];
  /** The views' own filtered depths from the dense stage (by viewIndex = index into `views`): the hulls' free space. Without them no hull is completed. */
  viewDepths?: ViewDepth[];
}

/**
 * Nodes whose total weight is below this (one point at 0.99 R) hold no data. Any higher and
 * the band of defined nodes shrinks below R, which opens holes where the surface runs far
 * from the points (sampling gaps, rounded edges).
 */
const MIN_NODE_WEIGHT = 1e-16;

export function emptyMesh(): Mesh {
  return { vertexCount: 0, faceCount: 0, positions: new Float32Array(0), colors: new Uint8Array(0), normals: new Float32Array(0), indices: new Uint32Array(0) };
}

/**
 * Voxel size: `resolution` × spacing, coarser if surface nets would make more than
 * oversample × budget faces. Surface nets make about two faces per cell the surface
 * crosses. The cells the points occupy count those cells directly, but only at a size where
 * every crossed cell surely holds points (at 2× the spacing a random sampling leaves half of
 * them empty), so they are counted at `probeSize` (4× the finest) and scaled: faces ∝ 1/h².
 */
export function chooseVoxelSize(fineSize: number, probeSize: number, occupiedAtProbe: number, options: Options): number {
  const facesAtFine = 2 * occupiedAtProbe * (probeSize / fineSize) ** 2;
  const allowed = options.oversample * options.faceBudget;
  return facesAtFine <= allowed ? fineSize : fineSize * Math.sqrt(facesAtFine / allowed);
}

/** Probe cells for the face estimate, in finest voxels. */
const PROBE_FACTOR = 4;

/** Largest side of the bounding box: what meshoptimizer's relative errors are relative to. */
function meshExtent(positions: Float32Array): number {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < positions.length; i += 3) {
    for (let a = 0; a < 3; a++) {
      min[a] = Math.min(min[a], positions[i + a]);
      max[a] = Math.max(max[a], positions[i + a]);
    }
  }
  return Math.max(max[0] - min[0], max[1] - min[1], max[2] - min[2], 0);
}

function concat(a: Float32Array, b: Float32Array): Float32Array {
  const out = new Float32Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** The mesh's vertices, faces and normals; its colours are left to the caller (zero). */
function finish(raw: RawMesh): Mesh {
  const compact = compactVertices(dropDegenerateFaces(raw));
  return {
    vertexCount: compact.positions.length / 3,
    faceCount: compact.indices.length / 3,
    positions: compact.positions,
    indices: compact.indices,
    normals: vertexNormals(compact),
    colors: new Uint8Array(compact.positions.length),
  };
}

/** The cloud with completion points appended (their normals appended to `oriented` too). */
function withPoints(cloud: PointCloud, oriented: { normals: Float32Array }, added: CompletionPoints): PointCloud {
  if (added.count === 0) return cloud;
  oriented.normals = concat(oriented.normals, added.normals);
  return {
    count: cloud.count + added.count,
    positions: concat(cloud.positions, added.positions),
    normals: oriented.normals,
    colors: concatBytes(cloud.colors, added.colors),
  };
}

/** The cloud without the points marked in `dropped` (their normals left out of `oriented` too). */
function withoutPoints(cloud: PointCloud, oriented: { normals: Float32Array }, dropped: Uint8Array): PointCloud {
  let count = 0;
  for (let i = 0; i < cloud.count; i++) count += dropped[i] ? 0 : 1;
  if (count === cloud.count) return cloud;
  const positions = new Float32Array(3 * count), normals = new Float32Array(3 * count), colors = new Uint8Array(3 * count);
  for (let i = 0, o = 0; i < cloud.count; i++) {
    if (dropped[i]) continue;
    positions.set(cloud.positions.subarray(3 * i, 3 * i + 3), 3 * o);
    normals.set(oriented.normals.subarray(3 * i, 3 * i + 3), 3 * o);
    colors.set(cloud.colors.subarray(3 * i, 3 * i + 3), 3 * o);
    o++;
  }
  oriented.normals = normals;
  return { count, positions, normals, colors };
}

/**
 * Runs the stage. `helper` is a thread already started that serves worker-task.ts's tasks (the
 * pipeline's, shared with the texture stage; the caller closes it); without one, the stage starts
 * its own when it has a second thread and enough points. The mesh is the same either way.
 */
export async function run(input: Input, options?: Partial<Options>, progress?: ProgressFn, helper?: TaskRunner<MeshTask, MeshResult>): Promise<{ mesh: Mesh; report: StageReport }> {
  const opts: Options = { ...DEFAULTS, ...options };
  const wanted = opts.threads > 1 && input.cloud.count >= Math.max(16, opts.minHelperPoints);
  // Started first, so that the thread is up by the signed distance (after the completions).
  const own = wanted && !helper ? new WorkerPool<MeshTask, MeshResult>(new URL("./worker.ts", import.meta.url), { size: 1 }) : null;
  const thread = wanted ? (helper ?? own) : null;
  const helpers: Helpers | null = thread && {
    signedDistance: { size: 1, run: (task) => thread.run(task) as Promise<LatticeSums> },
    colors: { size: 1, run: (task) => thread.run(task) as Promise<ColorSums> },
    groundSweep: { size: 1, run: (task) => thread.run(task) as Promise<number> },
    depthImages: { size: 1, run: (task) => thread.run(task) as Promise<Float32Array[]> },
    simplify: { size: 1, run: (task, transfer) => thread.run(task, transfer) as Promise<SimplifyResult | null> },
  };
  try {
    return await meshCloud(input, opts, progress, helpers);
  } finally {
    await own?.close();
  }
}

/** What the extracted surface is cleaned up against. */
interface CleanUpContext {
  /** The final points, for the trimming. */
  grid: PointGrid;
  cloud: PointCloud;
  views: RegisteredView[];
  /** The carving's sky masks, one per view, or null when the sky is not carved. */
  skyMasks: Array<Uint8Array | null> | null;
  /** The completions' planes and the ground, whose meeting lines bent holes may be closed to. */
  creasePlanes: Array<{ normal: readonly number[]; d: number }>;
  voxel: number;
}

/**
 * The extracted surface trimmed away from the points, carved where two photos see the sky through
 * it, rid of small pieces, its small and enclosed holes closed; the counts go to the report.
 */
function cleanUp(raw: RawMesh, context: CleanUpContext, opts: Options, counts: Record<string, number>): RawMesh {
  const { grid, cloud, views, skyMasks, creasePlanes, voxel } = context;
  const trimmed = trimFaces(raw, grid, opts.trimDistance * voxel);
  raw = trimmed.mesh;
  counts.trimmedFaces = counts.extractedFaces - raw.indices.length / 3;
  counts.gapFacesKept = trimmed.rescued;
  if (skyMasks && opts.skyCarve) {
    const carved = carveSky(raw, views, skyMasks, opts.skyCarve);
    raw = carved.mesh;
    Object.assign(counts, { skyVertices: carved.report.skyVertices, skyCarvedFaces: carved.report.carvedFaces });
  }
  const pieces = removeSmallComponents(raw, opts.minComponentFraction);
  raw = compactVertices(pieces.mesh);
  Object.assign(counts, { components: pieces.components, componentsRemoved: pieces.removed });
  if (opts.maxHoleEdges > 0) {
    const creases = opts.maxCreaseOffPlanes > 0 && creasePlanes.length >= 2 ? { planes: creasePlanes, maxOffPlanes: opts.maxCreaseOffPlanes * voxel, maxRadius: opts.maxCreaseRadius * voxel } : undefined;
    const closed = fillSmallHoles(raw, { maxEdges: opts.maxHoleEdges, maxFlatness: opts.maxHoleFlatness, maxDeviation: opts.maxHoleDeviation * voxel, creases });
    raw = closed.mesh;
    Object.assign(counts, { holesFilled: closed.filled, holeFillFaces: closed.fillFaces, holesFilledOnCreases: closed.creases });
  }
  if (opts.enclosedHoles.maxEdges > 0 && views.length > 0) {
    const closed = closeEnclosedHoles(raw, { positions: cloud.positions, count: cloud.count, views }, voxel, opts.enclosedHoles);
    raw = closed.mesh;
    const r = closed.report;
    Object.assign(counts, { enclosedHolesClosed: r.closed, enclosedHoleFillFaces: r.fillFaces, enclosedHolesSeenThrough: r.seeThrough, enclosedHolesNotFlat: r.notFlat, enclosedHolesNotInSurface: r.notInSurface });
  }
  return raw;
}

/** The stage's worker, as the phases that hand it half of their work, or all of it, see it. */
interface Helpers {
  signedDistance: TaskRunner<SignedDistanceTask, LatticeSums>;
  colors: TaskRunner<ColorTask, ColorSums>;
  groundSweep: TaskRunner<GroundSweepTask, number>;
  depthImages: TaskRunner<DepthImageTask, Float32Array[]>;
  simplify: TaskRunner<SimplifyTask, SimplifyResult | null>;
}

/** Whether completePlanes() gets as far as the depth images' use: enough views and points to seek planes in. */
function planeCompletionRuns(options: Options["planeCompletion"], views: number, points: number): boolean {
  return options.planes.maxPlanes > 0 && views >= options.minViews && points >= PLANE_COMPLETION_MIN_POINTS;
}

async function meshCloud(input: Input, opts: Options, progress: ProgressFn | undefined, helpers: Helpers | null): Promise<{ mesh: Mesh; report: StageReport }> {
  const started = performance.now();
  let { cloud } = input;
  const warnings: string[] = [];
  const counts: Record<string, number> = { points: cloud.count, faceBudget: opts.faceBudget };
  let lapStart = started;
  /** Records the wall time of the phase that just ended as counts.ms_<phase>. */
  const lap = (phase: string): void => {
    const now = performance.now();
    counts[`ms_${phase}`] = Math.round(now - lapStart);
    lapStart = now;
  };
  const report = (): StageReport => ({ stage: NAME, wallMs: performance.now() - started, counts, warnings });

  // The photos of the backdrop and sky tests are decoded from here on (sharp's threads, on the
  // core this thread leaves free) while the points' spacing is measured, not when the planes need
  // them. Both mark depthless pixels as infinitely far, so one mask per view holds the two.
  const photos = input.images?.length ? input.images : null;
  const completing = opts.planeCompletion.planes.maxPlanes > 0;
  const skyRead = photos && opts.sky && (completing || opts.skyCarve) ? skyMasks(input.views, photos, opts.sky) : null;
  const backdropRead =
    photos && completing && (opts.backdrop || skyRead)
      ? Promise.all([opts.backdrop ? backdropMasks(input.views, photos, opts.backdrop) : null, skyRead]).then(([backdrop, sky]) => unionMasks(backdrop, sky))
      : null;
  // The carving's finer sky is read only from the photos whose coarse one shows some: on a
  // capture without sky (Herz-Jesus-P8, fountain-P11) the carving decodes no photo at all.
  const { sky, skyCarve } = opts;
  const skyCarveRead = photos && sky && skyCarve && skyRead ? skyRead.then((coarse) => skyMasks(input.views, photos, sky, skyCarve.imageSize, coarse.map((mask) => mask !== null))) : null;

  // The dense cloud's depth images, on the worker while this thread measures the spacing and seeks the planes.
  const depthImagesAhead = helpers && planeCompletionRuns(opts.planeCompletion, input.views.length, cloud.count) ? cloudDepthImagesOn(helpers.depthImages, cloud.positions, cloud.count, input.views) : null;
  const spacing = medianSpacing(cloud.positions, cloud.count);
  if (cloud.count < 16 || !(spacing > 0)) {
    warnings.push(`too few distinct points to mesh (${cloud.count})`);
    return { mesh: emptyMesh(), report: report() };
  }
  const fineSize = opts.resolution * spacing;
  const probeSize = PROBE_FACTOR * fineSize;
  const h = chooseVoxelSize(fineSize, probeSize, occupiedCells(cloud.positions, cloud.count, probeSize), opts);
  // Points far denser than the lattice add little: keep about 4 per voxel face.
  const stride = Math.max(1, Math.floor((h / spacing) ** 2 / 4));
  Object.assign(counts, { medianSpacing: spacing, voxelSize: h, trimDistance: opts.trimDistance * h, sdfPointStride: stride });
  lap("spacing");
  progress?.(0.05);

  const oriented = orientTowardCameras(cloud.positions, cloud.normals, cloud.count, input.views);
  // The completions' planes and the ground: where two of them meet, a bent hole may be closed.
  const creasePlanes: Array<{ normal: readonly number[]; d: number }> = [];
  counts.normalsFlipped = oriented.flipped;
  if (opts.planeCompletion.planes.maxPlanes > 0) {
    const texture = opts.planeCompletion.texture;
    // At most maxPhotos photos, spread evenly over the capture's order (a cell no read photo sees is filled from its points alone).
    const every = texture ? Math.ceil(input.views.length / texture.maxPhotos) : 1;
    const grey = texture && input.images?.length ? await loadGreyPhotos(input.views, input.images, texture.imageSize, new Set(input.views.map((_, i) => i).filter((i) => i % every === 0))) : null;
    const backdrop = backdropRead ? await backdropRead : null;
    const completion = await completePlanes({ ...cloud, normals: oriented.normals }, input.views, h, spacing, opts.planeCompletion, grey, backdrop, depthImagesAhead);
    const r = completion.report;
    Object.assign(counts, { planesFound: r.planes, plainPlanes: r.plainPlanes, planesNotPlain: r.planesNotPlain, planeLayers: r.planeLayers, planesThroughRelief: r.planesThroughRelief, planesTooSmall: r.planesTooSmall, planeCellsAdded: r.cellsAdded, planeCellsSeenThrough: r.cellsSeenThrough, backdropPixels: r.backdropPixels, planeCellsUnseen: r.cellsUnseen, planeCellsNearRelief: r.cellsNearRelief, planeCellsTextured: r.cellsTextured, planePointsAdded: r.pointsAdded });
    // From here on the added points are part of the cloud: the surface, its trimming and its colours use them.
    cloud = withPoints(cloud, oriented, completion.points);
    creasePlanes.push(...completion.planes);
    lap("planeCompletion");
    if (opts.groundCompletion) {
      const photos = opts.groundSweep && input.images?.length ? { images: input.images, sweep: opts.groundSweep } : undefined;
      // Without planes the depth images made ahead have not been used yet (and no point was added
      // to the cloud they were made of): the ground's are these, and they read the backdrop too.
      let depthImages = completion.depthImages;
      if (!depthImages) {
        const ahead = await depthImagesAhead;
        if (ahead || backdrop) depthImages = { images: ahead ?? cloudDepthImages(cloud.positions, cloud.count, input.views), count: cloud.count };
        if (depthImages && backdrop) counts.backdropPixels = markBackdrop(depthImages.images, backdrop);
      }
      // Those images hold the measured points only: the ground's see-through test keeps reading them.
      if (depthImages) markMeasured(depthImages.images);
      // The planes' points are splatted into their depth images on the worker while the ground is sought.
      const known = depthImages && helpers && depthImages.count < cloud.count ? grownDepthImagesOn(helpers.depthImages, depthImages, cloud.positions, cloud.count) : depthImages;
      const ground = await completeGround({ ...cloud, normals: oriented.normals }, input.views, h, completion.planes, completion.planeOf, opts.groundCompletion, photos, known, helpers?.groundSweep);
      Object.assign(counts, ground.report);
      if (ground.plane) creasePlanes.push(ground.plane);
      const denseAndPlanes = cloud;
      cloud = withPoints(cloud, oriented, ground.points);
      lap("groundCompletion");
      let wallPoints: CompletionPoints | null = null;
      if (opts.standingWalls && ground.plane && ground.images && input.images?.length) {
        const walls = await completeStandingWalls(denseAndPlanes, input.cloud.count, input.views, h, spacing, ground.plane, completion.planes, completion.planeOf, ground.images, { images: input.images, read: ground.grey }, opts.standingWalls);
        Object.assign(counts, walls.report);
        cloud = withPoints(cloud, oriented, walls.points);
        wallPoints = walls.points;
        lap("standingWalls");
      }
      const cloudImages = ground.images ?? depthImages?.images;
      if (opts.hullCompletion && cloudImages && input.viewDepths) {
        // The planes' and walls' points: space in front of a plain wall they closed is not an object.
        const guesses = { positions: concat(completion.points.positions, wallPoints?.positions ?? new Float32Array(0)), count: completion.points.count + (wallPoints?.count ?? 0) };
        const hulls = completeHulls(viewDepthImages(input.views, input.viewDepths, cloudImages), input.cloud, cloud, h, spacing, opts.hullCompletion, ground.plane, guesses);
        Object.assign(counts, hulls.report);
        if (hulls.dropped) cloud = withoutPoints(cloud, oriented, hulls.dropped);
        cloud = withPoints(cloud, oriented, hulls.points);
        lap("hullCompletion");
      }
    }
  }
  // The trimming's grid of the final points is built while the helper finishes its half of the sums.
  const meshed = cloud;
  let pointGrid: PointGrid | null = null;
  const lattice = await buildSignedDistance(cloud.positions, oriented.normals, cloud.count, {
    spacing: h, supportVoxels: opts.supportRadius, stride,
  }, helpers?.signedDistance, () => { pointGrid = new PointGrid(meshed.positions, meshed.count, h); });
  counts.latticeNodes = lattice.countNodes();
  counts.latticeBricks = lattice.brickCount;
  lap("signedDistance");
  progress?.(0.4);
  let raw = extractSurfaceNets(lattice, MIN_NODE_WEIGHT);
  counts.extractedFaces = raw.indices.length / 3;
  lap("extract");
  progress?.(0.6);
  const grid = pointGrid ?? new PointGrid(cloud.positions, cloud.count, h);
  // The helper readies its simplifier's memory while this thread cleans the mesh up, then simplifies it.
  const ahead = helpers && counts.extractedFaces > opts.faceBudget ? simplifyAhead(helpers.simplify, counts.extractedFaces, raw.positions.length / 3, opts.faceBudget) : null;
  try {
    const skyMasks = skyCarveRead && opts.skyCarve ? await skyCarveRead : null;
    raw = cleanUp(raw, { grid, cloud, views: input.views, skyMasks, creasePlanes, voxel: h }, opts, counts);
  } catch (error) {
    ahead?.cancel();
    throw error;
  }
  lap("cleanup");
  progress?.(0.7);

  const simplified = ahead ? await ahead.simplify(raw) : await simplifyToBudget(raw, opts.faceBudget);
  counts.simplifyRelativeError = simplified.error;
  if (simplified.sloppy) warnings.push("edge-collapse simplification stalled above the budget; finished with vertex clustering");
  lap("simplify");
  progress?.(0.9);

  const mesh = finish(simplified.mesh);
  // The photos colour the vertices they see; the points' colours only the others (most of the
  // vertices are seen: 83k of 107k on Herz-Jesus-P8, whose point colours took 0.37 s for all).
  let seen: Uint8Array | undefined;
  if (opts.colorImageSize > 0 && input.images && input.images.length > 0 && mesh.faceCount > 0) {
    // Simplified faces cut corners by up to the simplifier's error, and would hide the
    // vertices they pass in front of: the visibility test allows for that too.
    const simplifyError = simplified.error * meshExtent(mesh.positions);
    const photos = await colorFromImages(mesh, mesh.normals, mesh.colors, input.views, input.images, {
      imageSize: opts.colorImageSize, depthTolerance: 2 * h + 2 * simplifyError, minCosine: 0.2,
    }, helpers?.colors);
    counts.verticesColoredFromImages = photos.colored;
    seen = photos.seen;
    if (photos.unreadable.length > 0) warnings.push(`vertex colours: could not read ${photos.unreadable.join(", ")}; used the points' colours there`);
  }
  vertexColors(mesh.positions, grid, cloud.colors, h, mesh.colors, seen);
  lap("attributes");
  Object.assign(counts, { vertices: mesh.vertexCount, faces: mesh.faceCount });
  if (mesh.faceCount === 0) warnings.push("no surface found: the points may lack consistent normals or be too sparse");
  progress?.(1);
  return { mesh, report: report() };
}
