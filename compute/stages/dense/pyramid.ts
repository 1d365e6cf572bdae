/** @module The image pyramid of PatchMatch's coarse-to-fine solve (patchmatch.ts): a view and its sources at half size. */
import type { PinholeGrey } from "./undistort.js";
import type { WindowPattern } from "./window.js";

/** What a pyramid level carries: the reference view, its sources, and how many coarser levels remain. */
interface Level<S extends PinholeGrey> extends PinholeGrey {
  sources: S[];
  params: { pyramidLevels: number; coarseLevels?: number };
}

/** The input at half size: 2×2 box-averaged greys and halved intrinsics, one pyramid level fewer. */
export function halveInput<S extends PinholeGrey, L extends Level<S>>(input: L): L {
  const sources = input.sources.map((s) => ({ ...s, ...halvePinhole(s) }));
  return { ...input, ...halvePinhole(input), sources, params: coarserParams(input.params) };
}

/** A level's parameters one level down: one coarser level fewer to go. */
export function coarserParams<P extends { pyramidLevels: number; coarseLevels?: number; windowPattern?: WindowPattern; coarseWindowPattern?: WindowPattern }>(params: P): P {
  const windowPattern = params.coarseWindowPattern ?? params.windowPattern;
  return { ...params, pyramidLevels: params.pyramidLevels - 1, ...(params.coarseLevels !== undefined ? { coarseLevels: params.coarseLevels - 1 } : {}), ...(windowPattern !== undefined ? { windowPattern } : {}) };
}

/**
 * Pixel centres sit at integer + 0.5 (x = (col + 0.5 − cx) / f), so halving the image halves
 * focal and principal point exactly.
 */
function halvePinhole(view: PinholeGrey): PinholeGrey {
  const width = Math.floor(view.width / 2);
  const height = Math.floor(view.height / 2);
  const grey = new Float32Array(width * height);
  const w = view.width;
  for (let row = 0; row < height; row++) {
    const top = 2 * row * w;
    for (let col = 0; col < width; col++) {
      const p = top + 2 * col;
      grey[row * width + col] = 0.25 * (view.grey[p] + view.grey[p + 1] + view.grey[p + w] + view.grey[p + w + 1]);
    }
  }
  return { width, height, focal: view.focal / 2, cx: view.cx / 2, cy: view.cy / 2, grey };
}
