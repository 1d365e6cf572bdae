/**
 * The sky in the photos (compute/stages/mesh/sky.ts) and plane completion's use of it: a wall
 * whose points reach 0.8 up, with a fringe of stray inliers at 0.95 (the dense stage's sky fringe
 * above a roofline), is closed up to the fringe from its points alone; where the photos show sky
 * above 0.8 (bright, blue, joined to their top border, holding no point), that band stays open,
 * and the wall's own gap below is still filled.
 */
import { describe, expect, it } from "vitest";
import { DEFAULTS } from "../../../compute/stages/mesh/index.js";
import { completePlanes } from "../../../compute/stages/mesh/plane-completion.js";
import { emptyDepthImage } from "../../../compute/stages/mesh/see-through.js";
import { skyRegion, SKY_DEFAULTS, type SkyPhoto } from "../../../compute/stages/mesh/sky.js";
import type { RegisteredView } from "../../../compute/scene/index.js";

const SPACING = 0.01;
const VOXEL = 0.02;
const WALL_TOP = 0.8;

/** An RGB image of width × height from a colour per pixel. */
function image(width: number, height: number, colour: (x: number, y: number) => [number, number, number]): Uint8Array {
  const rgb = new Uint8Array(3 * width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) rgb.set(colour(x, y), 3 * (y * width + x));
  return rgb;
}

const blueSky = (y: number): [number, number, number] => [120 + y / 4, 170 + y / 4, 230];

describe("mesh/sky: the photo's sky", () => {
  it("is the bright blue region joined to the top border, stopped by a roofline's step", () => {
    // Sky above row 40 (a smooth gradient), a shaded bluish wall below it (a step of 40 levels), and
    // a patch of sky-blue paint low on the wall, not joined to the sky.
    const rgb = image(64, 80, (x, y) => (y < 40 ? blueSky(y) : y > 60 && x > 20 && x < 40 ? [150, 190, 240] : [100, 130, 160]));
    const sky = skyRegion(rgb, 64, 80, SKY_DEFAULTS);
    let above = 0, below = 0;
    for (let p = 0; p < sky.length; p++) (p < 40 * 64 ? (above += sky[p]!) : (below += sky[p]!));
    expect(above).toBe(40 * 64);
    expect(below).toBe(0);
  });

  it("is not a neutral white wall reaching the top border, nor a bright one of sky colour behind a step", () => {
    const white = skyRegion(image(32, 32, () => [225, 225, 225]), 32, 32, SKY_DEFAULTS);
    expect(white.reduce((s, v) => s + v, 0)).toBe(0);
    // Sky colour below a cornice: a dark band across the whole width cuts it from the top border.
    const cut = skyRegion(image(32, 32, (_x, y) => (y === 5 ? [60, 60, 60] : blueSky(y))), 32, 32, SKY_DEFAULTS);
    expect(cut.slice(6 * 32).reduce((s, v) => s + v, 0)).toBe(0);
  });
});

/** A camera at (-0.5, y, 0.5) looking along +x, at the wall x = 1 (as plane-completion.test.ts's). */
function facingWall(y: number, index: number): RegisteredView {
  return {
    imageIndex: index,
    name: `wall-${y}.jpg`,
    intrinsics: { width: 800, height: 800, focal: 500, cx: 400, cy: 400, k1: 0, k2: 0 },
    camFromWorld: { R: new Float64Array([0, -1, 0, 0, 0, -1, 1, 0, 0]), t: new Float64Array([y, 0.5, 0.5]) },
  };
}

/** The wall x = 1 over y in [-1, 1], z in [0, WALL_TOP] without the band z in (0.3, 0.45), and a row of stray points every 0.1 at z = 0.95. */
function wallWithFringe() {
  const positions: number[] = [];
  for (let y = -1; y <= 1 + 1e-9; y += SPACING) for (let z = 0; z <= WALL_TOP + 1e-9; z += SPACING) if (z <= 0.3 || z >= 0.45) positions.push(1, y, z);
  for (let y = -1; y <= 1 + 1e-9; y += 0.1) positions.push(1, y, 0.95);
  const count = positions.length / 3;
  const normals = new Float32Array(3 * count);
  for (let i = 0; i < count; i++) normals[3 * i] = -1;
  return { positions: new Float32Array(positions), normals, colors: new Uint8Array(3 * count).fill(200), count };
}

/** The view's photo on its depth image's grid: sky above the wall's top, the grey wall below it. */
function photoOfWall(view: RegisteredView): SkyPhoto {
  const grid = emptyDepthImage(view);
  const { focal, cy } = view.intrinsics;
  const rgb = image(grid.width, grid.height, (_u, v) => {
    // Camera y is world −z: the ray through the pixel's centre meets x = 1 (depth 1.5) at this height.
    const z = 0.5 - (((v + 0.5) * grid.scale - cy) / focal) * 1.5;
    return z > WALL_TOP ? blueSky(v) : [150, 150, 150];
  });
  return { grid, rgb };
}

describe("mesh/plane-completion with the photos' sky", () => {
  const views = [-0.4, 0.4].map(facingWall);
  const count = (points: Float32Array, low: number, high: number) => {
    let n = 0;
    for (let i = 2; i < points.length; i += 3) if (points[i]! > low && points[i]! < high) n++;
    return n;
  };

  it("closes the wall up to its fringe from the points alone, and not into the sky the photos show", () => {
    const alone = completePlanes(wallWithFringe(), views, VOXEL, SPACING, DEFAULTS.planeCompletion);
    expect(count(alone.points.positions, WALL_TOP + 2 * VOXEL, 0.95 - 2 * VOXEL)).toBeGreaterThan(100);
    expect(alone.report.cellsSky).toBe(0);
    const withSky = completePlanes(wallWithFringe(), views, VOXEL, SPACING, DEFAULTS.planeCompletion, views.map(photoOfWall));
    expect(count(withSky.points.positions, WALL_TOP + 2 * VOXEL, 0.95 - 2 * VOXEL)).toBe(0);
    expect(withSky.report.cellsSky).toBeGreaterThan(0);
    // The wall's own gap below its top is filled as before.
    expect(count(withSky.points.positions, 0.32, 0.43)).toBe(count(alone.points.positions, 0.32, 0.43));
    expect(count(withSky.points.positions, 0.32, 0.43)).toBeGreaterThan(100);
  });
});
