/** @module The dense stage's options and their defaults (index.ts runs the stage; cluster-job.ts carries the part a cluster's solve uses). */
import { availableParallelism } from "node:os";
import type { EdgeTrimOptions } from "./edge-trim.js";
import type { FreeSpaceOptions } from "./free-space.js";
import { NO_PLANAR_PRIOR, type PlanarPriorParams } from "./planar-prior.js";
import type { TexturedWindow } from "./patchmatch-types.js";
import type { WindowPattern } from "./window.js";

export interface Options {
  /** Working resolution (longest side, px); the quality presets use 480, 800 and 1600. */
  maxImageSide: number;
  /** Source views per reference view. */
  sourceViews: number;
  /** PatchMatch red–black iterations (at the coarsest level when pyramidLevels > 0). */
  iterations: number;
  /** Half-size levels solved first, coarse to fine (0 = the working resolution only). */
  pyramidLevels: number;
  /** Iterations at each finer level, seeded from the coarser one. */
  refineIterations: number;
  /**
   * One more sweep at the working resolution, of propagation alone from the neighbours whose
   * plane changed (PatchMatchParams.finalPropagation). The synthetic facade at standard
   * (`npm run bench -- dense facade --quality=standard`): cloud error 0.117 → 0.065 % of the radius, mesh F
   * at 0.5 % 0.902 → 0.924, for 20 % more hypotheses (119.0 M → 142.6 M); a whole second
   * iteration there (refineIterations 2) gave 0.926 for 60 % more dense time. Held-back views
   * gained 0.2–0.4 dB on every real set (docs/decisions.md, "The working level's planes are
   * spread once more").
   */
  finalPropagation: boolean;
  /** Window: half-size in samples and pixels between samples (3, 2 → 7×7 samples over 13×13 px). */
  windowRadius: number;
  windowStep: number;
  /** Every sample of the window, or one checkerboard colour of them (window.ts), at the working resolution. */
  windowPattern: WindowPattern;
  /**
   * The pattern of the coarser pyramid levels. The checkerboard there scores about half the
   * samples per cost and makes dense 12–20 % cheaper (smoke 25.2 → 20.7 s at standard) with the
   * synthetic clouds' and meshes' F at 0.5 % as good or better (`npm run bench -- dense`), but the
   * delivered models look worse from held-back photos: rendered/courtyard 0.974 / 27.28 dB / 0.919
   * → 0.938 / 25.17 / 0.898, smoke 29.92 → 29.23 dB (`npm run bench -- views`). So it is not the
   * default (docs/decisions.md, "The coarse levels' checkerboard window is not the default").
   */
  coarseWindowPattern: WindowPattern;
  /**
   * The narrower window of textured pixels on the levels seeded from a coarser one (patchmatch-types.ts
   * TexturedWindow); null: none. Step 1 where the 7×7-px window's grey values spread by 0.02 (0.01,
   * with the final propagation, took the facade's mesh F at 0.5 % from 0.924 to 0.935 but cost
   * SceauxCastle's held-back view 0.1–0.6 dB at the same coverage: docs/decisions.md, "The working
   * level's planes are spread once more"):
   * the band of foreground depth beside each depth edge narrows (synthetic facade's cloud F at
   * 0.5 % of the radius 0.865 → 0.905, smoke's 0.879 → 0.900, `npm run bench -- dense`), and the
   * dark or plain pixels (a quarter of Herz-Jesus-P8's at 800 px) keep the 13×13-px window that
   * holds their match: with step 1 everywhere Herz-Jesus-P8's shaded portal and the plain room's
   * walls opened (docs/decisions.md, "Textured pixels take a narrower window where the planes are refined").
   */
  texturedWindow: TexturedWindow | null;
  /** σ of the window's bilateral weight on grey-value differences (grey in 0..1). */
  sigmaColor: number;
  /** Best source costs averaged per hypothesis (at most half the view's sources, rounded up). */
  bestK: number;
  /**
   * Source views added to a reference whose `sourceViews` leave a region of its frame's background
   * (of `sourceFrameCells`² regions) seen by fewer than two of them (select.ts withFrameCover(); 0:
   * none). For any region, the held-back photos' coverage rose on the orbits (rendered/plain-objects
   * 0.947 → 0.980, synthetic/object-ring 0.948 → 0.995) but their PSNR fell on two sets
   * (plain-objects over dense seeds 2 and 3 28.18 → 27.43 dB, courtyard-wide 28.87 → 28.38;
   * docs/decisions.md, "A source for the part of the frame the others miss: an option, off by
   * default"); for the background only, plain-objects and object-ring gained on all three figures
   * and every other set kept its own ("A source is added for the background the others miss").
   */
  extraSourceViews: number;
  sourceFrameCells: number;
  /**
   * …only for regions whose sparse points' median depth is at least this multiple of the view's
   * median (select.ts, SelectionOptions.backgroundRatio; 0: any region).
   */
  sourceBackgroundRatio: number;
  /** Triangulation angles (degrees) preferred for source selection. */
  minAngleDeg: number;
  maxAngleDeg: number;
  /** Relative widening of each view's sparse depth range. */
  depthMargin: number;
  /** Highest kept cost (1 − NCC, 0..2). */
  maxCost: number;
  /** Geometric consistency: reprojection (px), relative depth, fewest agreeing views. */
  maxReprojectionPx: number;
  maxRelativeDepthError: number;
  minConsistentViews: number;
  /**
   * Fusion: normal agreement (degrees) and fewest views per point. One agreeing source view
   * and two fused views keep the surfaces that only a few photos see (the ground near the
   * cameras, the ends of a sequence): held-back photos of Herz-Jesus-P8 went from 0.868 to
   * 0.918 coverage and fountain-P11 from 0.907 to 0.925, at 0.2–0.3 dB less PSNR over the
   * larger covered part (`npm run bench -- views Herz fountain`); smoke F at 0.5 % of the
   * radius 0.813 → 0.873 with precision 0.970 → 0.930 (`npm run bench -- dense smoke`).
   */
  maxNormalAngleDeg: number;
  minFusedViews: number;
  /**
   * Planar priors in PatchMatch (planar-prior.ts; weight 0 = none). A pixel whose plane agrees
   * with its prior is kept up to `maxPriorCost` instead of `maxCost` (its photometric cost cannot
   * decide a plain surface), but then needs `priorConsistentViews` agreeing source views instead
   * of `minConsistentViews`: the agreement of other views' depths is its evidence.
   */
  planarPrior: PlanarPriorParams;
  maxPriorCost: number;
  priorConsistentViews: number;
  /**
   * The sky's rim trimmed off each filtered map (edge-trim.ts). 12 px at 800 px: twice the fine
   * window's 6-px reach, as the coarse levels spread the band farther (SceauxCastle's rim pixels
   * lay 1 to over 11 px from the sky).
   */
  edgeTrim: EdgeTrimOptions;
  /**
   * Depths that the neighbouring views see through with a confident depth are removed before
   * fusion (free-space.ts; minViolations 0 = off, the default). On, held-back photos of
   * Herz-Jesus-P8, SceauxCastle and fountain-P11 gained 0.65, 0.30 and 0.32 dB, but the courtyard
   * and smoke lost 0.23 and 0.24 dB and Herz-Jesus-P8 and the courtyard 0.004 of coverage (`npm run
   * bench -- views`; docs/decisions.md, "Depths another view sees through: a removal, off by default").
   */
  freeSpace: FreeSpaceOptions;
  /** Cost kernel; "wasm" falls back to "typescript" when the module does not load. */
  kernel: "wasm" | "typescript";
  /**
   * Most views solved and fused together (clusters.ts): bounds memory (~28 bytes per working
   * pixel per loaded view) and fusion's cost per view on large captures. A set this size or
   * smaller is one cluster, solved as before clusters existed.
   */
  maxClusterViews: number;
  /** Worker threads (default: available parallelism). */
  workers: number;
  /** Return the filtered depth maps as well as the cloud (memory: ~24 bytes per pixel per view). */
  keepDepthMaps: boolean;
  seed: number;
}

export const DEFAULTS: Options = {
  maxImageSide: 1200,
  sourceViews: 6,
  extraSourceViews: 1,
  sourceFrameCells: 3,
  sourceBackgroundRatio: 1.5,
  iterations: 5,
  pyramidLevels: 2,
  refineIterations: 1,
  finalPropagation: true,
  windowRadius: 3,
  windowStep: 2,
  windowPattern: "square",
  coarseWindowPattern: "square",
  texturedWindow: { step: 1, minStd: 0.02 },
  sigmaColor: 0.2,
  bestK: 3,
  minAngleDeg: 5,
  maxAngleDeg: 30,
  depthMargin: 0.25,
  maxCost: 0.6,
  maxReprojectionPx: 1.5,
  maxRelativeDepthError: 0.01,
  minConsistentViews: 1,
  maxNormalAngleDeg: 15,
  minFusedViews: 2,
  planarPrior: { ...NO_PLANAR_PRIOR, weight: 0.3, iterations: 2 },
  maxPriorCost: 1,
  priorConsistentViews: 2,
  edgeTrim: { maxSteps: 12, sameGrey: 0.01, flatGrey: 0.01 },
  freeSpace: { minViolations: 0, margin: 0.002, agreement: 0.01, maxJudgeCost: 0.3 },
  kernel: "wasm",
  maxClusterViews: 40,
  workers: availableParallelism(),
  keepDepthMaps: false,
  seed: 1,
};
