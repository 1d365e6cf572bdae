/**
 * @module One image's share of the keypoints stage, as a task a worker thread runs: decode the
 * image into a pyramid (sharp, in the worker), then either cut the reference patches of the
 * tracks whose reference lies in it, or align its other observations to their tracks'
 * references. Patches live in one SharedArrayBuffer that every worker reads and writes.
 */
import sharp from "sharp";
import type { TransferListItem } from "node:worker_threads";
import { alignLevel, alignPatch, alignScratch, patchOffsets, referencePatch, type AlignOptions, type AlignOutcome } from "./align.js";
import { nativeAlign, type AlignAddon } from "./native-align.js";
import { buildPyramid, releasePyramid, withGradients, type Pyramid } from "./pyramid.js";

export interface ImageTaskBase {
  path: string;
  width: number;
  height: number;
  levels: number;
  align: AlignOptions;
  /** One patch of (2·patchRadius + 1)² floats per track. */
  patches: SharedArrayBuffer;
  /** The observations of this image: their track, position and patch spacing (level-0 pixels). */
  tracks: Uint32Array;
  xy: Float32Array;
  /** Doubles, like the warps they start: in float32 the rounding alone moved templeSparseRing's cameras by up to 1.8° (a chaotic set). */
  spacing: Float64Array;
}

/** Cut each observation's patch as its track's reference. */
export interface ReferenceTask extends ImageTaskBase {
  kind: "references";
}

/** Align each observation to its track's reference; `warp` holds its starting similarity (scale ratio, angle) per observation. */
export interface AlignTask extends ImageTaskBase {
  kind: "align";
  scaleRatio: Float64Array;
  angle: Float64Array;
  /** Largest change of the patch's scale the alignment may make, as a factor either way. */
  maxScaleChange: number;
}

export type ImageTask = ReferenceTask | AlignTask;

/** Outcome codes per observation. */
export const OUTCOMES = ["aligned", "outside", "diverged", "dissimilar", "flatReference", "reference"] as const;
export type Outcome = (typeof OUTCOMES)[number];

export interface ImageTaskResult {
  /** Refined positions (align) or the same positions (references). */
  xy: Float32Array;
  /** Index into OUTCOMES per observation. */
  outcome: Uint8Array;
}

async function loadPyramid(task: ImageTaskBase): Promise<Pyramid> {
  const { data, info } = await sharp(task.path).greyscale().raw().toBuffer({ resolveWithObject: true });
  if (info.width !== task.width || info.height !== task.height) throw new Error(`keypoints: ${task.path} decodes to ${info.width}×${info.height}, expected ${task.width}×${task.height}`);
  return buildPyramid(new Uint8Array(data.buffer, data.byteOffset, info.width * info.height), info.width, info.height, task.levels);
}

const code = (outcome: Outcome) => OUTCOMES.indexOf(outcome);

function cutReferences(task: ReferenceTask, pyramid: Pyramid, result: ImageTaskResult): void {
  const offsets = patchOffsets(task.align.patchRadius);
  const size = offsets.length / 2;
  const patches = new Float32Array(task.patches);
  for (let o = 0; o < task.tracks.length; o++) {
    const patch = patches.subarray(task.tracks[o] * size, (task.tracks[o] + 1) * size);
    const ok = referencePatch(pyramid, task.xy[2 * o], task.xy[2 * o + 1], task.spacing[o], offsets, task.align.minContrast, patch);
    result.outcome[o] = code(ok ? "reference" : "flatReference");
  }
}

/** Observation o's starting warp (the similarity of its keypoints' scale ratio and angle) into warp at 6·o. */
function startingWarp(task: AlignTask, o: number, warp: Float64Array, at: number): void {
  const ratio = task.scaleRatio[o];
  warp.set([0, 0, ratio * Math.cos(task.angle[o]), -ratio * Math.sin(task.angle[o]), ratio * Math.sin(task.angle[o]), ratio * Math.cos(task.angle[o])], at);
}

/** The alignment's outcome kept, or turned into a divergence when the patch's scale ran off; the refined position written when aligned. */
function settle(task: AlignTask, result: ImageTaskResult, o: number, aligned: AlignOutcome, warp: Float64Array): void {
  const outcome = aligned === "aligned" && !scaleKept(warp, task.scaleRatio[o], task.maxScaleChange) ? "diverged" : aligned;
  result.outcome[o] = code(outcome);
  if (outcome !== "aligned") return;
  result.xy[2 * o] = task.xy[2 * o] + warp[0];
  result.xy[2 * o + 1] = task.xy[2 * o + 1] + warp[1];
}

function alignObservations(task: AlignTask, pyramid: Pyramid, result: ImageTaskResult): void {
  withGradients(pyramid);
  const offsets = patchOffsets(task.align.patchRadius);
  const size = offsets.length / 2;
  const patches = new Float32Array(task.patches);
  const native = nativeAlign();
  if (native) return alignObservationsNative(native, task, pyramid, result, offsets, patches);
  const scratch = alignScratch(task.align.patchRadius);
  const warp = new Float64Array(6);
  for (let o = 0; o < task.tracks.length; o++) {
    startingWarp(task, o, warp, 0);
    const aligned = alignPatch(pyramid, task.xy[2 * o], task.xy[2 * o + 1], patches.subarray(task.tracks[o] * size, (task.tracks[o] + 1) * size), task.spacing[o], offsets, warp, task.align, scratch);
    settle(task, result, o, aligned, warp);
  }
}

/** alignObservations in the addon (native-align.ts), with the same bits: the starting warps and their levels (Math.cos, sin, log2) are made here. */
function alignObservationsNative(native: AlignAddon, task: AlignTask, pyramid: Pyramid, result: ImageTaskResult, offsets: Float32Array, patches: Float32Array): void {
  const count = task.tracks.length;
  const warps = new Float64Array(6 * count);
  const levelOf = new Int32Array(count);
  for (let o = 0; o < count; o++) {
    startingWarp(task, o, warps, 6 * o);
    levelOf[o] = alignLevel(pyramid, task.spacing[o], warps.subarray(6 * o, 6 * o + 6));
  }
  const aligned = new Uint8Array(count);
  const { maxIterations, minZncc, maxShiftLevelPx } = task.align;
  native.alignObservations(pyramid.map((level) => [level.data, level.gx!, level.gy!]), Int32Array.from(pyramid, (level) => level.width), Int32Array.from(pyramid, (level) => level.height),
    task.xy, task.tracks, task.spacing, levelOf, warps, patches, offsets, maxIterations, minZncc, maxShiftLevelPx, aligned);
  for (let o = 0; o < count; o++) settle(task, result, o, OUTCOMES[aligned[o]] as AlignOutcome, warps.subarray(6 * o, 6 * o + 6));
}

/** Whether the aligned warp's scale stayed within `maxChange` of the keypoints' ratio. */
function scaleKept(warp: Float64Array, ratio: number, maxChange: number): boolean {
  const scale = Math.sqrt(Math.abs(warp[2] * warp[5] - warp[3] * warp[4]));
  return scale <= ratio * maxChange && scale >= ratio / maxChange;
}

export async function runImageTask(task: ImageTask): Promise<{ value: ImageTaskResult; transfer: TransferListItem[] }> {
  const pyramid = await loadPyramid(task);
  const result: ImageTaskResult = { xy: task.xy.slice(), outcome: new Uint8Array(task.tracks.length) };
  try {
    if (task.kind === "references") cutReferences(task, pyramid, result);
    else alignObservations(task, pyramid, result);
  } finally {
    // Its arrays serve this thread's next image (see pyramid.ts).
    releasePyramid(pyramid);
  }
  return { value: result, transfer: [result.xy.buffer, result.outcome.buffer] as ArrayBuffer[] };
}
