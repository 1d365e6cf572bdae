/** @module The types of PatchMatch's input and output (patchmatch.ts solves, patchmatch-state.ts holds one level's planes). */
import type { CostKernel } from "./kernel.js";
import type { WindowPattern } from "./window.js";
import type { PlanarPriorParams } from "./planar-prior.js";
import type { PinholeGrey } from "./undistort.js";

export interface PatchMatchParams {
  iterations: number;
  /** Window half-size in samples (3 → 7×7 samples). */
  windowRadius: number;
  /** Pixels between window samples (2 → a 7×7 window covers 13×13 pixels). */
  windowStep: number;
  /** Which of the window's samples are scored: all, or those of one checkerboard colour (window.ts). */
  windowPattern?: WindowPattern;
  /** The pattern of the levels solved before this one (pyramid.ts); absent: windowPattern. */
  coarseWindowPattern?: WindowPattern;
  /** Number of best source costs averaged per hypothesis. */
  bestK: number;
  /** Bilateral weight scales: grey difference (0..1) and distance in pixels. */
  sigmaColor: number;
  sigmaSpatial: number;
  kernel: "wasm" | "typescript";
  seed: number;
  /**
   * Coarser levels, each half the size of the one above, solved first (0 = a single scale).
   * A coarse level's planes seed the finer one, which then needs only refineIterations.
   */
  pyramidLevels: number;
  /** Red–black iterations at a level seeded from the coarser one. */
  refineIterations: number;
  /**
   * After the working level's iterations (when it is seeded from a coarser one), one more
   * red–black sweep of propagation alone, from the adjacent pixels whose plane changed since the
   * pixel was last visited; absent or false: none.
   */
  finalPropagation?: boolean;
  /**
   * Coarser levels solved first whatever the image's size (a strip of a view solves the levels
   * its whole view has, strips.ts); absent: up to pyramidLevels, while the image is large enough.
   */
  coarseLevels?: number;
  /** A narrower window for textured pixels on the levels seeded from a coarser one (TexturedWindow); absent: none. */
  texturedWindow?: TexturedWindow;
  /** Planar priors (planar-prior.ts), built on the coarsest level and used on every level above it; absent or weight 0: none. */
  planarPrior?: PlanarPriorParams;
}

/**
 * The window a textured pixel takes on a level that refines the planes a coarser level found:
 * windowStep replaced by `step` where the narrower window's grey values spread by at least
 * `minStd` (0..1, bilateral-weighted). A window that straddles a depth edge gives the pixels within
 * its reach the depth of the edge's textured side (foreground fattening), so a narrower window
 * narrows that band; a plain or dark pixel keeps the wide window, whose many pixels of texture
 * hold its match.
 */
export interface TexturedWindow {
  step: number;
  minStd: number;
  /**
   * A lower `minStd` for pixels near a depth edge of the seeded planes: where a neighbour at the
   * wide window's reach lies off the pixel's plane by more than `depth` of its depth (depth-edges.ts).
   * Absent: minStd everywhere, the default (docs/decisions.md, "A narrower window near the seeded
   * planes' depth edges: tried, not kept").
   */
  edge?: { minStd: number; depth: number };
  /**
   * A lower `minStd` for pixels whose seeded plane faces the camera (cosine to the ray at least
   * `minCosine`, depth-edges.ts frontalPlaneMask); with `edge` too, a pixel must pass both and takes
   * the lower of the two. Absent: no frontal test, the default (docs/decisions.md, "A narrower window
   * on planes that face the camera: tried, not kept").
   */
  frontal?: { minStd: number; minCosine: number };
}

export interface SourceCamera extends PinholeGrey {
  /** srcFromRef rigid transform. */
  R: Float64Array;
  t: Float64Array;
}

/** The reference image (a PinholeGrey) and its sources. */
export interface PatchMatchInput extends PinholeGrey {
  sources: SourceCamera[];
  depthMin: number;
  depthMax: number;
  params: PatchMatchParams;
  /**
   * For the last sources, in order: the boxes [x0, x1, y0, y1) in normalised image coordinates
   * ((u − cx) / focal) where each counts in the cost (a source added for part of the frame,
   * select.ts withFrameCover()). A pixel's cost takes the sources up to the last one whose box
   * holds it (kernels score a leading run of sources). Absent: every source everywhere.
   */
  addedSourceBoxes?: Array<Array<[number, number, number, number]>>;
  /** The box [x0, x1, y0, y1) of pixels the output's counts (priorPixels) cover: a strip's own part (strips.ts); absent, the whole image. */
  figureBox?: [number, number, number, number];
}

export interface PatchMatchOutput {
  /** Depth per pixel (0 = not estimated: image border). */
  depth: Float32Array;
  /** Unit normal per pixel, reference camera frame (3·w·h). */
  normal: Float32Array;
  /** Aggregated photometric cost per pixel in [0, 2] (without the prior's share). */
  cost: Float32Array;
  /** With planar priors: 1 where the pixel's plane agrees with its prior (planar-prior.ts agreesWithPrior). */
  priorAgrees?: Uint8Array;
  /** Prior triangles, and pixels of this level inside one. */
  priorTriangles?: number;
  priorPixels?: number;
  kernel: CostKernel["name"];
  /** Plane hypotheses scored (each against every source view). */
  evaluations: number;
  /** Pixels (of the figure box) of the working level given the narrow window's lower grey spread (TexturedWindow.edge, .frontal). */
  edgePixels?: number;
}
