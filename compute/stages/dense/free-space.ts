/**
 * @module Removing depths that other views see through.
 *
 * A pixel's depth is a claim that the ray to it is empty up to that depth and opaque there. When
 * another view's ray through that 3-D point goes on to a surface well behind it, everywhere around
 * the pixel it lands on, that view saw empty space where the point claims a surface: a free-space
 * violation (Merrell et al., "Real-time visibility-based fusion of depth maps", ICCV 2007, §4; the
 * free-space evidence of Jancosek & Pajdla, CVPR 2011). The depths that collect such violations
 * are the foreground fattening of window-based stereo: a window that straddles a depth edge gives
 * the background pixels beside it the foreground's depth, and neighbouring views, fattened the same
 * way, confirm them (edge-trim.ts removes that band only against the sky). A view from a wider
 * angle sees the background through the band. So does a view that sees a real surface behind a
 * point that is an outlier in front of it.
 *
 * The test is one-sided on purpose: a view whose surface lies in front of the point (occlusion) or
 * that has no depth there says nothing, so a backdrop or a sky without depth never removes
 * anything (edge-trim.ts handles the sky). A thin structure may be missed by a neighbouring pixel of
 * the other view, so the whole 3×3 neighbourhood of the pixel it lands on must lie behind, and the
 * depth it sees there must be a confident match (`maxJudgeCost`), not a plain wall's scatter. And a
 * view whose depth there agrees with the point (within the fusion's relative depth) supports it: a
 * point is removed only when more views see through it than agree with it, and at least
 * `minViolations`. Every map is judged against the maps as the filters left them, so the order of
 * the views does not matter.
 */
import { packCameras, PACKED_CAMERA, type DenseView } from "./views.js";

export interface FreeSpaceOptions {
  /** Fewest views that must see through a depth to remove it (0: off). */
  minViolations: number;
  /** How far behind the point (relative to its depth in the other view) each pixel of that view's 3×3 neighbourhood must lie. */
  margin: number;
  /** Relative depth within which another view agrees with the point (the fusion's). */
  agreement: number;
  /**
   * Highest photometric cost (1 − NCC) of the depth a view sees through the point with. A plain
   * wall's depths scatter in front of it and behind it; with any depth judging, those behind
   * removed true wall depths and opened pinholes in the plain room's wall.
   */
  maxJudgeCost: number;
}

export interface FreeSpaceMap {
  view: DenseView;
  /** Filtered depth (0 = none), edited in place. */
  depth: Float32Array;
  /** The photometric cost of each pixel's depth. */
  cost: Float32Array;
  /**
   * The maps (indices into the list) that judge this one: its neighbours in the view graph (its
   * source views and the views it is a source of). With every other map of the cluster judging,
   * fusion's phase took 30.1 s on a ring of 32 views against 13.7 s with the neighbours (loaded
   * runs), for views across the ring that see the far side of the object in front of the point:
   * an occlusion, no verdict.
   */
  judges: number[];
}

/** A map's camera in `cameras` (views.ts packCameras). */
const CAMERA = PACKED_CAMERA;

/**
 * Zeroes, in place, the depths that more views see through than agree with (at least
 * `minViolations`); every map is judged against the others as they were on entry. Returns the
 * count removed per map.
 */
export function removeSeenThrough(maps: FreeSpaceMap[], options: FreeSpaceOptions): number[] {
  if (!(options.minViolations > 0) || maps.length < 2) return maps.map(() => 0);
  const cameras = packCameras(maps.map((m) => m.view));
  const doomed = maps.map((_, m) => seenThrough(maps, cameras, m, options));
  return maps.map((map, m) => {
    for (const p of doomed[m]) map.depth[p] = 0;
    return doomed[m].length;
  });
}

/** The pixels of map m that more views see through than agree with. */
function seenThrough(maps: FreeSpaceMap[], cameras: Float64Array, m: number, options: FreeSpaceOptions): number[] {
  const { depth, judges } = maps[m];
  const o = CAMERA * m;
  const [focal, cx, cy, width] = [cameras[o + 12], cameras[o + 13], cameras[o + 14], cameras[o + 15]];
  const doomed: number[] = [];
  for (let p = 0; p < depth.length; p++) {
    const d = depth[p];
    if (!(d > 0)) continue;
    const col = p % width;
    const row = (p - col) / width;
    // worldFromCam: X = Rᵀ(x − t).
    const xc = (d * (col + 0.5 - cx)) / focal - cameras[o + 9];
    const yc = (d * (row + 0.5 - cy)) / focal - cameras[o + 10];
    const zc = d - cameras[o + 11];
    const X = cameras[o] * xc + cameras[o + 3] * yc + cameras[o + 6] * zc;
    const Y = cameras[o + 1] * xc + cameras[o + 4] * yc + cameras[o + 7] * zc;
    const Z = cameras[o + 2] * xc + cameras[o + 5] * yc + cameras[o + 8] * zc;
    let violations = 0;
    let agreements = 0;
    for (const j of judges) {
      const verdict = verdictOf(cameras, j, maps[j], X, Y, Z, options);
      if (verdict > 0) violations++;
      else if (verdict < 0) agreements++;
    }
    if (violations >= options.minViolations && violations > agreements) doomed.push(p);
  }
  return doomed;
}

/** View j on the world point: 1 when it sees through it, −1 when it agrees, 0 when it says nothing. */
function verdictOf(cameras: Float64Array, j: number, { depth, cost }: FreeSpaceMap, X: number, Y: number, Z: number, options: FreeSpaceOptions): number {
  const o = CAMERA * j;
  const z = cameras[o + 6] * X + cameras[o + 7] * Y + cameras[o + 8] * Z + cameras[o + 11];
  if (!(z > 0)) return 0;
  const x = cameras[o] * X + cameras[o + 1] * Y + cameras[o + 2] * Z + cameras[o + 9];
  const y = cameras[o + 3] * X + cameras[o + 4] * Y + cameras[o + 5] * Z + cameras[o + 10];
  const width = cameras[o + 15];
  const height = cameras[o + 16];
  const col = Math.floor((cameras[o + 12] * x) / z + cameras[o + 13]);
  const row = Math.floor((cameras[o + 12] * y) / z + cameras[o + 14]);
  if (col < 1 || row < 1 || col >= width - 1 || row >= height - 1) return 0;
  const centre = depth[row * width + col];
  if (Math.abs(centre - z) <= options.agreement * z) return -1;
  if (!(cost[row * width + col] <= options.maxJudgeCost)) return 0;
  const behind = z * (1 + options.margin);
  for (let r = row - 1; r <= row + 1; r++) {
    for (let c = col - 1; c <= col + 1; c++) {
      if (!(depth[r * width + c] > behind)) return 0;
    }
  }
  return 1;
}
