/**
 * Completing walls that stand on the ground (compute/stages/mesh/standing-walls.ts): a wall 3 m
 * high and 6 m long in front of four cameras at eye height, of which dense stereo found only the
 * top edge and a few hundred points of the ground before it, as on a plain wall in shade. Its
 * photos are ray cast here in grey. The plain wall is filled from the ground to its top edge, on
 * its plane; the same wall textured in the photos is not (stereo would have matched it: the hole
 * is not the wall's); a rail 1 m high with the ground seen behind it is not either. A wall whose
 * upper part plane completion found as a plane is carried down to the ground the same way, and a
 * wall whose points stop short of its end is carried on to its end, not past it, also where it
 * is lower there than its last points (the cameras see sky over its top). Where stereo
 * matched a band lower on the wall instead of its top edge, over less than maxGapVoxels, the wall
 * is still filled to its top edge there; where it matched only such a band along the whole wall,
 * whose top no photo shows, the wall rises as high as the photos see it plain.
 */
import { describe, expect, it } from "vitest";
import type { ImageRef, RegisteredView } from "../../../compute/scene/index.js";
import { createRng } from "../../../compute/math/random.js";
import type { GreyPhoto } from "../../../compute/stages/mesh/photo-texture.js";
import type { Plane } from "../../../compute/stages/mesh/planes.js";
import { cloudDepthImages, type DepthImage } from "../../../compute/stages/mesh/see-through.js";
import { completeStandingWalls, STANDING_WALL_DEFAULTS } from "../../../compute/stages/mesh/standing-walls.js";

const VOXEL = 0.02;
const EYE = 1.6;
/** The wall's plane z = WALL_Z, |x| ≤ 3, from the ground (y = 0) up to its top. */
const WALL_Z = 6;
const GROUND = { normal: [0, 1, 0] as [number, number, number], d: 0 };
const INTRINSICS = { width: 400, height: 300, focal: 300, cx: 200, cy: 150, k1: 0, k2: 0 };

/** An upright camera at (x, EYE, 0) looking along +z. */
function camera(x: number, index: number): RegisteredView {
  const R = new Float64Array([-1, 0, 0, 0, -1, 0, 0, 0, 1]);
  const t = new Float64Array([x, EYE, 0]);
  return { imageIndex: index, name: `c${index}.jpg`, intrinsics: INTRINSICS, camFromWorld: { R, t } };
}

const VIEWS = [-1.5, -0.5, 0.5, 1.5].map(camera);

interface Scene {
  wallTop: number;
  /** The ground's points reach this far (beyond the wall: the ground behind a rail). */
  groundTo: number;
  /** Grey-level amplitude of the wall's texture in the photos (0: plain). */
  wallTexture: number;
  /** False: a rail, only its top 0.1 m solid. */
  solid: boolean;
  /** Where the top edge's points end along x (the wall itself ends at x = 3). */
  edgeTo?: number;
  /** Over x in [from, to] stereo matched a band at height y instead of the top edge (a mark on the wall, its top unmatched there). */
  band?: { from: number; to: number; y: number };
  /** From x = from on, the wall is only `top` high (the top edge's points end before it, `edgeTo`), and the depth images mark the sky above it (sky.ts). */
  step?: { from: number; top: number };
}

/** The wall's top at x. */
function wallTopAt(scene: Scene, x: number): number {
  return scene.step && x >= scene.step.from ? scene.step.top : scene.wallTop;
}

/** The cloud dense stereo leaves: the wall's top edge (its top 0.1 m) and scattered ground. */
function cloud(scene: Scene) {
  const rng = createRng(11);
  const positions: number[] = [];
  for (let x = -3; x <= (scene.edgeTo ?? 3); x += 0.02) {
    const top = scene.band && x >= scene.band.from && x <= scene.band.to ? scene.band.y : scene.wallTop;
    for (let y = top - 0.1; y <= top; y += 0.02) positions.push(x, y, WALL_Z);
  }
  for (let i = 0; i < 600; i++) positions.push(-3 + 6 * rng(), (rng() - 0.5) * 0.01, 2 + (scene.groundTo - 2) * rng());
  const count = positions.length / 3;
  return { positions: new Float32Array(positions), colors: new Uint8Array(3 * count).fill(150), count };
}

/** The view's photo in grey: the wall (plain or textured in 10 cm squares), the ground, the sky. */
function photo(view: RegisteredView, scene: Scene): GreyPhoto {
  const { width, height, focal, cx, cy } = view.intrinsics;
  const grey = new Uint8Array(width * height);
  const centre = [view.camFromWorld.t[0], EYE, 0];
  const hash = (a: number, b: number) => (Math.sin(a * 127.1 + b * 311.7) * 43758.5453) % 1;
  for (let row = 0; row < height; row++) for (let col = 0; col < width; col++) {
    // Camera axes: right = −x, down = −y, forward = +z.
    const ray = [-(col + 0.5 - cx) / focal, -(row + 0.5 - cy) / focal, 1];
    let value = 220;
    const toWall = (WALL_Z - centre[2]) / ray[2];
    const wx = centre[0] + toWall * ray[0], wy = centre[1] + toWall * ray[1];
    if (Math.abs(wx) <= 3 && wy >= (scene.solid ? 0 : scene.wallTop - 0.1) && wy <= wallTopAt(scene, wx)) value = 150 + scene.wallTexture * hash(Math.floor(wx * 10), Math.floor(wy * 10));
    else if (ray[1] < 0) {
      const toGround = -centre[1] / ray[1];
      value = 110 + 30 * hash(Math.floor((centre[0] + toGround * ray[0]) * 20), Math.floor((centre[2] + toGround * ray[2]) * 20));
    }
    grey[row * width + col] = Math.max(0, Math.min(255, Math.round(value)));
  }
  return { view, grey, width, height, scale: 1 };
}

/** Infinity in the depth image where its ray meets neither the wall nor the ground, as sky.ts marks a clear sky. */
function markSky(image: DepthImage, scene: Scene): void {
  const { focal, cx, cy } = image.view.intrinsics;
  const centreX = image.view.camFromWorld.t[0];
  for (let v = 0; v < image.height; v++) for (let u = 0; u < image.width; u++) {
    const ray = [-((u + 0.5) * image.scale - cx) / focal, -((v + 0.5) * image.scale - cy) / focal];
    const wx = centreX + WALL_Z * ray[0], wy = EYE + WALL_Z * ray[1];
    const onWall = Math.abs(wx) <= 3 && wy <= wallTopAt(scene, wx);
    if (!onWall && ray[1] >= 0 && image.depth[v * image.width + u] === 0) image.depth[v * image.width + u] = Infinity;
  }
}

/** With `asPlane`, the wall's points are a plane of plane completion (its upper part, found as a plane), not a run of loose points. */
async function complete(scene: Scene, asPlane = false) {
  const points = cloud(scene);
  const images = cloudDepthImages(points.positions, points.count, VIEWS);
  if (scene.step) for (const image of images) markSky(image, scene);
  const read = VIEWS.map((view) => photo(view, scene));
  const refs: ImageRef[] = [];
  const planeOf = new Int16Array(points.count).fill(-1);
  const planes: Plane[] = [];
  if (asPlane) {
    const inliers: number[] = [];
    for (let i = 0; i < points.count; i++) if (points.positions[3 * i + 2] === WALL_Z) inliers.push(i);
    inliers.forEach((i) => (planeOf[i] = 0));
    planes.push({ normal: [0, 0, 1], d: WALL_Z, inliers: Uint32Array.from(inliers) });
  }
  return completeStandingWalls(points, points.count, VIEWS, VOXEL, VOXEL, GROUND, planes, planeOf, images, { images: refs, read }, STANDING_WALL_DEFAULTS);
}

describe("mesh/standing-walls", () => {
  it("fills a plain wall seen only at its top edge, on its plane, from the ground to the edge", async () => {
    const { points, report } = await complete({ wallTop: 3, groundTo: WALL_Z - 0.1, wallTexture: 0, solid: true });
    expect(report.wallRuns).toBeGreaterThanOrEqual(1);
    expect(report.wallCellsAdded).toBeGreaterThan(0);
    let onWall = 0, belowEdge = 0;
    const covered = new Set<string>();
    for (let i = 0; i < points.count; i++) {
      const x = points.positions[3 * i], y = points.positions[3 * i + 1], z = points.positions[3 * i + 2];
      if (Math.abs(z - WALL_Z) < 2 * VOXEL) onWall++;
      if (y > 0 && y < 3 + 2 * VOXEL) belowEdge++;
      covered.add(`${Math.floor(x / 0.25)},${Math.floor(y / 0.25)}`);
      expect(points.normals[3 * i + 2]).toBeCloseTo(-1, 5);
    }
    expect(onWall).toBe(points.count);
    expect(belowEdge).toBe(points.count);
    // The cameras see x within about ±3 m at the wall: most of its 24 × 12 quarter-metre squares below the edge get points.
    expect(covered.size).toBeGreaterThan(0.8 * 24 * 11);
  });

  it("fills the wall to its top edge over a stretch where stereo matched only a band lower down", async () => {
    // 0.5 m of the wall's 6 m (maxGapVoxels: 0.8 m) with points only at 1.2–1.3 m.
    const { points } = await complete({ wallTop: 3, groundTo: WALL_Z - 0.1, wallTexture: 0, solid: true, band: { from: -0.3, to: 0.2, y: 1.3 } });
    let highInBand = 0;
    for (let i = 0; i < points.count; i++) {
      const x = points.positions[3 * i], y = points.positions[3 * i + 1];
      expect(y).toBeLessThan(3 + 2 * VOXEL);
      if (x > -0.25 && x < 0.15 && y > 1.5) highInBand++;
    }
    // 0.4 m × 1.4 m (1.5 m up to the edge's band, which has its own points) at 2 cm: 1,400 points when every cell is filled.
    expect(highInBand).toBeGreaterThan(0.7 * 1_400);
  });

  it("carries an upright plane found only in a wall's upper part down to the ground", async () => {
    const { points, report } = await complete({ wallTop: 3, groundTo: WALL_Z - 0.1, wallTexture: 0, solid: true }, true);
    expect(report.wallPlanes).toBe(1);
    expect(report.wallRuns).toBe(0);
    let low = 0;
    for (let i = 0; i < points.count; i++) {
      expect(Math.abs(points.positions[3 * i + 2] - WALL_Z)).toBeLessThan(2 * VOXEL);
      if (points.positions[3 * i + 1] < 1) low++;
    }
    // The lowest metre of the wall's 6 m, at 2 cm spacing: 15,000 points if every cell is filled.
    expect(low).toBeGreaterThan(0.7 * 15_000);
  });

  it("carries a plain wall on to its end past the last of its points, and no further", async () => {
    const { points, report } = await complete({ wallTop: 3, groundTo: WALL_Z - 0.1, wallTexture: 0, solid: true, edgeTo: 2.2 });
    expect(report.wallEndCellsAdded).toBeGreaterThan(0);
    let atEnd = 0, beyond = 0;
    for (let i = 0; i < points.count; i++) {
      const x = points.positions[3 * i];
      if (x > 2.8 && x <= 3) atEnd++;
      if (x > 3.1 || x < -3.1) beyond++;
    }
    expect(atEnd).toBeGreaterThan(0);
    expect(beyond).toBe(0);
  });

  it("carries a plain wall on to its end where it is lower than its last points, below the sky the cameras see over it", async () => {
    const { points, report } = await complete({ wallTop: 3, groundTo: WALL_Z - 0.1, wallTexture: 0, solid: true, edgeTo: 1.6, step: { from: 1.4, top: 2.2 } });
    expect(report.wallEndCellsAdded).toBeGreaterThan(0);
    let atEnd = 0, beyond = 0, overTop = 0;
    for (let i = 0; i < points.count; i++) {
      const x = points.positions[3 * i], y = points.positions[3 * i + 1];
      if (x > 2.8 && x <= 3) atEnd++;
      if (x > 3.1 || x < -3.1) beyond++;
      if (x > 1.8 && y > 2.2 + 0.1) overTop++;
    }
    expect(atEnd).toBeGreaterThan(0);
    expect(beyond).toBe(0);
    expect(overTop).toBe(0);
  });

  it("raises a plain wall above where its points stop, up to the top of the cameras' frames", async () => {
    // A house front 5 m high, its top out of every photo (they see the wall up to 4.6 m), whose
    // points stereo found only in a band at 1.9–2 m along its whole length.
    const { points, report } = await complete({ wallTop: 5, groundTo: WALL_Z - 0.1, wallTexture: 0, solid: true, band: { from: -3.1, to: 3.1, y: 2 } });
    expect(report.wallRaisedCellsAdded).toBeGreaterThan(0);
    let high = 0;
    for (let i = 0; i < points.count; i++) {
      const y = points.positions[3 * i + 1];
      expect(Math.abs(points.positions[3 * i + 2] - WALL_Z)).toBeLessThan(2 * VOXEL);
      // No camera sees the wall above 4.6 m: nothing is raised there.
      expect(y).toBeLessThan(4.7);
      if (y > 3.5 && y < 4.4) high++;
    }
    // The middle 4 m of the wall (all four cameras see it) from 3.5 to 4.4 m at 2 cm: 9,000 points; more with the ends.
    expect(high).toBeGreaterThan(0.7 * 9_000);
  });

  it("leaves the wall alone where the photos show it textured: the hole is not the wall's", async () => {
    const { points, report } = await complete({ wallTop: 3, groundTo: WALL_Z - 0.1, wallTexture: 80, solid: true });
    expect(report.wallCellsTextured).toBeGreaterThan(0);
    expect(points.count).toBe(0);
  });

  it("leaves a rail with the ground seen behind it open", async () => {
    const { points, report } = await complete({ wallTop: 1, groundTo: WALL_Z + 4, wallTexture: 0, solid: false });
    expect(report.wallCellsSeenThrough).toBeGreaterThan(0);
    expect(points.count).toBe(0);
  });
});
