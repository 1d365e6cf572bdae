/**
 * @module The texture stage's work on one photo, on a worker thread (worker.ts) or the calling
 * one: scanning what the photo sees (view-scan.ts), sampling its colours at the chart vertices
 * for the seam levelling, and painting its charts into the pages (paint.ts); one colour
 * channel of the levelling's solve; and the faces' adjacency and half of their photo-consistency
 * check, which the view selection needs. A task decodes its photo itself, unless the photo was decoded
 * ahead into shared memory (photo-store.ts): photos never cross threads as copies. The
 * mesh and the pages are shared (SharedArrayBuffer), not copied: the charts of different photos
 * cover disjoint rectangles of the pages, so painters never write the same texel.
 */
import type { Mesh, RegisteredView, TexturePage } from "../../scene/index.js";
import type { ChartPlacement } from "./atlas-layout.js";
import { solveLevellingChannel, type LevellingOptions, type LevellingProblem } from "./levelling.js";
import { paintChart, type ChartFaces } from "./paint.js";
import { consistencyOf, faceAdjacency, type Consistency, type FaceAdjacency, type FaceCandidates } from "./select-views.js";
import { boxMean, loadPhoto } from "./photo.js";
import { scanView, type LoadedPhoto, type ScanOptions, type ViewObservations } from "./view-scan.js";

/** The photo a task reads: its file, its view, and the scale of the view's intrinsics to decode it at; already decoded (in shared memory) when `photo` is given. */
export interface PhotoOf {
  path: string;
  view: RegisteredView;
  scale: number;
  photo?: LoadedPhoto;
}

export interface ScanTask extends PhotoOf {
  kind: "scan";
  mesh: Pick<Mesh, "positions" | "indices" | "faceCount">;
  faces: { normals: Float32Array; centroids: Float32Array };
  viewIndex: number;
  options: ScanOptions;
}

export interface SampleTask extends PhotoOf {
  kind: "sample";
  /** Pixel positions (x, y) in the photo at `scale` of the vertices to sample. */
  pixels: Float32Array;
}

export interface PaintTask extends PhotoOf {
  kind: "paint";
  pages: TexturePage[];
  charts: Array<{ placement: ChartPlacement; faces: ChartFaces }>;
  spreadPasses: number;
}

/** One colour channel of the seam levelling (levelling.ts): not a photo's work, but as long as one's. */
export interface LevelTask {
  kind: "level";
  problem: LevellingProblem;
  options: LevellingOptions;
  channel: number;
}

/**
 * The mesh's face adjacency (select-views.ts): found on a thread while the calling one gathers and
 * checks the faces' candidate views, after the scan (during it both threads are busy).
 */
export interface AdjacencyTask {
  kind: "adjacency";
  indices: Uint32Array;
  faceCount: number;
}

/** The photo-consistency check (select-views.ts consistencyOf) over faces from … to − 1: the calling thread checks the others. */
export interface ConsistencyTask {
  kind: "consistency";
  candidates: Pick<FaceCandidates, "offsets" | "colours">;
  consistencyRadius: number;
  from: number;
  to: number;
}

export type ViewTask = ScanTask | SampleTask | PaintTask | LevelTask | AdjacencyTask | ConsistencyTask;

/** A scan's observations, a sample's colours (3 per pixel position), a channel's levelling, the faces' adjacency, a range's consistency, or nothing for a paint. */
export type ViewTaskResult = ViewObservations | Float32Array | ReturnType<typeof solveLevellingChannel> | FaceAdjacency | Consistency | null;

/** How a task's error starts when its photo could not be decoded (the message crosses threads, the class does not). */
export const UNREADABLE_PHOTO = "texture: the photo could not be read";

export async function runViewTask(task: ViewTask): Promise<{ value: ViewTaskResult; transfer?: ArrayBuffer[] }> {
  if (task.kind === "level") {
    const solved = solveLevellingChannel(task.problem, task.options, task.channel);
    return { value: solved, transfer: [solved.corrections.buffer as ArrayBuffer] };
  }
  if (task.kind === "consistency") {
    const checked = consistencyOf(task.candidates, task.consistencyRadius, task.from, task.to);
    return { value: checked, transfer: [checked.keep.buffer as ArrayBuffer, checked.consensus.buffer as ArrayBuffer] };
  }
  if (task.kind === "adjacency") {
    const adjacency = faceAdjacency(task.indices, task.faceCount);
    return { value: adjacency, transfer: [adjacency.offsets.buffer as ArrayBuffer, adjacency.neighbours.buffer as ArrayBuffer] };
  }
  let photo: LoadedPhoto;
  try {
    photo = task.photo ?? (await loadPhoto(task.path, task.view.intrinsics, task.scale));
  } catch (error) {
    throw new Error(`${UNREADABLE_PHOTO}: ${task.path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  switch (task.kind) {
    case "scan": {
      const seen = scanView(task.mesh, task.faces, task.view, task.viewIndex, photo, task.options);
      return { value: seen, transfer: [seen.faces.buffer, seen.quality.buffer, seen.colours.buffer, seen.fallback.buffer] as ArrayBuffer[] };
    }
    case "sample": {
      const colours = new Float32Array((3 * task.pixels.length) / 2);
      for (let v = 0; 2 * v < task.pixels.length; v++) boxMean(photo, task.pixels[2 * v], task.pixels[2 * v + 1], colours, 3 * v);
      return { value: colours, transfer: [colours.buffer] };
    }
    case "paint":
      for (const chart of task.charts) paintChart(task.pages[chart.placement.page], photo, chart.placement, chart.faces, task.spreadPasses);
      return { value: null };
  }
}
