/**
 * Completing the ground (compute/stages/mesh/ground-completion.ts): a courtyard seen from eye
 * height, as dense stereo leaves it: a wall full of points, a few hundred scattered points on
 * the ground, a compact slope of stairs with more points than the ground, and a box standing on
 * the ground. The ground (not the stairs) gets points where the cameras see it, on its plane,
 * and nowhere behind the wall, under the box or outside the photos; a floor that ends where the
 * photos see nothing beyond it is not carried on into the void; without ground points, or with
 * photos that do not agree on up, nothing is added. Where photos place the ground lower than its
 * points, the points' plane holds when they lie tightly on it, the photos' when they are noisy (a
 * rule that is off by default); the photos' sweep reads the ground the points cover as well as
 * the strip it adds along the photos' edges, where a lens error moves the ground most.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { completeGround, GROUND_DEFAULTS } from "../../../compute/stages/mesh/ground-completion.js";
import { cloudDepthImages, markMeasured } from "../../../compute/stages/mesh/see-through.js";
import { GROUND_SWEEP_DEFAULTS } from "../../../compute/stages/mesh/ground-sweep.js";
import { GROUND_REGION_DEFAULTS } from "../../../compute/stages/mesh/ground-regions.js";
import type { ImageRef, RegisteredView } from "../../../compute/scene/index.js";
import { createRng } from "../../../compute/math/random.js";

const VOXEL = 0.02;
const EYE = 1.6;
/** The wall's plane z = WALL, facing the cameras at z = 0. */
const WALL = 6;
/** The box standing on the ground: |x| ≤ 0.15, |z − 4.5| ≤ 0.15, 0.3 high. */
const BOX = { x: 0, z: 4.5, half: 0.15 };

/** An upright camera at (x, EYE, 0) looking along +z, rolled by `rollDeg` about its axis; the image's bottom row sees the ground at z = 3.2. */
function camera(x: number, rollDeg = 0): RegisteredView {
  const a = (rollDeg * Math.PI) / 180;
  const c = Math.cos(a), s = Math.sin(a);
  // Camera axes in the world (rows of R): right = (−1, 0, 0) and down = (0, −1, 0) turned by the roll, forward = +z.
  const R = new Float64Array([-c, s, 0, -s, -c, 0, 0, 0, 1]);
  const centre = [x, EYE, 0];
  const t = new Float64Array([0, 1, 2].map((r) => -(R[3 * r] * centre[0] + R[3 * r + 1] * centre[1] + R[3 * r + 2] * centre[2])));
  return { imageIndex: 0, name: `c${x}.jpg`, intrinsics: { width: 800, height: 600, focal: 600, cx: 400, cy: 300, k1: 0, k2: 0 }, camFromWorld: { R, t } };
}

/** `groundNoise`: the ground points' heights spread uniformly over ± half of it. */
function courtyard(groundPoints: number, groundNoise = 0.01) {
  const rng = createRng(7);
  const positions: number[] = [], normals: number[] = [];
  const add = (p: number[], n: number[]) => { positions.push(...p); normals.push(...n); };
  for (let x = -3; x <= 3; x += 0.02) for (let y = 0.02; y <= 4; y += 0.02) add([x, y, WALL], [0, 0, -1]);
  for (let i = 0; i < groundPoints; i++) add([-3 + 6 * rng(), (rng() - 0.5) * groundNoise, 1 + 5 * rng()], [0, 1, 0]);
  // Stairs at the wall's foot: treads and risers seen as one slope 18° from level, 1,000 points in 1 × 0.8.
  const rise = Math.tan((18 * Math.PI) / 180);
  const n = [0, Math.cos((18 * Math.PI) / 180), -Math.sin((18 * Math.PI) / 180)];
  for (let i = 0; i < 1000; i++) { const z = WALL - 0.8 + 0.8 * rng(); add([-0.5 + rng(), (z - (WALL - 0.8)) * rise, z], n); }
  // The box's four sides and top.
  for (let a = -BOX.half; a <= BOX.half; a += 0.01) for (let y = 0; y <= 0.3; y += 0.01) {
    add([BOX.x + a, y, BOX.z - BOX.half], [0, 0, -1]);
    add([BOX.x - BOX.half, y, BOX.z + a], [-1, 0, 0]);
    add([BOX.x + BOX.half, y, BOX.z + a], [1, 0, 0]);
  }
  for (let a = -BOX.half; a <= BOX.half; a += 0.01) for (let b = -BOX.half; b <= BOX.half; b += 0.01) add([BOX.x + a, 0.3, BOX.z + b], [0, 1, 0]);
  const count = positions.length / 3;
  return { positions: new Float32Array(positions), normals: new Float32Array(normals), colors: new Uint8Array(3 * count).fill(180), count };
}

const CAMERAS = [-1.5, -0.5, 0.5, 1.5].map((x) => camera(x));

/** Grey level of a textured surface at plane coordinates (a, b): several scales, like gravel or worn plaster. */
function texture(a: number, b: number): number {
  return 128 + 45 * Math.sin(9 * a) * Math.cos(7 * b) + 30 * Math.sin(31 * a + 17 * b) + 20 * Math.cos(53 * a - 41 * b);
}

/**
 * The cameras' photos, ray cast, of a textured ground at height `groundHeight` and the textured
 * wall behind it, written to `dir`, through a lens of radial distortion `lensK1` that the views
 * leave out; the views numbered to match.
 */
async function photograph(dir: string, groundHeight: number, lensK1 = 0): Promise<{ views: RegisteredView[]; images: ImageRef[] }> {
  const views = CAMERAS.map((view, index) => ({ ...view, imageIndex: index }));
  const images: ImageRef[] = [];
  for (const [index, view] of views.entries()) {
    const { width, height, focal, cx, cy } = view.intrinsics;
    const { R, t } = view.camFromWorld;
    const centre = [0, 1, 2].map((a) => -(R[a] * t[0] + R[3 + a] * t[1] + R[6 + a] * t[2]));
    const rgb = Buffer.alloc(3 * width * height);
    for (let row = 0; row < height; row++) for (let col = 0; col < width; col++) {
      // A lens the views do not model: the pixel at distorted radius r shows the ray at r / (1 + k1 r²) (one fixed-point step).
      const xd = (col + 0.5 - cx) / focal, yd = (row + 0.5 - cy) / focal;
      const undistort = 1 / (1 + lensK1 * (xd * xd + yd * yd));
      const cam = [xd * undistort, yd * undistort, 1];
      const ray = [0, 1, 2].map((a) => R[a] * cam[0] + R[3 + a] * cam[1] + R[6 + a] * cam[2]);
      const toWall = (WALL - centre[2]) / ray[2];
      const toGround = ray[1] < 0 ? (groundHeight - centre[1]) / ray[1] : Infinity;
      const s = Math.min(toWall, toGround);
      const hit = centre.map((c, a) => c + s * ray[a]);
      const grey = Math.max(0, Math.min(255, Math.round(s === toGround ? texture(hit[0], hit[2]) : texture(hit[0] + 7, hit[1]))));
      rgb.fill(grey, 3 * (row * width + col), 3 * (row * width + col) + 3);
    }
    const file = path.join(dir, `c${index}.png`);
    await sharp(rgb, { raw: { width, height, channels: 3 } }).png().toFile(file);
    images.push({ index, name: view.name, path: file, width, height, focalPrior: focal, focalPriorSource: "default" });
  }
  return { views, images };
}

function count(points: Float32Array, test: (x: number, y: number, z: number) => boolean): number {
  let n = 0;
  for (let i = 0; i < points.length; i += 3) if (test(points[i], points[i + 1], points[i + 2])) n++;
  return n;
}

describe("mesh/ground-completion", () => {
  it("fills the ground the cameras see, on its plane, and not the stairs' slope, behind the wall, beside the box or outside the photos", async () => {
    const { points, report } = await completeGround(courtyard(400), CAMERAS, VOXEL, [], new Int16Array(0).fill(-1), GROUND_DEFAULTS);
    expect(report.groundFound).toBe(1);
    expect(report.groundCameraHeightVoxels * VOXEL).toBeCloseTo(EYE, 1);
    // Upright cameras over a level ground: the ground's tilt from their up is its points' noise only.
    expect(report.groundTiltFromUpDeg).toBeLessThan(0.1);
    expect(report.groundMeanCameraHeightVoxels * VOXEL).toBeCloseTo(EYE, 2);
    for (let i = 0; i < points.count; i++) expect(points.normals[3 * i + 1]).toBeCloseTo(1, 3);
    expect(count(points.positions, (_x, y) => Math.abs(y) > 0.01)).toBe(0);
    // Every 0.2 × 0.2 patch of the ground in front of the cameras, away from the box and the stairs, has points.
    let patches = 0, filled = 0;
    for (let x = -1.3; x <= 1.3; x += 0.2) for (let z = 3.5; z <= 5.0; z += 0.2) {
      if (Math.abs(x - BOX.x) < 0.4 && Math.abs(z - BOX.z) < 0.4) continue;
      patches++;
      if (count(points.positions, (px, _y, pz) => Math.abs(px - x) < 0.1 && Math.abs(pz - z) < 0.1) > 0) filled++;
    }
    expect(filled / patches).toBeGreaterThan(0.95);
    expect(count(points.positions, (_x, _y, z) => z > WALL + 0.05)).toBe(0);
    // Nothing beside the box's sides, where ground points would drag them toward the ground (the box's inside is not seen, whatever it holds).
    const besideBox = (x: number, z: number) => Math.abs(Math.max(Math.abs(x - BOX.x), Math.abs(z - BOX.z)) - BOX.half) < 0.08;
    expect(count(points.positions, (x, _y, z) => besideBox(x, z))).toBe(0);
    // The bottom row of the photos meets the ground at z = 3.2: nearer ground is in no photo.
    expect(count(points.positions, (_x, _y, z) => z < 3.0)).toBe(0);
  });

  it("adds nothing inside a block standing on the ground, where every ray passes its front near the ground", async () => {
    // A block 1.5 wide, 1 deep and 0.6 high (x from −2.5 to −1, z from 4 to 5), with points on its front, sides and top as
    // dense stereo leaves them. A cell just inside its front lies within 5 % of the depth behind the front's foot.
    const yard = courtyard(400);
    const positions = Array.from(yard.positions), normals = Array.from(yard.normals);
    const add = (p: number[], n: number[]) => { positions.push(...p); normals.push(...n); };
    for (let a = 0; a <= 1; a += 0.01) for (let y = 0; y <= 0.6; y += 0.01) {
      add([-2.5 + 1.5 * a, y, 4], [0, 0, -1]);
      add([-1, y, 4 + a], [1, 0, 0]);
    }
    // Its top sparser than the ground's points, as stereo leaves a roof seen from below eye height.
    for (let a = 0; a <= 1; a += 0.05) for (let b = 0; b <= 1; b += 0.05) add([-2.5 + 1.5 * a, 0.6, 4 + b], [0, 1, 0]);
    const cloud = { positions: new Float32Array(positions), normals: new Float32Array(normals), colors: new Uint8Array(positions.length).fill(180), count: positions.length / 3 };
    const { points, report } = await completeGround(cloud, CAMERAS, VOXEL, [], new Int16Array(0), GROUND_DEFAULTS);
    expect(report.groundFound).toBe(1);
    expect(count(points.positions, (x, _y, z) => x > -2.5 && x < -1 && z > 4 && z < 5)).toBe(0);
    // The ground in front of the block is still filled.
    expect(count(points.positions, (x, _y, z) => x > -2.2 && x < -1.3 && z > 3.5 && z < 3.8)).toBeGreaterThan(0);
  });

  it("ends the ground where its points end, though the photos see nothing beyond (a floor turned against the grid)", async () => {
    // A square floor turned 45° (|x| + |z − 5| ≤ 2.5) with 400 scattered points, nothing around it: the cameras see past its far edges into the void.
    const rng = createRng(11);
    const positions: number[] = [], normals: number[] = [];
    while (positions.length < 3 * 400) {
      const x = -2.5 + 5 * rng(), z = 2.5 + 5 * rng();
      if (Math.abs(x) + Math.abs(z - 5) <= 2.5) { positions.push(x, (rng() - 0.5) * 0.01, z); normals.push(0, 1, 0); }
    }
    const floor = { positions: new Float32Array(positions), normals: new Float32Array(normals), colors: new Uint8Array(positions.length).fill(180), count: 400 };
    const { points, report } = await completeGround(floor, CAMERAS, VOXEL, [], new Int16Array(0), GROUND_DEFAULTS);
    expect(report.groundFound).toBe(1);
    expect(report.groundCellsBeyond).toBeGreaterThan(0);
    // Beyond the far edges (z > 5) by more than a few cells, nothing.
    expect(count(points.positions, (x, _y, z) => z > 5 && Math.abs(x) + Math.abs(z - 5) > 2.5 + 0.3)).toBe(0);
    // Inside, the floor the photos show (z ≥ 3.5) is filled.
    let patches = 0, filled = 0;
    for (let x = -2; x <= 2; x += 0.2) for (let z = 3.5; z <= 7; z += 0.2) {
      if (Math.abs(x) + Math.abs(z - 5) > 2.2) continue;
      patches++;
      if (count(points.positions, (px, _y, pz) => Math.abs(px - x) < 0.1 && Math.abs(pz - z) < 0.1) > 0) filled++;
    }
    expect(filled / patches).toBeGreaterThan(0.95);
  });

  it("reaches the ground's own ends where they hold few of the cloud's points (ground running on past the wall's end)", async () => {
    // The wall spans |x| ≤ 3 with some 60,000 points; the ground's 600 run on to |x| = 4.5, so the
    // strip past the wall's ends is under 1 % of the cloud, where the cloud's 2nd–98th percentiles
    // used to end the ground's grid. The two right-hand cameras see the ground there out to x ≈ 3.5.
    const yard = courtyard(0);
    const rng = createRng(5);
    const positions = Array.from(yard.positions), normals = Array.from(yard.normals);
    for (let i = 0; i < 600; i++) { positions.push(-4.5 + 9 * rng(), (rng() - 0.5) * 0.01, 1 + 5 * rng()); normals.push(0, 1, 0); }
    const cloud = { positions: new Float32Array(positions), normals: new Float32Array(normals), colors: new Uint8Array(positions.length).fill(180), count: positions.length / 3 };
    const { points, report } = await completeGround(cloud, CAMERAS, VOXEL, [], new Int16Array(0), GROUND_DEFAULTS);
    expect(report.groundFound).toBe(1);
    // Past the wall's right end, where the cameras at x = 0.5 and 1.5 both see the ground.
    let patches = 0, filled = 0;
    for (let x = 3.2; x <= 3.4; x += 0.1) for (let z = 4.6; z <= 5.8; z += 0.2) {
      patches++;
      if (count(points.positions, (px, _y, pz) => Math.abs(px - x) < 0.05 && Math.abs(pz - z) < 0.1) > 0) filled++;
    }
    expect(filled / patches).toBeGreaterThan(0.9);
  });

  it("is not seen through to a completed plane's points below it, only to measured ones", async () => {
    // Plane completion fills a plain wall wherever the photos leave it open, and with no ground point
    // to stop it the fill runs on below the ground: here the wall's plane filled 0.6 below the
    // ground, its points after the courtyard's measured ones. A camera looking at the ground
    // between z ≈ 4.4 and the wall's foot sees that fill beyond the ground along its ray.
    const yard = courtyard(400);
    const positions = Array.from(yard.positions), normals = Array.from(yard.normals);
    for (let x = -3; x <= 3; x += 0.02) for (let y = -0.6; y < 0; y += 0.02) { positions.push(x, y, WALL); normals.push(0, 0, -1); }
    const cloud = { positions: new Float32Array(positions), normals: new Float32Array(normals), colors: new Uint8Array(positions.length).fill(180), count: positions.length / 3 };
    const planeOf = new Int16Array(cloud.count).fill(-1);
    const known = () => ({ images: cloudDepthImages(yard.positions, yard.count, CAMERAS), count: yard.count });
    const inBand = (x: number, _y: number, z: number) => Math.abs(x) > 0.6 && Math.abs(x) < 1.4 && z > 4.7 && z < 5.4;
    const alone = await completeGround(yard, CAMERAS, VOXEL, [], new Int16Array(yard.count).fill(-1), GROUND_DEFAULTS, undefined, known());
    const measured = await completeGround(cloud, CAMERAS, VOXEL, [], planeOf, GROUND_DEFAULTS, undefined, { ...known(), images: markMeasured(known().images) });
    const unmarked = await completeGround(cloud, CAMERAS, VOXEL, [], planeOf, GROUND_DEFAULTS, undefined, known());
    const band = count(alone.points.positions, inBand);
    expect(band).toBeGreaterThan(500);
    expect(count(measured.points.positions, inBand)).toBe(band);
    expect(measured.report.groundCellsSeenThrough).toBe(alone.report.groundCellsSeenThrough);
    // Read from every point, the fill would have made the band an opening.
    expect(count(unmarked.points.positions, inBand)).toBeLessThan(band / 4);
    // Growing the images kept the measured depths apart: the wall's fill is in `depth`, not in `measured`.
    const grown = measured.images!;
    expect(grown.some((image) => image.depth.some((d, i) => d !== image.measured![i]))).toBe(true);
  });

  it("adds nothing without points on the ground, or when the photos disagree on up", async () => {
    const bare = await completeGround(courtyard(0), CAMERAS, VOXEL, [], new Int16Array(0), GROUND_DEFAULTS);
    expect(bare.report.groundFound).toBe(0);
    expect(bare.points.count).toBe(0);
    const tumbled = [camera(-1.5, 0), camera(-0.5, 120), camera(0.5, 240), camera(1.5, 90)];
    const rolled = await completeGround(courtyard(400), tumbled, VOXEL, [], new Int16Array(0), GROUND_DEFAULTS);
    expect(rolled.report.groundFound).toBe(0);
    expect(rolled.points.count).toBe(0);
  });

  it("keeps the ground on its points where they lie tightly on their plane, and on the photos where the points are noisy", async () => {
    // The photos show the ground 2.5 voxels below where its points lie.
    const drop = 2.5 * VOXEL;
    const dir = await mkdtemp(path.join(tmpdir(), "ground-photos-"));
    try {
      const { views, images } = await photograph(dir, -drop);
      const photos = { images, sweep: { ...GROUND_SWEEP_DEFAULTS, maxPointsOffsetSpreads: 3, pointsOffsetFloorVoxels: 1 } };
      const meanHeight = (positions: Float32Array) => {
        let sum = 0;
        for (let i = 1; i < positions.length; i += 3) sum += positions[i];
        return sum / (positions.length / 3);
      };
      // Points within ±0.25 voxel: the photos' plane lies 2.5 voxels off them and is refused.
      const tight = await completeGround(courtyard(400), views, VOXEL, [], new Int16Array(0), GROUND_DEFAULTS, photos);
      expect(tight.report.groundSweepShiftVoxels).toBeCloseTo(-2.5, 0);
      expect(tight.report.groundInlierSpreadVoxels).toBeLessThan(0.3);
      expect(tight.report.groundSweepPointsOffsetVoxels).toBeCloseTo(2.5, 0);
      expect(tight.report.groundSweepRefusedByPoints).toBe(1);
      expect(Math.abs(meanHeight(tight.points.positions))).toBeLessThan(0.25 * VOXEL);
      // Points spread over ±3 voxels: their plane is the less certain, and the photos' is kept.
      const noisy = await completeGround(courtyard(1500, 6 * VOXEL), views, VOXEL, [], new Int16Array(0), GROUND_DEFAULTS, photos);
      expect(noisy.report.groundInlierSpreadVoxels).toBeGreaterThan(0.9);
      expect(noisy.report.groundSweepRefusedByPoints).toBe(0);
      expect(meanHeight(noisy.points.positions)).toBeCloseTo(-drop, 2);
      // Without the rule the photos' plane replaces even the tight points' one.
      const unruled = await completeGround(courtyard(400), views, VOXEL, [], new Int16Array(0), GROUND_DEFAULTS, { images, sweep: { ...photos.sweep, maxPointsOffsetSpreads: Infinity } });
      expect(unruled.report.groundSweepRefusedByPoints).toBe(0);
      expect(meanHeight(unruled.points.positions)).toBeCloseTo(-drop, 2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("with a height per tile (an option), leaves a ground the photos show flat on its plane", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "ground-regions-"));
    try {
      const { views, images } = await photograph(dir, 0);
      const regions = await completeGround(courtyard(400), views, VOXEL, [], new Int16Array(0), { ...GROUND_DEFAULTS, regions: GROUND_REGION_DEFAULTS }, { images, sweep: GROUND_SWEEP_DEFAULTS });
      const plain = await completeGround(courtyard(400), views, VOXEL, [], new Int16Array(0), GROUND_DEFAULTS, { images, sweep: GROUND_SWEEP_DEFAULTS });
      expect(plain.report.groundRegionTilesSwept).toBe(0);
      expect(regions.report.groundRegionTilesSwept).toBeGreaterThan(3);
      expect(regions.report.groundRegionLargestMoveVoxels).toBeLessThanOrEqual(0.5);
      expect(regions.points.count).toBe(plain.points.count);
      let largest = 0;
      for (let i = 0; i < regions.points.positions.length; i++) largest = Math.max(largest, Math.abs(regions.points.positions[i] - plain.points.positions[i]));
      expect(largest / VOXEL).toBeLessThanOrEqual(0.5);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("sweeps the ground its points cover too, so that the photos' edges alone do not move it", async () => {
    // Dense points on the middle of the ground (z 3.6–5.6) and none along the photos' bottom edge,
    // where a lens distortion the views leave out (k1 = 0.04) moves the ground most in every photo.
    const cloud = courtyard(400);
    const dense: number[] = [];
    for (let x = -2.5; x <= 2.5; x += 0.02) for (let z = 3.6; z <= 5.6; z += 0.02) if (Math.abs(x - BOX.x) > 0.3 || Math.abs(z - BOX.z) > 0.3) dense.push(x, 0, z);
    const count = cloud.count + dense.length / 3;
    const withDense = {
      positions: Float32Array.from([...cloud.positions, ...dense]),
      normals: Float32Array.from([...cloud.normals, ...dense.map((_, i) => (i % 3 === 1 ? 1 : 0))]),
      colors: new Uint8Array(3 * count).fill(180),
      count,
    };
    const dir = await mkdtemp(path.join(tmpdir(), "ground-lens-"));
    try {
      const { views, images } = await photograph(dir, 0, 0.04);
      const run = (every: number) => completeGround(withDense, views, VOXEL, [], new Int16Array(0), { ...GROUND_DEFAULTS, sweepCoveredEvery: every }, { images, sweep: GROUND_SWEEP_DEFAULTS });
      const edgesOnly = await run(0);
      const withCovered = await run(4);
      const meanAbsHeight = (positions: Float32Array) => {
        let sum = 0;
        for (let i = 1; i < positions.length; i += 3) sum += Math.abs(positions[i]);
        return sum / (positions.length / 3) / VOXEL;
      };
      // Swept over the added strip alone, the ground lands 0.7 voxels off; with the covered ground read too, on it.
      expect(edgesOnly.report.groundSweepPatches).toBe(edgesOnly.report.groundCellsAdded);
      expect(meanAbsHeight(edgesOnly.points.positions)).toBeGreaterThan(0.5);
      expect(withCovered.report.groundSweepPatches).toBeGreaterThan(withCovered.report.groundCellsAdded);
      expect(meanAbsHeight(withCovered.points.positions)).toBeLessThan(0.15);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
