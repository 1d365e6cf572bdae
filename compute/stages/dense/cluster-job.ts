/**
 * @module One dense cluster as a self-contained job: everything its solve needs from the whole
 * model (its views' cameras, their source lists and depth ranges, which cluster owns each
 * view), and its result (the cluster's fused points and per-view figures).
 *
 * The in-process stage and a task on another container solve the same ClusterJob with the same
 * function (solve-cluster.ts), so a job spread over containers gives the same cloud as one
 * process. The job travels as JSON (its numbers round-trip IEEE doubles exactly), the result as
 * bytes with the point arrays copied raw.
 */
import type { Intrinsics, PointCloud, ViewDepth } from "../../scene/index.js";
import type { DenseCluster } from "./clusters.js";
import type { Options } from "./options.js";
import type { AddedSource } from "./select.js";
import type { ViewResult } from "./worker.js";

/** One view of the cluster (core or extra) with what the whole model says about it. */
export interface ClusterJobView {
  viewIndex: number;
  name: string;
  /** ImageRef.index of its photo: the task fetches that image. */
  imageIndex: number;
  intrinsics: Intrinsics;
  /** camFromWorld, row-major. */
  R: number[];
  t: number[];
  /** Its source views (all of them; the solve uses those loaded in the cluster). */
  sources: number[];
  /**
   * Of them, those added for a part of its frame the others miss (select.ts withFrameCover()), in
   * the order they end the list: each takes part in its cost only inside its boxes, and none raises
   * how many best sources the cost averages.
   */
  addedSources?: AddedSource[];
  /** Sparse depth range, or null when too few sparse points see it. */
  range: [number, number] | null;
  /** The cluster whose core holds this view. */
  home: number;
}

/** The dense options a cluster's solve uses: the stage's Options without the machine's own settings and those the plan already applied. */
export type ClusterSolveOptions = Omit<Options, "workers" | "keepDepthMaps" | "sourceViews" | "extraSourceViews" | "sourceFrameCells" | "minAngleDeg" | "maxAngleDeg" | "depthMargin" | "maxClusterViews">;

export interface ClusterJob {
  /** Index of the cluster in the plan (fusion yields to lower ones). */
  cluster: number;
  core: number[];
  extras: number[];
  views: ClusterJobView[];
  options: ClusterSolveOptions;
}

/** A core view's figures, once its cluster is fused. */
export interface CoreFigures {
  viewIndex: number;
  name: string;
  sources: number;
  pixels: number;
  valid: number;
  photometric: number;
  /** Pixels inside a planar prior's triangle, and those kept on their prior's word after the geometric filter. */
  priorPixels: number;
  keptOnPrior: number;
  /** Working-level pixels near a depth edge of their seeded planes (TexturedWindow.edge). */
  edgePixels: number;
  /** Pixels trimmed off as foreground fattening (edge-trim.ts), after the geometric filter. */
  fatteningTrimmed: number;
  /** Depths removed because other views see through them (free-space.ts). */
  seenThrough: number;
  /** The solve's wall time (a view in strips: its strips' summed). */
  wallMs: number;
  evaluations: number;
  kernel: ViewResult["kernel"];
  /** Strips it was solved as (1: whole). */
  strips: number;
}

export interface ClusterResult {
  cluster: number;
  cloud: PointCloud;
  core: CoreFigures[];
  warnings: string[];
  /** Working size of its views (0×0 when none was loaded). */
  workingSize: [number, number];
  /** Wall time of the solve's phases: loading the views, PatchMatch on all of them, filtering and fusion. */
  phaseMs: ClusterPhaseMs;
  /** Its core views' filtered depths, coarse (view-depth.ts); absent from a solve that did not make them. */
  viewDepths?: ViewDepth[];
}

export interface ClusterPhaseMs {
  load: number;
  patchMatch: number;
  fuse: number;
}

/** The plan's clusters as jobs: each carries only its own views. */
export function clusterJobs(
  clusters: DenseCluster[],
  views: Array<Omit<ClusterJobView, "sources" | "range" | "home">>,
  sources: number[][],
  ranges: Array<[number, number] | null>,
  options: ClusterSolveOptions,
  added: AddedSource[][] = [],
): ClusterJob[] {
  const home = new Int32Array(views.length);
  clusters.forEach((cluster, c) => cluster.core.forEach((v) => (home[v] = c)));
  return clusters.map((cluster, c) => ({
    cluster: c,
    core: cluster.core,
    extras: cluster.extras,
    views: [...cluster.core, ...cluster.extras].map((v) => ({ ...views[v], sources: sources[v], ...(added[v]?.length ? { addedSources: added[v] } : {}), range: ranges[v], home: home[v] })),
    options,
  }));
}

/** A cluster job read back from JSON (a task's payload), checked for the fields its solve reads. */
export function checkClusterJob(value: unknown): ClusterJob {
  const job = value as ClusterJob;
  const viewOk = (v: ClusterJobView) => Number.isInteger(v?.viewIndex) && Number.isInteger(v.imageIndex) && Array.isArray(v.R) && v.R.length === 9 && Array.isArray(v.t) && v.t.length === 3 && Array.isArray(v.sources) && typeof v.intrinsics === "object";
  if (!job || !Number.isInteger(job.cluster) || !Array.isArray(job.core) || !Array.isArray(job.extras) || !Array.isArray(job.views) || !job.views.every(viewOk) || typeof job.options !== "object") {
    throw new Error("dense: not a cluster job");
  }
  return job;
}

const RESULT_MAGIC = 0x44435231; // "DCR1"

/**
 * Layout: magic, header length (u32 LE), JSON header, padding to 4 bytes, positions, normals (f32),
 * colours (u8), padding to 4 bytes, then each view depth's cells (f32) in the header's order.
 */
export function encodeClusterResult(result: ClusterResult): Uint8Array {
  const { cloud } = result;
  const viewDepths = result.viewDepths?.map(({ viewIndex, width, height, scale }) => ({ viewIndex, width, height, scale }));
  const header = new TextEncoder().encode(JSON.stringify({ cluster: result.cluster, core: result.core, warnings: result.warnings, workingSize: result.workingSize, phaseMs: result.phaseMs, count: cloud.count, viewDepths }));
  const headerEnd = align4(8 + header.byteLength);
  const floats = 3 * cloud.count * 4;
  const cloudEnd = align4(headerEnd + 2 * floats + 3 * cloud.count);
  const depthBytes = (result.viewDepths ?? []).reduce((sum, d) => sum + 4 * d.width * d.height, 0);
  const bytes = new Uint8Array(cloudEnd + depthBytes);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, RESULT_MAGIC, true);
  view.setUint32(4, header.byteLength, true);
  bytes.set(header, 8);
  bytes.set(new Uint8Array(cloud.positions.buffer, cloud.positions.byteOffset, floats), headerEnd);
  bytes.set(new Uint8Array(cloud.normals.buffer, cloud.normals.byteOffset, floats), headerEnd + floats);
  bytes.set(cloud.colors.subarray(0, 3 * cloud.count), headerEnd + 2 * floats);
  let at = cloudEnd;
  for (const d of result.viewDepths ?? []) {
    bytes.set(new Uint8Array(d.depth.buffer, d.depth.byteOffset, 4 * d.width * d.height), at);
    at += 4 * d.width * d.height;
  }
  return bytes;
}

export function decodeClusterResult(bytes: Uint8Array): ClusterResult {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 8 || view.getUint32(0, true) !== RESULT_MAGIC) throw new Error("dense: not a cluster result");
  const headerLength = view.getUint32(4, true);
  type Header = Omit<ClusterResult, "cloud" | "viewDepths"> & { count: number; viewDepths?: Array<Omit<ViewDepth, "depth">> };
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength))) as Header;
  const headerEnd = align4(8 + headerLength);
  const floats = 3 * header.count * 4;
  const cloudEnd = align4(headerEnd + 2 * floats + 3 * header.count);
  const depthBytes = (header.viewDepths ?? []).reduce((sum, d) => sum + 4 * d.width * d.height, 0);
  if (bytes.byteLength !== cloudEnd + depthBytes) throw new Error("dense: truncated cluster result");
  // Copies: the arrays must be aligned and own their memory.
  const positions = new Float32Array(bytes.slice(headerEnd, headerEnd + floats).buffer);
  const normals = new Float32Array(bytes.slice(headerEnd + floats, headerEnd + 2 * floats).buffer);
  const colors = bytes.slice(headerEnd + 2 * floats, headerEnd + 2 * floats + 3 * header.count);
  let at = cloudEnd;
  const viewDepths = header.viewDepths?.map((d) => {
    const depth = new Float32Array(bytes.slice(at, at + 4 * d.width * d.height).buffer);
    at += 4 * d.width * d.height;
    return { ...d, depth };
  });
  return { cluster: header.cluster, core: header.core, warnings: header.warnings, workingSize: header.workingSize, phaseMs: header.phaseMs, cloud: { count: header.count, positions, normals, colors }, viewDepths };
}

function align4(n: number): number {
  return (n + 3) & ~3;
}
