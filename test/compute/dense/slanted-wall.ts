/**
 * @module A PatchMatch scene: a slanted wall seen by five cameras in a row (planar-prior.test.ts,
 * native-planes.test.ts).
 */
import type { PatchMatchInput, SourceCamera } from "../../../compute/stages/dense/patchmatch.js";
import type { PlanarPriorParams } from "../../../compute/stages/dense/planar-prior.js";

/**
 * A slanted wall seen by five cameras in a row: textured along its edges, plain in the middle
 * (grey 0.7 with a faint ripple and the sensor's noise, as a painted wall). PatchMatch alone
 * cannot decide the plain middle (the noise, ±2 grey levels, differs in every photo); with planar priors (ACMP) its depth follows the plane through
 * the textured edge, and the pixels say they agree with their prior.
 */
export const WIDTH = 160;
export const HEIGHT = 120;
export const FOCAL = 150;
/** The wall: n·X = RHO in every camera's frame (the cameras are translated only). */
const N = normalize([0.25, 0.1, -1]);
const RHO = -5;
const CENTRES = [-0.6, -0.3, 0, 0.3, 0.6];

function normalize(v: number[]): number[] {
  const l = Math.hypot(v[0], v[1], v[2]);
  return v.map((x) => x / l);
}

function hash(a: number, b: number, seed: number): number {
  let h = (a * 374761393 + b * 668265263 + seed * 2147483647) | 0;
  h = Math.imul(h ^ (h >>> 13), 1274126177);
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
}

/** Grey of the wall at world point (x, y): high-contrast blobs outside the plain rectangle. */
function wallGrey(x: number, y: number): number {
  const plain = Math.abs(x) < 1.1 && Math.abs(y) < 0.8;
  const ripple = 0.004 * Math.sin(3 * x) * Math.cos(2 * y);
  if (plain) return 0.7 + ripple;
  return 0.5 + 0.2 * Math.sin(9 * x + 2 * Math.sin(5 * y)) + 0.15 * Math.cos(11 * y + 3 * Math.sin(4 * x));
}

/** Depth of the wall along the ray of pixel (col, row) of a camera. */
export function trueDepth(col: number, row: number, centreX: number): number {
  const rx = (col + 0.5 - WIDTH / 2) / FOCAL;
  const ry = (row + 0.5 - HEIGHT / 2) / FOCAL;
  // Camera frame X = world − C; n·(X + C) = RHO.
  return (RHO - N[0] * centreX) / (N[0] * rx + N[1] * ry + N[2]);
}

function renderView(centreX: number, seed: number): Float32Array {
  const grey = new Float32Array(WIDTH * HEIGHT);
  for (let row = 0; row < HEIGHT; row++) {
    for (let col = 0; col < WIDTH; col++) {
      const d = trueDepth(col, row, centreX);
      const x = (d * (col + 0.5 - WIDTH / 2)) / FOCAL + centreX;
      const y = (d * (row + 0.5 - HEIGHT / 2)) / FOCAL;
      grey[row * WIDTH + col] = wallGrey(x, y) + (2 * (2 * hash(col, row, seed) - 1)) / 255;
    }
  }
  return grey;
}

export function wallInput(prior: PlanarPriorParams): PatchMatchInput {
  const ref = CENTRES.indexOf(0);
  const sources: SourceCamera[] = CENTRES.flatMap((c, i) => (i === ref ? [] : [{ width: WIDTH, height: HEIGHT, focal: FOCAL, cx: WIDTH / 2, cy: HEIGHT / 2, grey: renderView(c, i + 1), R: Float64Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1]), t: Float64Array.from([-c, 0, 0]) }]));
  return {
    width: WIDTH,
    height: HEIGHT,
    focal: FOCAL,
    cx: WIDTH / 2,
    cy: HEIGHT / 2,
    grey: renderView(0, 0),
    sources,
    depthMin: 3,
    depthMax: 8,
    params: { iterations: 4, windowRadius: 3, windowStep: 2, bestK: 2, sigmaColor: 0.2, sigmaSpatial: 6, kernel: "wasm", seed: 3, pyramidLevels: 0, refineIterations: 1, planarPrior: prior },
  };
}
