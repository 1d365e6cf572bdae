/**
 * Completing plain planes before meshing (compute/stages/mesh/plane-completion.ts): a floor that
 * dense stereo left as islands (every other 0.3-wide stripe missing, as on a plain surface), seen
 * by two cameras from above. The gaps between the islands get points on the floor's plane; a
 * gap through which the cameras see a lower level does not; the floor is not grown past its
 * outline. A wall with far fewer points than the floor (a plain wall seen at an angle) is
 * completed when its points are of one plain colour, and not when they are textured or lie
 * just over a larger plane. A wall's band hidden behind a ledge is not filled, nor the gap between two pilasters standing out
 * from a wall (the wall is seen through it), nor a gap through
 * which the photos show a studio's dark backdrop. With the photo texture test on (off by default), a gap is filled only
 * where the photo that sees it most squarely shows it plain: a gap in a floor that the photos show textured is no plain
 * surface stereo could not decide (it would have matched that texture), so it stays open.
 */
import { describe, expect, it } from "vitest";
import { DEFAULTS } from "../../../compute/stages/mesh/index.js";
import { completePlanes, PLANE_TEXTURE_TEST, type PlaneCompletionOptions } from "../../../compute/stages/mesh/plane-completion.js";
import type { RegisteredView } from "../../../compute/scene/index.js";
import type { GreyPhoto } from "../../../compute/stages/mesh/photo-texture.js";
import { BACKDROP_DEFAULTS, backdropOf, darkSmooth } from "../../../compute/stages/mesh/backdrop.js";
import { cloudDepthImages, cloudDepthImagesOn, depthImageShape, grownDepthImagesOn, type DepthImageTask } from "../../../compute/stages/mesh/see-through.js";
import { WorkerPool } from "../../../compute/util/pool.js";

const OPTIONS: PlaneCompletionOptions = DEFAULTS.planeCompletion;
const SPACING = 0.01;
const VOXEL = 0.02;

/** A camera at (x, 0, 3) looking straight down. */
function overhead(x: number): RegisteredView {
  return {
    imageIndex: 0,
    name: `overhead-${x}.jpg`,
    intrinsics: { width: 800, height: 800, focal: 700, cx: 400, cy: 400, k1: 0, k2: 0 },
    camFromWorld: { R: new Float64Array([1, 0, 0, 0, -1, 0, 0, 0, -1]), t: new Float64Array([-x, 0, 3]) },
  };
}

/** The floor z = 0 over [-1, 1]², without the stripes 0.3 wide at x in [-0.6, -0.3] and [0.3, 0.6]; optionally a lower level under the right stripe. */
function stripedFloor(lowerLevel: boolean) {
  const positions: number[] = [];
  for (let y = -1; y <= 1 + 1e-9; y += SPACING) for (let x = -1; x <= 1 + 1e-9; x += SPACING) {
    const inStripe = (x > -0.6 && x < -0.3) || (x > 0.3 && x < 0.6);
    if (!inStripe) positions.push(x, y, 0);
    if (lowerLevel && x > 0.3 && x < 0.6) positions.push(x, y, -1);
  }
  const count = positions.length / 3;
  const normals = new Float32Array(3 * count);
  for (let i = 0; i < count; i++) normals[3 * i + 2] = 1;
  return { positions: new Float32Array(positions), normals, colors: new Uint8Array(3 * count).fill(200), count };
}

/** For every 50th added point, the distance to the nearest dense point (checked against all). */
function nearestDistances(added: Float32Array, count: number, dense: Float32Array): number[] {
  const out: number[] = [];
  for (let i = 0; i < count; i += 50) {
    let nearest = Infinity;
    for (let j = 0; j < dense.length; j += 3) nearest = Math.min(nearest, Math.hypot(added[3 * i] - dense[j], added[3 * i + 1] - dense[j + 1], added[3 * i + 2] - dense[j + 2]));
    out.push(nearest);
  }
  return out;
}

function addedAt(points: Float32Array, test: (x: number, y: number, z: number) => boolean): number {
  let n = 0;
  for (let i = 0; i < points.length; i += 3) if (test(points[i], points[i + 1], points[i + 2])) n++;
  return n;
}

/** A camera at (-0.5, y, 0.5) looking along +x, at the wall x = 1. */
function facingWall(y: number): RegisteredView {
  return {
    imageIndex: 0,
    name: `wall-${y}.jpg`,
    intrinsics: { width: 800, height: 800, focal: 500, cx: 400, cy: 400, k1: 0, k2: 0 },
    camFromWorld: { R: new Float64Array([0, -1, 0, 0, 0, -1, 1, 0, 0]), t: new Float64Array([y, 0.5, 0.5]) },
  };
}

/** A camera at (-9, y, 0.5), 10 units before the wall x = 1, looking along +x. */
function far(y: number): RegisteredView {
  return {
    imageIndex: 0,
    name: `far-${y}.jpg`,
    intrinsics: { width: 800, height: 800, focal: 500, cx: 400, cy: 400, k1: 0, k2: 0 },
    camFromWorld: { R: new Float64Array([0, -1, 0, 0, 0, -1, 1, 0, 0]), t: new Float64Array([y, 0.5, 9]) },
  };
}

/**
 * The whole floor z = 0 over [-1, 1]² (40,401 points) and the wall x = 1 (y in [-1, 1], z in
 * [0, 1]) every 0.04 without the band z in (0.3, 0.6): 1,224 points, 2.9 % of the cloud, below
 * the share of the largest planes. The wall's points are plain grey, or alternately dark and
 * light; with `layer`, a plain patch 1.5 voxels over the floor.
 */
function floorAndWall(textured: boolean, layer: boolean) {
  const positions: number[] = [], normals: number[] = [], colors: number[] = [];
  const add = (p: number[], n: number[], grey: number) => { positions.push(...p); normals.push(...n); colors.push(grey, grey, grey); };
  for (let y = -1; y <= 1 + 1e-9; y += SPACING) for (let x = -1; x <= 1 + 1e-9; x += SPACING) add([x, y, 0], [0, 0, 1], 100 + ((Math.round(x / SPACING) * 7 + Math.round(y / SPACING) * 13) % 100));
  let k = 0;
  for (let y = -1; y <= 1 + 1e-9; y += 0.04) for (let z = 0.02; z <= 1 + 1e-9; z += 0.04) {
    if (z > 0.3 && z < 0.6) continue;
    add([1, y, z], [-1, 0, 0], textured ? (k++ % 2 ? 60 : 240) : 200);
  }
  if (layer) for (let y = -0.15; y <= 0.15 + 1e-9; y += SPACING) for (let x = -0.15; x <= 0.15 + 1e-9; x += SPACING) add([x, y, 1.5 * VOXEL], [0, 0, 1], 150);
  return { positions: new Float32Array(positions), normals: new Float32Array(normals), colors: new Uint8Array(colors), count: positions.length / 3 };
}

describe("mesh/plane-completion", () => {
  it("fills the gaps between a plain floor's islands, on its plane, with its normal, and not past its outline", async () => {
    const { points, report } = await completePlanes(stripedFloor(false), [overhead(-0.4), overhead(0.4)], VOXEL, SPACING, OPTIONS);
    expect(report.planes).toBeGreaterThanOrEqual(1);
    expect(points.count).toBeGreaterThan(0);
    // Both stripes are covered: every 0.05 × 0.05 patch of them has an added point.
    for (const centre of [-0.45, 0.45]) for (let y = -0.95; y <= 0.95; y += 0.05) {
      expect(addedAt(points.positions, (x, py) => Math.abs(x - centre) < 0.15 && Math.abs(py - y) < 0.025)).toBeGreaterThan(0);
    }
    expect(addedAt(points.positions, (_x, _y, z) => Math.abs(z) > 1e-3)).toBe(0);
    expect(addedAt(points.positions, (x, y) => Math.abs(x) > 1.03 || Math.abs(y) > 1.03)).toBe(0);
    for (let i = 0; i < points.count; i++) expect(points.normals[3 * i + 2]).toBeCloseTo(1, 6);
    // The floor is plain: none within half a voxel of a dense point, and some within two.
    const nearestDense = nearestDistances(points.positions, points.count, stripedFloor(false).positions);
    expect(Math.min(...nearestDense)).toBeGreaterThanOrEqual(OPTIONS.plainClearanceVoxels * VOXEL - 1e-6);
    expect(Math.min(...nearestDense)).toBeLessThan(OPTIONS.clearanceVoxels * VOXEL);
  });

  it("keeps two voxels clear of a textured floor's dense points, whose relief they would flatten", async () => {
    const floor = stripedFloor(false);
    for (let i = 0; i < floor.count; i++) floor.colors.fill(60 + ((i * 7919) % 150), 3 * i, 3 * i + 3);
    const { points } = await completePlanes(floor, [overhead(-0.4), overhead(0.4)], VOXEL, SPACING, OPTIONS);
    expect(points.count).toBeGreaterThan(0);
    expect(Math.min(...nearestDistances(points.positions, points.count, floor.positions))).toBeGreaterThanOrEqual(OPTIONS.clearanceVoxels * VOXEL - 1e-6);
  });

  it("keeps five voxels clear of an object standing in a gap, so its surface is not dragged to the floor", async () => {
    const floor = stripedFloor(false);
    // A ball of radius 0.12 above the left stripe, its bottom 0.08 above the floor.
    const ball: number[] = [];
    for (let i = 0; i < 6000; i++) {
      const z = 1 - (2 * (i + 0.5)) / 6000, r = Math.sqrt(1 - z * z), phi = i * 2.399963;
      ball.push(-0.45 + 0.12 * r * Math.cos(phi), 0.12 * r * Math.sin(phi), 0.2 + 0.12 * z);
    }
    const count = floor.count + ball.length / 3;
    const positions = new Float32Array(3 * count);
    positions.set(floor.positions);
    positions.set(ball, floor.positions.length);
    const normals = new Float32Array(3 * count);
    normals.set(floor.normals);
    for (let i = floor.count; i < count; i++) for (let a = 0; a < 3; a++) normals[3 * i + a] = (positions[3 * i + a] - [-0.45, 0, 0.2][a]!) / 0.12;
    const cloud = { positions, normals, colors: new Uint8Array(3 * count), count };
    const { points, report } = await completePlanes(cloud, [overhead(-0.4), overhead(0.4)], VOXEL, SPACING, OPTIONS);
    expect(report.cellsNearRelief).toBeGreaterThan(0);
    // Nothing within 5 voxels (0.1) of the ball, in 3D.
    expect(addedAt(points.positions, (x, y, z) => Math.hypot(x + 0.45, y, z - 0.2) - 0.12 < 5 * VOXEL)).toBe(0);
    // The rest of the stripe is still filled.
    expect(addedAt(points.positions, (x, y) => x > -0.6 && x < -0.3 && Math.abs(y) > 0.5)).toBeGreaterThan(500);
  });

  it("adds nothing to a curved surface, though a cap of it fits a plane within a voxel", async () => {
    const positions: number[] = [], normals: number[] = [];
    for (let i = 0; i < 40_000; i++) {
      // Fibonacci sphere of radius 1 around (0, 0, 0), seen from above and the sides.
      const z = 1 - (2 * (i + 0.5)) / 40_000, r = Math.sqrt(1 - z * z), phi = i * 2.399963;
      positions.push(r * Math.cos(phi), r * Math.sin(phi), z);
      normals.push(r * Math.cos(phi), r * Math.sin(phi), z);
    }
    const sphere = { positions: new Float32Array(positions), normals: new Float32Array(normals), colors: new Uint8Array(positions.length), count: 40_000 };
    const { points, report } = await completePlanes(sphere, [overhead(-0.4), overhead(0.4)], VOXEL, SPACING, OPTIONS);
    expect(points.count).toBe(0);
    // Every plane found is too small to complete: none is tried.
    expect(report.planesTooSmall).toBeGreaterThan(0);
    expect(report.cellsTried).toBe(0);
  });

  it("completes a plain wall with few points beside a large floor, but not a textured one, nor a layer over the floor", async () => {
    const views = [facingWall(-0.3), facingWall(0.3)];
    const inBand = (x: number, y: number, z: number) => Math.abs(x - 1) < 1e-3 && Math.abs(y) < 0.5 && z > 0.35 && z < 0.55;
    const plain = await completePlanes(floorAndWall(false, false), views, VOXEL, SPACING, OPTIONS);
    expect(plain.report.plainPlanes).toBe(1);
    expect(addedAt(plain.points.positions, inBand)).toBeGreaterThan(300);
    const textured = await completePlanes(floorAndWall(true, false), views, VOXEL, SPACING, OPTIONS);
    expect(textured.report.plainPlanes).toBe(0);
    expect(textured.report.planesNotPlain).toBeGreaterThanOrEqual(1);
    expect(addedAt(textured.points.positions, (x) => Math.abs(x - 1) < 1e-3)).toBe(0);
    const layered = await completePlanes(floorAndWall(false, true), views, VOXEL, SPACING, OPTIONS);
    expect(layered.report.planeLayers).toBeGreaterThanOrEqual(1);
    expect(addedAt(layered.points.positions, (_x, _y, z) => Math.abs(z - 1.5 * VOXEL) < 1e-3)).toBe(0);
    expect(addedAt(layered.points.positions, inBand)).toBeGreaterThan(300);
  });

  it("takes the depth images the stage's worker made, the same values as its own, and makes them itself when the worker fails", async () => {
    const cloud = stripedFloor(true);
    const views = [overhead(-0.4), overhead(0.4)];
    const here = cloudDepthImages(cloud.positions, cloud.count, views);
    const pool = new WorkerPool<DepthImageTask, Float32Array[]>(new URL("../../../compute/stages/mesh/worker.ts", import.meta.url), { size: 1 });
    let there;
    try {
      there = await cloudDepthImagesOn(pool, cloud.positions, cloud.count, views);
    } finally {
      await pool.close();
    }
    expect(there).not.toBeNull();
    expect(there!.map((image) => [image.view.name, image.width, image.height, image.scale])).toEqual(here.map((image) => [image.view.name, image.width, image.height, image.scale]));
    there!.forEach((image, i) => expect(image.depth).toEqual(here[i].depth));
    expect(here[0].depth.some((depth) => depth > 3.5)).toBe(true); // the lower level, seen through the gap
    const failing = { size: 1, run: () => Promise.reject(new Error("pool: a worker thread exited (code 1) before finishing its task")) };
    const fallen = cloudDepthImagesOn(failing, cloud.positions, cloud.count, views);
    expect(await fallen).toBeNull();
    const own = await completePlanes(cloud, views, VOXEL, SPACING, OPTIONS);
    const fromWorker = await completePlanes(cloud, views, VOXEL, SPACING, OPTIONS, null, null, Promise.resolve(there));
    const afterFailure = await completePlanes(cloud, views, VOXEL, SPACING, OPTIONS, null, null, fallen);
    for (const other of [fromWorker, afterFailure]) {
      expect(other.report).toEqual(own.report);
      expect(other.points.positions).toEqual(own.points.positions);
    }
    expect(own.report.cellsSeenThrough).toBeGreaterThan(0);
  });

  it("grows depth images by more points on the stage's worker, or here when it fails, to the whole cloud's", async () => {
    const cloud = stripedFloor(true);
    const views = [overhead(-0.4), overhead(0.4)];
    const whole = cloudDepthImages(cloud.positions, cloud.count, views);
    const half = Math.floor(cloud.count / 2);
    const pool = new WorkerPool<DepthImageTask, Float32Array[]>(new URL("../../../compute/stages/mesh/worker.ts", import.meta.url), { size: 1 });
    const failing = { size: 1, run: () => Promise.reject(new Error("pool: a worker thread exited (code 1) before finishing its task")) };
    try {
      for (const helper of [pool, failing]) {
        const known = { images: cloudDepthImages(cloud.positions, half, views), count: half };
        const before = known.images.map((image) => image.depth.slice());
        const grown = await grownDepthImagesOn(helper, known, cloud.positions, cloud.count);
        expect(grown.count).toBe(cloud.count);
        grown.images.forEach((image, i) => {
          expect(image.view).toBe(views[i]);
          expect(image.depth).toEqual(whole[i].depth);
        });
        // The images grew: the half of the cloud did not fill them.
        expect(before.some((depth, i) => depth.some((value, k) => value !== whole[i].depth[k]))).toBe(true);
      }
    } finally {
      await pool.close();
    }
  });

  it("leaves a gap open where the cameras see a lower level through it", async () => {
    const { points, report } = await completePlanes(stripedFloor(true), [overhead(-0.4), overhead(0.4)], VOXEL, SPACING, OPTIONS);
    expect(report.cellsSeenThrough).toBeGreaterThan(0);
    // The left stripe is filled, the right one (over the lower level) is not.
    expect(addedAt(points.positions, (x, _y, z) => x > -0.6 && x < -0.3 && Math.abs(z) < 1e-3)).toBeGreaterThan(1000);
    // (Its interior: near the ends of the stripe the rays pass beyond the lower level's edge, no evidence there;
    // the cells along its sides are half over the floor.)
    expect(addedAt(points.positions, (x, y, z) => x > 0.37 && x < 0.53 && Math.abs(y) < 0.7 && Math.abs(z) < 1e-3)).toBe(0);
  });

  it("does not fill a wall's band hidden behind a ledge that stands out by less than 5 % of the cameras' distance", async () => {
    // Three cameras 10 units before the wall x = 1, at eye height 0.5, looking along +x.
    const views = [far(-0.5), far(0), far(0.5)];
    // The wall (y in [-1, 1], z in [0, 1]) without its band z in (0.6, 0.75); with `ledge`, a
    // ledge's face 0.3 in front of the band (3 % of the depth; 16 depth-image pixels), which hides
    // the band from every camera, as a cornice hides the wall behind it.
    const wall = (ledge: boolean) => {
      const positions: number[] = [];
      for (let y = -1; y <= 1 + 1e-9; y += SPACING) for (let z = 0; z <= 1 + 1e-9; z += SPACING) {
        if (!(z > 0.6 && z < 0.75)) positions.push(1, y, z);
        if (ledge && z >= 0.6 && z <= 0.75) positions.push(0.7, y, z);
      }
      const count = positions.length / 3;
      const normals = new Float32Array(3 * count);
      for (let i = 0; i < count; i++) normals[3 * i] = -1;
      return { positions: new Float32Array(positions), normals, colors: new Uint8Array(3 * count).fill(200), count };
    };
    const inBand = (x: number, y: number, z: number) => Math.abs(x - 1) < 1e-3 && Math.abs(y) < 0.8 && z > 0.62 && z < 0.73;
    const open = await completePlanes(wall(false), views, VOXEL, SPACING, OPTIONS);
    expect(addedAt(open.points.positions, inBand)).toBeGreaterThan(500);
    const hidden = await completePlanes(wall(true), views, VOXEL, SPACING, OPTIONS);
    expect(hidden.report.cellsUnseen).toBeGreaterThan(0);
    expect(addedAt(hidden.points.positions, inBand)).toBe(0);
  });

  it("does not fill the gap between two pilasters over the wall they stand out from", async () => {
    // Three cameras 10 units before the wall x = 1, as above. The wall is whole; two pilasters'
    // faces stand 0.2 in front of it (2 % of the depth, as a facade's pilasters or sills), at
    // y in [-1, -0.2] and [0.2, 1]: their plane's gap (0.4 wide) is narrower than the closing
    // bridges, and the cameras see the wall's points through it. Within 5 % of the depth that was
    // called seen, and the pilasters' plane was filled over the wall in front of it.
    const positions: number[] = [];
    for (let y = -1; y <= 1 + 1e-9; y += SPACING) for (let z = 0; z <= 1 + 1e-9; z += SPACING) {
      positions.push(1, y, z);
      if (Math.abs(y) >= 0.2) positions.push(0.8, y, z);
    }
    const count = positions.length / 3;
    const normals = new Float32Array(3 * count);
    for (let i = 0; i < count; i++) normals[3 * i] = -1;
    const cloud = { positions: new Float32Array(positions), normals, colors: new Uint8Array(3 * count).fill(200), count };
    const { points, report } = await completePlanes(cloud, [far(-0.5), far(0), far(0.5)], VOXEL, SPACING, OPTIONS);
    expect(report.planes).toBe(2);
    expect(report.cellsSeenThrough).toBeGreaterThan(0);
    expect(addedAt(points.positions, (x, y) => Math.abs(x - 0.8) < 1e-3 && Math.abs(y) < 0.15)).toBe(0);
  });

  it("leaves a gap open where the photos show a dark, smooth backdrop through it and no point lies behind", async () => {
    const views = [overhead(-0.4), overhead(0.4)];
    // Each photo (at its depth image's size) black and even where the rays through z = 0 pass x in
    // (0.3, 0.6): what a studio's backdrop seen through an opening looks like.
    const masks = views.map((view) => {
      const { width, height, scale } = depthImageShape(view);
      const mask = new Uint8Array(width * height);
      const x0 = -view.camFromWorld.t[0]!;
      for (let v = 0; v < height; v++) for (let u = 0; u < width; u++) {
        const x = x0 + (((u + 0.5) * scale - view.intrinsics.cx) * 3) / view.intrinsics.focal;
        if (x > 0.3 && x < 0.6) mask[v * width + u] = 1;
      }
      return mask;
    });
    const without = await completePlanes(stripedFloor(false), views, VOXEL, SPACING, OPTIONS);
    const { points, report } = await completePlanes(stripedFloor(false), views, VOXEL, SPACING, OPTIONS, null, masks);
    expect(report.backdropPixels).toBeGreaterThan(0);
    expect(report.cellsSeenThrough).toBeGreaterThan(without.report.cellsSeenThrough);
    const rightInterior = (x: number, y: number, z: number) => x > 0.37 && x < 0.53 && Math.abs(y) < 0.7 && Math.abs(z) < 1e-3;
    expect(addedAt(without.points.positions, rightInterior)).toBeGreaterThan(1000);
    expect(addedAt(points.positions, rightInterior)).toBe(0);
    // The left stripe, plain but not backdrop, is filled as before.
    const left = (x: number, _y: number, z: number) => x > -0.6 && x < -0.3 && Math.abs(z) < 1e-3;
    expect(addedAt(points.positions, left)).toBe(addedAt(without.points.positions, left));
  });

  it("reads a backdrop only where the photo is dark and smooth, and only in a photo taken against one", async () => {
    const width = 30, height = 10;
    const grey = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) {
      // Columns 0–9: black with faint noise; 10–19: dark but textured; 20–29: plain white.
      grey[y * width + x] = x < 10 ? 8 + ((x + y) % 2) : x < 20 ? ((x + y) % 2 ? 2 : 26) : 230;
    }
    const mask = darkSmooth(grey, width, height, BACKDROP_DEFAULTS);
    const at = (x: number, y: number) => mask[y * width + x];
    expect(at(4, 5)).toBe(1);
    expect(at(14, 5)).toBe(0);
    expect(at(25, 5)).toBe(0);
    // A third of this photo's border is backdrop: no backdrop photo (a shadow on a floor looks the
    // same); a photo whose border is all black is one.
    expect(backdropOf(grey, width, height, BACKDROP_DEFAULTS)).toBeNull();
    const studio = new Uint8Array(width * height).fill(9);
    for (let y = 3; y < 7; y++) for (let x = 10; x < 20; x++) studio[y * width + x] = 200;
    const backdrop = backdropOf(studio, width, height, BACKDROP_DEFAULTS);
    expect(backdrop?.[0]).toBe(1);
    expect(backdrop?.[5 * width + 15]).toBe(0);
  });

  it("with the photo texture test on, fills a gap the photos show plain and leaves one they show textured", async () => {
    const views = [overhead(-0.4), overhead(0.4)];
    const withTest = { ...OPTIONS, texture: PLANE_TEXTURE_TEST };
    // Ray cast from each overhead camera onto z = 0: plain grey, or a 5-cm checkerboard on the right half.
    const photographed = (view: RegisteredView, checkered: (x: number) => boolean): GreyPhoto => {
      const { width, height, focal, cx, cy } = view.intrinsics;
      const grey = new Uint8Array(width * height);
      for (let v = 0; v < height; v++) for (let u = 0; u < width; u++) {
        const x = -view.camFromWorld.t[0]! + (3 * (u + 0.5 - cx)) / focal, y = (-3 * (v + 0.5 - cy)) / focal;
        grey[v * width + u] = checkered(x) && (Math.floor(x / 0.05) + Math.floor(y / 0.05)) % 2 !== 0 ? 60 : 200;
      }
      return { view, grey, width, height, scale: 1 };
    };
    const photos = views.map((view) => photographed(view, (x) => x > 0));
    const { points, report } = await completePlanes(stripedFloor(false), views, VOXEL, SPACING, withTest, photos);
    expect(report.cellsTextured).toBeGreaterThan(100);
    expect(addedAt(points.positions, (x) => x > -0.6 && x < -0.3)).toBeGreaterThan(1000);
    expect(addedAt(points.positions, (x) => x > 0.3 && x < 0.6)).toBe(0);
    // Plain in every photo: both stripes filled, as from the points alone.
    const plain = await completePlanes(stripedFloor(false), views, VOXEL, SPACING, withTest, views.map((view) => photographed(view, () => false)));
    const alone = await completePlanes(stripedFloor(false), views, VOXEL, SPACING, OPTIONS);
    expect(plain.report.cellsTextured).toBe(0);
    expect(plain.points.count).toBe(alone.points.count);
  });
});
