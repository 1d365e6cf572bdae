/**
 * @module Texture stage: a photo texture atlas for the mesh, after Waechter, Moehrle and
 * Goesele, "Let There Be Color! Large-Scale Texturing of 3D Reconstructions" (ECCV 2014):
 *
 * 1. every photo is scanned for the faces it sees (z-buffered) and how well (view-scan.ts);
 * 2. views whose colour of a face disagrees with the rest are dropped, and each face gets one
 *    view by minimising a data + Potts smoothness energy (select-views.ts);
 * 3. faces with one view form charts; charts are packed into pages in the photo's own pixel
 *    grid, scaled down only when the page budget of the preset requires it (atlas-layout.ts);
 * 4. an additive colour correction per chart vertex levels the seams between photos of
 *    different exposure (levelling.ts); the photo pixels are copied into the pages with the
 *    correction interpolated across each face (paint.ts).
 *
 * The work on each photo (the scan, the levelling's samples, the painting) runs as one task per
 * photo on worker threads (view-task.ts, threads.ts). Each photo is decoded once, into shared
 * memory, ahead of the stage where the pipeline allows (photo-store.ts; up to decodeAheadBytes).
 *
 * Faces that no photo sees keep the mesh's vertex colours and no texture.
 * Not done (yet): the local Poisson blending of a strip along each seam (Waechter et al. §5.2)
 * and α-expansion for the labelling; ICM is used instead (select-views.ts).
 */
import { availableParallelism } from "node:os";
import { projectVertices } from "../../geometry/mesh-raster.js";
import type { ImageRef, Mesh, ProgressFn, RegisteredView, StageReport, TexturedMesh, TexturePage } from "../../scene/index.js";
import type { TaskRunner } from "../../util/pool.js";
import { layoutAtlas } from "./atlas-layout.js";
import { buildCharts, splitVertices, type ChartedMesh } from "./charts.js";
import type { ChartFaces } from "./paint.js";
import { consensusShifts, consistencyOf, faceAdjacency, gatherCandidates, joinConsistency, mergeRegions, selectViews, UNSEEN, type Consistency, type FaceAdjacency } from "./select-views.js";
import { UNREADABLE_PHOTO, type PaintTask, type PhotoOf, type ViewTask, type ViewTaskResult } from "./view-task.js";
import { dropFallbacks, faceGeometry, type ScanOptions, type ViewObservations } from "./view-scan.js";
import { solveChannels, startWorkers, type TextureWorkers } from "./threads.js";
import { chartTargets, consistentSeams } from "./levelling.js";
import { shared } from "../../util/shared-memory.js";
import { decodeAhead, type PhotoStore } from "./photo-store.js";
import { photoSize } from "./photo.js";

export { startWorkers, type TextureWorkers } from "./threads.js";
export type { PhotoStore } from "./photo-store.js";

/** The scale of a view's intrinsics its photo is read at (photoMaxSide). */
function photoScale(view: RegisteredView, photoMaxSide: number): number {
  return photoMaxSide > 0 ? Math.min(1, photoMaxSide / Math.max(view.intrinsics.width, view.intrinsics.height)) : 1;
}

/** Starts decoding the photos the stage will read (at the size its scan reads them), for `run` to take. */
export function decodePhotosAhead(views: RegisteredView[], images: ImageRef[], options?: Partial<Options>): PhotoStore {
  const opts: Options = { ...DEFAULTS, ...options };
  return decodeAhead(views, images, (view) => photoScale(view, opts.photoMaxSide), opts.decodeAheadBytes);
}

export const NAME = "texture";

export interface Options {
  /** Largest texture page side (presets: preview 4096, standard 4096, high 8192). */
  maxPageSize: number;
  maxPages: number;
  /** Texels of photo around each chart, against bleeding under bilinear filtering and mipmaps. */
  padding: number;
  /** Potts weight λ per neighbour on another view (data costs are in [0, 1]). */
  smoothness: number;
  maxSweeps: number;
  /** Regions of up to this many faces may change view as a whole after ICM (select-views.ts mergeRegions). */
  regionMoveFaces: number;
  /** Views whose mean colour of a face is farther than this (RGB, 0–255) from the consensus are dropped. */
  consistencyRadius: number;
  /** Faces seen more obliquely than this |cosine| are not textured from that view… */
  minCosine: number;
  /**
   * …unless no view sees them better: then down to this one. Ground seen from eye height meets
   * every ray at 2–6° (|cosine| 0.03–0.1 on SceauxCastle's courtyard); left untextured it took
   * the vertex colour of its points, a flat grey.
   */
  grazingMinCosine: number;
  /**
   * Power of |cos θ| (face normal against the ray) the data term is weighed by: 2 ranks views by
   * the resolution along the face's worst direction (view-scan.ts); 0 is Waechter et al.'s plain
   * gradient magnitude integral. `npm run bench -- views`, 0 → 2: fountain-P11 27.53 → 27.88 dB,
   * object-ring 28.05 → 28.38, the plain room 29.88 → 30.15, the synthetic facade 29.34 → 29.14
   * (docs/decisions.md, "The texture's data term prefers frontal views").
   */
  frontalPower: number;
  /** Visibility tolerance against the z-buffer, in median mesh edge lengths. */
  depthToleranceEdges: number;
  /** Long side the photos are read at (0: as stored by ingest). */
  photoMaxSide: number;
  /** Global seam levelling on or off. */
  levelling: boolean;
  levellingEdgeWeight: number;
  /**
   * Seam pairs whose two photo colours differ by more than this (grey levels, in any channel) do
   * not take part in the levelling (consistentSeams(), levelling.ts); Infinity: every pair.
   */
  levellingMaxSeamDifference: number;
  /**
   * Pull of each chart vertex toward the colour the photos agree on there (levelling.ts
   * `targetWeight`, against 1 per seam pair and chart edge; 0: seams only).
   * A face shows one photo, whose exposure and reflections differ from the others'; pulled over a
   * few edges toward their consensus, a chart keeps its photo's detail with the photos' common
   * colour (the blending of a mosaic texture). docs/decisions.md, "The levelling pulls the charts
   * toward the colour the photos agree on".
   */
  levellingTargetWeight: number;
  /** Targets farther than this from the chart's own colour (grey levels, any channel) do not pull: another surface. */
  levellingMaxTargetDifference: number;
  /** Worker threads for the photos' scan, sampling and painting (1: all on the calling thread). */
  workers: number;
  /**
   * Most bytes of photos decoded ahead while the mesh is made (photo-store.ts; 0: none); the
   * others are decoded by each task that reads them. 512 MiB holds 28 photos of 6 MP.
   */
  decodeAheadBytes: number;
}

export const DEFAULTS: Options = {
  maxPageSize: 4096,
  maxPages: 4,
  padding: 4,
  smoothness: 1,
  maxSweeps: 10,
  regionMoveFaces: 5000,
  consistencyRadius: 48,
  minCosine: 0.1,
  grazingMinCosine: 0.02,
  frontalPower: 2,
  depthToleranceEdges: 2,
  photoMaxSide: 0,
  levelling: true,
  levellingEdgeWeight: 1,
  // 40: exposure and white balance between photos of one surface stay well inside it; a seam
  // vertex seen on two surfaces does not (rendered/courtyard's stone portal before its white wall).
  // `npm run bench -- views courtyard Sceaux fountain Herz`: courtyard 27.36 → 30.17 dB (SSIM 0.921
  // → 0.938), SceauxCastle 20.66 → 20.90, fountain-P11 27.33 → 27.65, Herz-Jesus-P8 25.50 → 25.58;
  // without levelling at all the courtyard reached 30.77 dB but SceauxCastle's SSIM fell to 0.706.
  levellingMaxSeamDifference: 40,
  levellingTargetWeight: 0.02,
  levellingMaxTargetDifference: 80,
  workers: availableParallelism(),
  decodeAheadBytes: 512 * 2 ** 20,
};

export interface Input {
  mesh: Mesh;
  views: RegisteredView[];
  images: ImageRef[];
}

export interface Output {
  textured: TexturedMesh | null;
  report: StageReport;
}

function medianEdgeLength(mesh: Mesh): number {
  const step = Math.max(1, Math.floor(mesh.faceCount / 20_000));
  const lengths: number[] = [];
  const p = mesh.positions;
  for (let f = 0; f < mesh.faceCount; f += step) {
    const a = 3 * mesh.indices[3 * f], b = 3 * mesh.indices[3 * f + 1];
    lengths.push(Math.hypot(p[a] - p[b], p[a + 1] - p[b + 1], p[a + 2] - p[b + 2]));
  }
  lengths.sort((x, y) => x - y);
  return lengths[lengths.length >> 1] ?? 0;
}

/** Pixel position of every chart vertex in its view's photo at `baseScale` (NaN for untextured charts). */
function chartVertexPixels(mesh: Mesh, charted: ChartedMesh, views: RegisteredView[], baseScale: number[]): Float32Array {
  const pixels = new Float32Array(2 * charted.sourceVertex.length).fill(NaN);
  const byView = new Map<number, number[]>();
  for (let v = 0; v < charted.sourceVertex.length; v++) {
    const view = charted.charts[charted.vertexChart[v]].view;
    if (view === UNSEEN) continue;
    let list = byView.get(view);
    if (!list) byView.set(view, (list = []));
    list.push(v);
  }
  for (const [view, list] of byView) {
    const proj = projectVertices(mesh.positions, views[view].camFromWorld, views[view].intrinsics, baseScale[view]);
    for (const v of list) {
      pixels[2 * v] = proj.px[charted.sourceVertex[v]];
      pixels[2 * v + 1] = proj.py[charted.sourceVertex[v]];
    }
  }
  return pixels;
}

function chartBoxes(charted: ChartedMesh, pixels: Float32Array): Array<[number, number, number, number] | null> {
  const boxes: Array<[number, number, number, number] | null> = charted.charts.map((c) => (c.view === UNSEEN ? null : [Infinity, Infinity, -Infinity, -Infinity]));
  for (let v = 0; v < charted.sourceVertex.length; v++) {
    const box = boxes[charted.vertexChart[v]];
    if (!box) continue;
    const x = pixels[2 * v], y = pixels[2 * v + 1];
    box[0] = Math.min(box[0], x); box[1] = Math.min(box[1], y); box[2] = Math.max(box[2], x); box[3] = Math.max(box[3], y);
  }
  return boxes;
}

/** Seam pairs (copies of one mesh vertex in two textured charts) and the edges inside textured charts. */
function levellingGraph(mesh: Mesh, charted: ChartedMesh): { seamPairs: Uint32Array; chartEdges: Uint32Array } {
  const textured = (v: number): boolean => charted.charts[charted.vertexChart[v]].view !== UNSEEN;
  // The textured copies of each mesh vertex, grouped by it (typed arrays, not a map of lists).
  const sources = mesh.vertexCount;
  const start = new Uint32Array(sources + 1);
  for (let v = 0; v < charted.sourceVertex.length; v++) if (textured(v)) start[charted.sourceVertex[v] + 1]++;
  for (let s = 0; s < sources; s++) start[s + 1] += start[s];
  const copies = new Uint32Array(start[sources]);
  const cursor = start.slice(0, sources);
  for (let v = 0; v < charted.sourceVertex.length; v++) if (textured(v)) copies[cursor[charted.sourceVertex[v]]++] = v;
  // Pairs group by group, the groups in the order of their first copy.
  const seamPairs: number[] = [];
  for (let v = 0; v < charted.sourceVertex.length; v++) {
    if (!textured(v)) continue;
    const source = charted.sourceVertex[v];
    if (copies[start[source]] !== v) continue;
    for (let i = start[source]; i < start[source + 1]; i++) for (let j = i + 1; j < start[source + 1]; j++) seamPairs.push(copies[i], copies[j]);
  }
  const texturedFace = (f: number): boolean => charted.charts[charted.faceChart[f]].view !== UNSEEN;
  let texturedFaces = 0;
  for (let f = 0; f < mesh.faceCount; f++) if (texturedFace(f)) texturedFaces++;
  const chartEdges = new Uint32Array(6 * texturedFaces);
  for (let f = 0, at = 0; f < mesh.faceCount; f++) {
    if (!texturedFace(f)) continue;
    for (let k = 0; k < 3; k++, at += 2) {
      chartEdges[at] = charted.indices[3 * f + k];
      chartEdges[at + 1] = charted.indices[3 * f + ((k + 1) % 3)];
    }
  }
  return { seamPairs: Uint32Array.from(seamPairs), chartEdges };
}

/** Each textured chart vertex's photo colour (3×3 box mean at its atlas-scale pixel; NaN for the others), one task per photo. */
async function sampleChartVertices(charted: ChartedMesh, chartsByView: Map<number, number[]>, atlasPixels: Float32Array, atlasPhoto: (view: number) => Promise<PhotoOf>, runner: TaskRunner<ViewTask, ViewTaskResult>): Promise<Float32Array> {
  const vertexCount = charted.sourceVertex.length;
  const colours = new Float32Array(3 * vertexCount).fill(NaN);
  const viewOfChart = new Int32Array(charted.charts.length).fill(-1);
  for (const [view, list] of chartsByView) for (const c of list) viewOfChart[c] = view;
  const verticesOf = new Map<number, number[]>();
  for (let v = 0; v < vertexCount; v++) {
    const view = viewOfChart[charted.vertexChart[v]];
    if (view < 0) continue;
    const list = verticesOf.get(view);
    if (list) list.push(v); else verticesOf.set(view, [v]);
  }
  await Promise.all([...verticesOf].map(async ([view, vertices]) => {
    const pixels = new Float32Array(2 * vertices.length);
    vertices.forEach((v, k) => { pixels[2 * k] = atlasPixels[2 * v]; pixels[2 * k + 1] = atlasPixels[2 * v + 1]; });
    const sampled = (await runner.run({ kind: "sample", ...(await atlasPhoto(view)), pixels })) as Float32Array;
    vertices.forEach((v, k) => colours.set(sampled.subarray(3 * k, 3 * k + 3), 3 * v));
  }));
  return colours;
}

/** A chart's faces in its rectangle's local texels, with their vertices' corrections (paint.ts). */
function chartFacesOf(mesh: Mesh, charted: ChartedMesh, faceChart: Uint32Array | number[], atlasPixels: Float32Array, corrections: Float32Array): (chart: number, placement: { photoX: number; photoY: number }) => ChartFaces {
  const vertexCount = charted.sourceVertex.length;
  const chartCount = charted.charts.length;
  const facesOfChart = Array.from({ length: chartCount }, () => [] as number[]);
  for (let f = 0; f < mesh.faceCount; f++) facesOfChart[faceChart[f]].push(f);
  const chartFirstVertex = new Uint32Array(chartCount + 1).fill(vertexCount);
  for (let v = vertexCount - 1; v >= 0; v--) chartFirstVertex[charted.vertexChart[v]] = v;
  for (let c = chartCount - 1; c >= 0; c--) chartFirstVertex[c] = Math.min(chartFirstVertex[c], chartFirstVertex[c + 1]);
  return (c, placement) => {
    // splitVertices appends each chart's vertices as one contiguous run.
    const first = chartFirstVertex[c], last = chartFirstVertex[c + 1];
    const faces = facesOfChart[c];
    const triangles = new Uint32Array(3 * faces.length);
    for (let i = 0; i < faces.length; i++) for (let k = 0; k < 3; k++) triangles[3 * i + k] = charted.indices[3 * faces[i] + k] - first;
    const local = new Float32Array(2 * (last - first));
    for (let v = first; v < last; v++) {
      local[2 * (v - first)] = atlasPixels[2 * v] - placement.photoX;
      local[2 * (v - first) + 1] = atlasPixels[2 * v + 1] - placement.photoY;
    }
    return { local, triangles, corrections: corrections.slice(3 * first, 3 * last) };
  };
}

/** The texture; on `workers` when given (the caller closes them), else on threads of its own (opts.workers). */
export async function run(input: Input, options?: Partial<Options>, progress?: ProgressFn, workers?: TextureWorkers, photos?: PhotoStore): Promise<Output> {
  const opts: Options = { ...DEFAULTS, ...options };
  const own = workers ? null : startWorkers(opts.workers, input.mesh.faceCount > 0 ? input.views.length : 0);
  // Without photos decoded ahead (the pipeline starts them during the mesh), each is still decoded once here rather than by each of its tasks.
  const store = photos ?? (input.mesh.faceCount > 0 ? decodePhotosAhead(input.views, input.images, opts) : undefined);
  try {
    return await texture(input, opts, (workers ?? own!).runner, progress, store);
  } finally {
    if (!photos) store?.close();
    await own?.close();
  }
}

/** What each photo sees (view-scan.ts), in the views' order; the names of the photos that could not be read. */
async function scanPhotos(input: Input, imageByIndex: Map<number, ImageRef>, photoOf: (view: number, scale: number) => Promise<PhotoOf>, baseScale: number[], scan: ScanOptions, runner: TaskRunner<ViewTask, ViewTaskResult>, progress?: ProgressFn): Promise<{ observations: ViewObservations[]; unreadable: string[] }> {
  const { mesh, views } = input;
  const sharedMesh = { positions: shared(mesh.positions), indices: shared(mesh.indices), faceCount: mesh.faceCount };
  const geometry = faceGeometry(mesh);
  const faces = { normals: shared(geometry.normals), centroids: shared(geometry.centroids) };
  let done = 0;
  const scanned = views.map((_, v) => v).filter((v) => imageByIndex.has(views[v].imageIndex));
  const results = await Promise.all(scanned.map(async (v) => {
    try {
      return (await runner.run({ kind: "scan", ...(await photoOf(v, baseScale[v])), mesh: sharedMesh, faces, viewIndex: v, options: scan })) as ViewObservations;
    } catch (error) {
      // A photo is one colour source among several: one that cannot be decoded is left out.
      if (error instanceof Error && error.message.startsWith(UNREADABLE_PHOTO)) return null;
      throw error;
    } finally {
      progress?.((0.5 * ++done) / views.length);
    }
  }));
  return {
    observations: results.filter((o): o is ViewObservations => o !== null),
    unreadable: scanned.filter((_, k) => results[k] === null).map((v) => views[v].name),
  };
}

async function texture(input: Input, opts: Options, runner: TaskRunner<ViewTask, ViewTaskResult>, progress?: ProgressFn, photos?: PhotoStore): Promise<Output> {
  const started = performance.now();
  const { mesh, views } = input;
  const counts: Record<string, number> = { faces: mesh.faceCount, views: views.length };
  const warnings: string[] = [];
  let lapStart = started;
  const lap = (phase: string): void => { const now = performance.now(); counts[`ms_${phase}`] = Math.round(now - lapStart); lapStart = now; };
  const report = (): StageReport => ({ stage: NAME, wallMs: performance.now() - started, counts, warnings });
  const imageByIndex = new Map(input.images.map((image) => [image.index, image]));
  if (mesh.faceCount === 0 || views.length === 0) return { textured: null, report: report() };

  // 1. What each photo sees.
  const baseScale = views.map((view) => photoScale(view, opts.photoMaxSide));
  // A view's photo at a scale: decoded already when the store holds it at that size.
  let fromStore = 0;
  const photoOf = async (v: number, scale: number): Promise<PhotoOf> => {
    const path = imageByIndex.get(views[v].imageIndex)!.path;
    const { width, height } = photoSize(views[v].intrinsics, scale);
    const photo = photos ? await photos.get(path, width, height) : null;
    if (photo) fromStore++;
    return { path, view: views[v], scale, ...(photo ? { photo } : {}) };
  };
  const scan: ScanOptions = { depthTolerance: opts.depthToleranceEdges * medianEdgeLength(mesh), minCosine: opts.minCosine, grazingMinCosine: opts.grazingMinCosine, borderPixels: opts.padding + 1, frontalPower: opts.frontalPower };
  const scanned = await scanPhotos(input, imageByIndex, photoOf, baseScale, scan, runner, progress);
  // The faces' adjacency on a thread the scan has freed, while this one gathers the candidates;
  // if the thread fails, found here.
  const adjacencyThere = runner.run({ kind: "adjacency", indices: mesh.indices, faceCount: mesh.faceCount }).catch(() => null) as Promise<FaceAdjacency | null>;
  if (scanned.unreadable.length > 0) warnings.push(`could not read ${scanned.unreadable.join(", ")}; not used for the texture`);
  const fallbacks = dropFallbacks(scanned.observations, mesh.faceCount);
  const observations = fallbacks.observations;
  counts.fallbackObservations = fallbacks.kept;
  lap("scan");

  // 2. One view per face.
  const candidates = gatherCandidates(mesh.faceCount, observations);
  // The photo-consistency check is per face: the second half of the faces on the other thread.
  const half = Math.floor(mesh.faceCount / 2);
  const secondHalf = { offsets: candidates.offsets, colours: candidates.colours };
  const secondThere = runner.run({ kind: "consistency", candidates: secondHalf, consistencyRadius: opts.consistencyRadius, from: half, to: mesh.faceCount }).catch(() => null) as Promise<Consistency | null>;
  const firstHalf = consistencyOf(candidates, opts.consistencyRadius, 0, half);
  const consistency = joinConsistency(firstHalf, (await secondThere) ?? consistencyOf(candidates, opts.consistencyRadius, half, mesh.faceCount));
  const adjacency = (await adjacencyThere) ?? faceAdjacency(mesh.indices, mesh.faceCount);
  const selection = selectViews(candidates, consistency.keep, adjacency, opts.smoothness, opts.maxSweeps);
  let regionMoves = 0;
  for (let pass = 0; pass < 4; pass++) {
    const moved = mergeRegions(selection.labels, candidates, consistency.keep, adjacency, opts.smoothness, opts.regionMoveFaces);
    regionMoves += moved;
    if (moved === 0) break;
  }
  counts.regionMoves = regionMoves;
  let unseenFaces = 0;
  for (const label of selection.labels) if (label === UNSEEN) unseenFaces++;
  Object.assign(counts, { candidateViews: candidates.views.length, inconsistentViewsDropped: consistency.dropped, labelSweeps: selection.sweeps, labelChanges: selection.changed, untexturedFaces: unseenFaces });
  lap("select");

  // 3. Charts and their place in the pages.
  const { charts, faceChart } = buildCharts(selection.labels, adjacency);
  const charted = splitVertices(mesh, charts, faceChart);
  const basePixels = chartVertexPixels(mesh, charted, views, baseScale);
  const layout = layoutAtlas(chartBoxes(charted, basePixels), { maxPageSize: opts.maxPageSize, maxPages: opts.maxPages, padding: opts.padding });
  Object.assign(counts, { charts: charts.length, vertices: charted.sourceVertex.length, pages: layout.pageSizes.length, texelScale: layout.scale });
  lap("layout");
  progress?.(0.6);

  // Charts by view, so each photo is decoded once per pass at the atlas scale.
  const chartsByView = new Map<number, number[]>();
  charts.forEach((chart, c) => {
    if (chart.view === UNSEEN || !layout.placements[c]) return;
    const list = chartsByView.get(chart.view);
    if (list) list.push(c); else chartsByView.set(chart.view, [c]);
  });
  const vertexCount = charted.sourceVertex.length;
  const atlasPixels = new Float32Array(2 * vertexCount);
  for (let i = 0; i < atlasPixels.length; i++) atlasPixels[i] = basePixels[i] * layout.scale;
  const atlasPhoto = (view: number) => photoOf(view, baseScale[view] * layout.scale);

  // 4. Seam levelling.
  let corrections: Float32Array = new Float32Array(3 * vertexCount);
  if (opts.levelling) {
    const colours = await sampleChartVertices(charted, chartsByView, atlasPixels, atlasPhoto, runner);
    const graph = levellingGraph(mesh, charted);
    const seamPairs = consistentSeams(graph.seamPairs, colours, opts.levellingMaxSeamDifference);
    const targets = chartTargets(colours, charted.indices, consensusShifts(candidates, consistency.consensus, selection.labels));
    const solveStarted = performance.now();
    const solved = await solveChannels({ vertexCount, colours, chartEdges: graph.chartEdges, seamPairs, targets }, { edgeWeight: opts.levellingEdgeWeight, regularisation: 1e-3, maxIterations: 1500, tolerance: 1e-4, targetWeight: opts.levellingTargetWeight, maxTargetDifference: opts.levellingMaxTargetDifference }, runner);
    corrections = solved.corrections;
    counts.ms_levellingSolve = Math.round(performance.now() - solveStarted);
    let sum = 0;
    for (const c of corrections) sum += Math.abs(c);
    Object.assign(counts, { seamPairs: graph.seamPairs.length / 2, seamPairsLeftOut: (graph.seamPairs.length - seamPairs.length) / 2, levellingIterations: Math.max(...solved.iterations), meanAbsCorrection: vertexCount > 0 ? sum / (3 * vertexCount) : 0 });
  }
  lap("levelling");
  progress?.(0.75);

  // 5. Paint the pages: shared, so that each photo's task paints its charts in place.
  const pages: TexturePage[] = layout.pageSizes.map(({ width, height }) => ({ width, height, rgb: new Uint8Array(new SharedArrayBuffer(3 * width * height)).fill(128) }));
  const chartFaces = chartFacesOf(mesh, charted, faceChart, atlasPixels, corrections);
  await Promise.all([...chartsByView].map(async ([view, list]) => {
    const task: PaintTask = { kind: "paint", ...(await atlasPhoto(view)), pages, charts: list.map((c) => ({ placement: layout.placements[c]!, faces: chartFaces(c, layout.placements[c]!) })), spreadPasses: opts.padding + 2 };
    return runner.run(task);
  }));
  counts.photoReadsDecodedAhead = fromStore;
  lap("paint");
  progress?.(0.95);

  // 6. The split mesh with its UVs.
  const uvs = new Float32Array(2 * vertexCount);
  for (let v = 0; v < vertexCount; v++) {
    const placement = layout.placements[charted.vertexChart[v]];
    if (!placement) continue;
    const page = layout.pageSizes[placement.page];
    uvs[2 * v] = (placement.pageX + atlasPixels[2 * v] - placement.photoX) / page.width;
    uvs[2 * v + 1] = (placement.pageY + atlasPixels[2 * v + 1] - placement.photoY) / page.height;
  }
  const facePage = new Uint16Array(mesh.faceCount);
  const faceView = new Int32Array(mesh.faceCount).fill(-1);
  for (let f = 0; f < mesh.faceCount; f++) {
    const placement = layout.placements[faceChart[f]];
    facePage[f] = placement?.page ?? pages.length;
    if (placement) faceView[f] = charts[faceChart[f]].view;
  }
  const positions = new Float32Array(3 * vertexCount), normals = new Float32Array(3 * vertexCount), colors = new Uint8Array(3 * vertexCount);
  for (let v = 0; v < vertexCount; v++) {
    const s = charted.sourceVertex[v];
    for (let k = 0; k < 3; k++) {
      positions[3 * v + k] = mesh.positions[3 * s + k];
      normals[3 * v + k] = mesh.normals[3 * s + k];
      colors[3 * v + k] = mesh.colors[3 * s + k];
    }
  }
  const split: Mesh = { vertexCount, faceCount: mesh.faceCount, positions, normals, colors, indices: charted.indices };
  lap("assemble");
  progress?.(1);
  return { textured: { mesh: split, uvs, facePage, faceView, pages }, report: report() };
}
