/**
 * @module One view's PatchMatch as overlapping strips, one task each, stitched back into one
 * result. The dense stage solves one view per worker thread; an odd count of views on two threads
 * leaves one idle through the last view's solve (fountain-P11's 11 views: a sixth round of one
 * view, ~5 s with one core idle). Solving that last view as two strips fills the round
 * (solve-cluster.ts).
 *
 * A strip is the view cropped along its longer side, with STRIP_OVERLAP of the side beyond its own
 * part on each inner edge: a strip's border pixels have clamped windows and no neighbours outward,
 * and its coarsest level's windows reach ~24 px of the working image, so the overlap keeps that
 * out of the part it owns. Each pixel is taken from the strip that owns it. A strip is solved over
 * its whole view's pyramid (the same levels, at the same pixel sizes; by its own narrower size it
 * would get one level fewer). Propagation does not cross strips, each strip draws its own random
 * planes, and its planar prior is triangulated over its own part, so the stitched map is not the
 * one the whole view would give: test/compute/dense/strips.test.ts holds it to the same bounds.
 */
import { coarseLevelCount } from "./patchmatch.js";
import type { ViewResult, ViewTask } from "./worker.js";

/** Overlap beyond a strip's own part on each inner edge, as a share of the split side. */
const STRIP_OVERLAP = 0.06;
/** …and at least this many pixels. */
const MIN_OVERLAP_PX = 32;

/** A strip: the crop it is solved on and the part of it that it owns, in the view's pixels. */
export interface Strip {
  /** Crop origin and size. */
  x: number;
  y: number;
  width: number;
  height: number;
  /** The owned part: [ownFrom, ownTo) along the split axis. */
  ownFrom: number;
  ownTo: number;
  /** Split along x (columns) or y (rows). */
  axis: "x" | "y";
}

/** `count` strips of a width × height view, split along its longer side. */
export function stripsOf(width: number, height: number, count: number): Strip[] {
  const axis = width >= height ? "x" : "y";
  const side = axis === "x" ? width : height;
  const overlap = Math.max(MIN_OVERLAP_PX, Math.round(STRIP_OVERLAP * side));
  const strips: Strip[] = [];
  for (let k = 0; k < count; k++) {
    const ownFrom = Math.floor((k * side) / count);
    const ownTo = Math.floor(((k + 1) * side) / count);
    const from = Math.max(0, ownFrom - overlap);
    const to = Math.min(side, ownTo + overlap);
    strips.push(axis === "x" ? { x: from, y: 0, width: to - from, height, ownFrom, ownTo, axis } : { x: 0, y: from, width, height: to - from, ownFrom, ownTo, axis });
  }
  return strips;
}

/** The part a strip owns, [x0, x1, y0, y1) in the view's pixels. */
function ownBox(strip: Strip): [number, number, number, number] {
  return strip.axis === "x" ? [strip.ownFrom, strip.ownTo, strip.y, strip.y + strip.height] : [strip.x, strip.x + strip.width, strip.ownFrom, strip.ownTo];
}

/** The task of one strip: the reference image cropped, its principal point moved; sources as they are. */
export function stripTask(task: ViewTask, strip: Strip, seed: number): ViewTask {
  const grey = new Float32Array(strip.width * strip.height);
  for (let row = 0; row < strip.height; row++) {
    const from = (strip.y + row) * task.width + strip.x;
    grey.set(task.grey.subarray(from, from + strip.width), row * strip.width);
  }
  const [x0, x1, y0, y1] = ownBox(strip);
  return {
    ...task,
    width: strip.width,
    height: strip.height,
    cx: task.cx - strip.x,
    cy: task.cy - strip.y,
    grey,
    // Sources in shared memory (solve-cluster.ts) are read by both strips in place; others are
    // copied, as each strip's task hands its own buffers to its thread.
    sources: task.sources.map((s) => (s.grey.buffer instanceof ArrayBuffer ? { ...s, grey: s.grey.slice() } : s)),
    // The whole view's pyramid: a strip is too narrow for as many levels by its own size.
    params: { ...task.params, seed, coarseLevels: coarseLevelCount(task.width, task.height, task.params) },
    figureBox: [x0 - strip.x, x1 - strip.x, y0 - strip.y, y1 - strip.y],
  };
}

/** The view's result from its strips' (in stripsOf order): each pixel from the strip that owns it; counts summed. */
export function stitchStrips(task: ViewTask, strips: Strip[], parts: ViewResult[]): ViewResult {
  const { width } = task;
  const n = width * task.height;
  const depth = new Float32Array(n);
  const normal = new Float32Array(3 * n);
  const cost = new Float32Array(n);
  const withPrior = parts.some((p) => p.priorAgrees);
  const priorAgrees = withPrior ? new Uint8Array(n) : undefined;
  strips.forEach((strip, k) => {
    const part = parts[k];
    const [x0, x1, y0, y1] = ownBox(strip);
    for (let y = y0; y < y1; y++) {
      const to = y * width + x0;
      const from = (y - strip.y) * strip.width + (x0 - strip.x);
      const length = x1 - x0;
      depth.set(part.depth.subarray(from, from + length), to);
      cost.set(part.cost.subarray(from, from + length), to);
      normal.set(part.normal.subarray(3 * from, 3 * (from + length)), 3 * to);
      if (priorAgrees && part.priorAgrees) priorAgrees.set(part.priorAgrees.subarray(from, from + length), to);
    }
  });
  const sum = (f: (p: ViewResult) => number | undefined): number => parts.reduce((s, p) => s + (f(p) ?? 0), 0);
  const result: ViewResult = {
    viewIndex: task.viewIndex,
    depth,
    normal,
    cost,
    kernel: parts[0].kernel,
    evaluations: sum((p) => p.evaluations),
    wallMs: sum((p) => p.wallMs),
    strips: strips.length,
    edgePixels: sum((p) => p.edgePixels),
  };
  if (priorAgrees) Object.assign(result, { priorAgrees, priorTriangles: sum((p) => p.priorTriangles), priorPixels: sum((p) => p.priorPixels) });
  return result;
}
