/**
 * Plain objects closed from the space the views show empty around them
 * (compute/stages/mesh/hull-completion.ts): a plain box (no depth on any of its faces) on a
 * measured floor, photographed by sixteen cameras all around it. Each view's depth image is ray
 * cast here: the floor's depth where a ray meets the floor first, nothing where it meets the box
 * or misses both. The completion must put points on the box's four sides and its top, with
 * normals pointing out of it, and nowhere else; the floor alone gets none. A depthless region that
 * touches the image's border (a sky, a plain wall filling the frame) is no evidence: the same box
 * seen only against the sky is not closed. A plain patch of a measured wall, which no view measured,
 * is no object either: the space behind the wall that its block leans on was never seen.
 */
import { describe, expect, it } from "vitest";
import type { RegisteredView } from "../../../compute/scene/index.js";
import { completeHulls, enclosedBlank, HULL_DEFAULTS } from "../../../compute/stages/mesh/hull-completion.js";
import { depthImageShape, type DepthImage } from "../../../compute/stages/mesh/see-through.js";

const BOX_HALF = [0.2, 0.15];
const BOX_TOP = 0.3;
const FLOOR_HALF = 1.5;
const SPACING = 0.005;
const VOXEL = 0.01;
const GROUND = { normal: [0, 0, 1], d: 0 };

/** Camera `i` of `n` on a ring of radius 1.5 at height 0.8, looking at the box's middle. */
function ringView(i: number, n: number): RegisteredView {
  const a = (2 * Math.PI * i) / n;
  const eye = [1.5 * Math.cos(a), 1.5 * Math.sin(a), 0.8];
  const target = [0, 0, 0.15];
  const forward = normalise(target.map((t, k) => t - eye[k]));
  const right = normalise(cross(forward, [0, 0, 1]));
  const down = cross(forward, right);
  const R = new Float64Array([...right, ...down, ...forward]);
  const t = new Float64Array([0, 1, 2].map((r) => -(R[3 * r] * eye[0] + R[3 * r + 1] * eye[1] + R[3 * r + 2] * eye[2])));
  return { imageIndex: i, name: `ring-${i}.jpg`, intrinsics: { width: 640, height: 480, focal: 560, cx: 320, cy: 240, k1: 0, k2: 0 }, camFromWorld: { R, t } };
}

function cross(a: number[], b: number[]): number[] {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

function normalise(v: number[]): number[] {
  const l = Math.hypot(v[0], v[1], v[2]);
  return v.map((x) => x / l);
}

/** Ray parameter of the box's first hit along `d` from `o` (slab test), or Infinity. */
function boxHit(o: number[], d: number[]): number {
  const lo = [-BOX_HALF[0], -BOX_HALF[1], 0], hi = [BOX_HALF[0], BOX_HALF[1], BOX_TOP];
  let near = 0, far = Infinity;
  for (let k = 0; k < 3; k++) {
    if (Math.abs(d[k]) < 1e-12) {
      if (o[k] < lo[k] || o[k] > hi[k]) return Infinity;
      continue;
    }
    const t1 = (lo[k] - o[k]) / d[k], t2 = (hi[k] - o[k]) / d[k];
    near = Math.max(near, Math.min(t1, t2));
    far = Math.min(far, Math.max(t1, t2));
  }
  return near <= far ? near : Infinity;
}

/**
 * A depth image of the view ray cast through `depthAlong`: the depth (the ray's parameter, its
 * direction having a camera z of 1) of what the ray from `eye` along `d` measures, 0 for nothing.
 */
function castDepth(view: RegisteredView, depthAlong: (eye: number[], d: number[]) => number): DepthImage {
  const { width, height, scale } = depthImageShape(view);
  const { R, t } = view.camFromWorld;
  const k = view.intrinsics;
  const eye = [0, 1, 2].map((a) => -(R[a] * t[0] + R[3 + a] * t[1] + R[6 + a] * t[2]));
  const depth = new Float32Array(width * height);
  for (let v = 0; v < height; v++) for (let u = 0; u < width; u++) {
    const ray = [((u + 0.5) * scale - k.cx) / k.focal, ((v + 0.5) * scale - k.cy) / k.focal, 1];
    const d = [0, 1, 2].map((a) => R[a] * ray[0] + R[3 + a] * ray[1] + R[6 + a] * ray[2]);
    depth[v * width + u] = depthAlong(eye, d);
  }
  return { view, width, height, scale, depth };
}

/** The view's own depth image: the floor's depth where the floor is hit first; 0 on the box and past the floor. With `box` false the box is not there. */
function ownDepth(view: RegisteredView, box: boolean, floor = true): DepthImage {
  return castDepth(view, (eye, d) => {
    const tFloor = d[2] < 0 ? -eye[2] / d[2] : Infinity;
    const hitFloor = floor && tFloor < Infinity && Math.abs(eye[0] + tFloor * d[0]) <= FLOOR_HALF && Math.abs(eye[1] + tFloor * d[1]) <= FLOOR_HALF;
    const tBox = box ? boxHit(eye, d) : Infinity;
    if (tBox < (hitFloor ? tFloor : Infinity)) return 0;
    return hitFloor ? tFloor : 0;
  });
}

/** The measured floor: a grid at SPACING over the floor, less the box's footprint; with `rim`, the box's edges too (stereo finds its outline). */
function floorCloud(rim: boolean): { positions: Float32Array; colors: Uint8Array; count: number } {
  const positions: number[] = [];
  for (let y = -FLOOR_HALF; y <= FLOOR_HALF; y += SPACING) for (let x = -FLOOR_HALF; x <= FLOOR_HALF; x += SPACING) {
    if (Math.abs(x) < BOX_HALF[0] && Math.abs(y) < BOX_HALF[1]) continue;
    positions.push(x, y, 0);
  }
  if (rim) {
    for (let x = -BOX_HALF[0]; x <= BOX_HALF[0]; x += SPACING) positions.push(x, -BOX_HALF[1], BOX_TOP, x, BOX_HALF[1], BOX_TOP);
    for (let y = -BOX_HALF[1]; y <= BOX_HALF[1]; y += SPACING) positions.push(-BOX_HALF[0], y, BOX_TOP, BOX_HALF[0], y, BOX_TOP);
    for (let z = 0; z <= BOX_TOP; z += SPACING) for (const sx of [-1, 1]) for (const sy of [-1, 1]) positions.push(sx * BOX_HALF[0], sy * BOX_HALF[1], z);
  }
  return { positions: new Float32Array(positions), colors: new Uint8Array(positions.length).fill(120), count: positions.length / 3 };
}

/** Distance from p to the box's surface (outside: to the box; inside: to its nearest face). */
function boxSurfaceDistance(p: number[]): number {
  const c = [0, 0, BOX_TOP / 2], half = [BOX_HALF[0], BOX_HALF[1], BOX_TOP / 2];
  const q = [0, 1, 2].map((k) => Math.abs(p[k] - c[k]) - half[k]);
  const outside = Math.hypot(Math.max(q[0], 0), Math.max(q[1], 0), Math.max(q[2], 0));
  return outside > 0 ? outside : -Math.max(q[0], q[1], q[2]);
}

/** Camera `i` of `n` on an arc 2 in front of the wall at y = WALL_Y (from −60° to 60°), at heights 0.5 and 1.5 in turn, looking at the patch. */
function arcView(i: number, n: number): RegisteredView {
  const a = ((-60 + (120 * i) / (n - 1)) * Math.PI) / 180;
  const eye = [2 * Math.sin(a), WALL_Y - 2 * Math.cos(a), i % 2 === 0 ? 0.5 : 1.5];
  const forward = normalise([PATCH.x[0] + PATCH.x[1], 2 * WALL_Y, PATCH.z[0] + PATCH.z[1]].map((t, k) => t / 2 - eye[k]));
  const right = normalise(cross(forward, [0, 0, 1]));
  const down = cross(forward, right);
  const R = new Float64Array([...right, ...down, ...forward]);
  const t = new Float64Array([0, 1, 2].map((r) => -(R[3 * r] * eye[0] + R[3 * r + 1] * eye[1] + R[3 * r + 2] * eye[2])));
  return { imageIndex: i, name: `arc-${i}.jpg`, intrinsics: { width: 640, height: 480, focal: 500, cx: 320, cy: 240, k1: 0, k2: 0 }, camFromWorld: { R, t } };
}

const WALL_Y = 1;
/** The plain patch of the wall that no view measured. */
const PATCH = { x: [-0.25, 0.25], z: [0.6, 1.1] };

/** A view's depth of a measured floor (z = 0, y < WALL_Y) and wall (y = WALL_Y, z < 2), nothing on the patch or beyond. */
function wallDepth(view: RegisteredView): DepthImage {
  return castDepth(view, (eye, d) => {
    const tFloor = d[2] < 0 ? -eye[2] / d[2] : Infinity;
    const tWall = d[1] > 0 ? (WALL_Y - eye[1]) / d[1] : Infinity;
    const hit = Math.min(tFloor, tWall);
    if (hit === Infinity) return 0;
    const p = eye.map((e, a) => e + hit * d[a]);
    if (Math.abs(p[0]) > 1.5 || p[2] > 2 || p[1] < WALL_Y - 2.5) return 0;
    if (hit === tWall && p[0] > PATCH.x[0] && p[0] < PATCH.x[1] && p[2] > PATCH.z[0] && p[2] < PATCH.z[1]) return 0;
    return hit;
  });
}

/** The measured floor and wall at SPACING, less the patch. */
function wallCloud(): { positions: Float32Array; colors: Uint8Array; count: number } {
  const positions: number[] = [];
  for (let y = WALL_Y - 2.5; y <= WALL_Y; y += SPACING) for (let x = -1.5; x <= 1.5; x += SPACING) positions.push(x, y, 0);
  for (let z = SPACING; z <= 2; z += SPACING) for (let x = -1.5; x <= 1.5; x += SPACING) {
    if (x > PATCH.x[0] && x < PATCH.x[1] && z > PATCH.z[0] && z < PATCH.z[1]) continue;
    positions.push(x, WALL_Y, z);
  }
  return { positions: new Float32Array(positions), colors: new Uint8Array(positions.length).fill(120), count: positions.length / 3 };
}

describe("hull completion", () => {
  const views = Array.from({ length: 16 }, (_, i) => ringView(i, 16));
  const floor = floorCloud(false);
  const floorAndRim = floorCloud(true);

  it("closes a plain box on a measured floor: points on its sides and top, facing out, and nowhere else", () => {
    const images = views.map((view) => ownDepth(view, true));
    const { points, dropped, report } = completeHulls(images, floorAndRim, floorAndRim, VOXEL, SPACING, HULL_DEFAULTS, GROUND);
    expect(report.hullBlocksKept).toBeGreaterThanOrEqual(1);
    expect(points.count).toBeGreaterThan(1000);
    const cell = report.hullCellSize;
    // The views look down at 18° over the box's top edges, so its blank top is closed by a roof
    // no view can tell from the top: up to 0.15 · tan 18° ≈ 0.05 above it at the middle.
    const roof = 0.15 * Math.tan((18.5 * Math.PI) / 180);
    let far = 0, inward = 0;
    const sides = { px: 0, nx: 0, py: 0, ny: 0, top: 0 };
    for (let i = 0; i < points.count; i++) {
      const p = [points.positions[3 * i], points.positions[3 * i + 1], points.positions[3 * i + 2]];
      const n = [points.normals[3 * i], points.normals[3 * i + 1], points.normals[3 * i + 2]];
      const allowed = 2.5 * cell + (p[2] > BOX_TOP ? roof : 0);
      if (Math.abs(boxSurfaceDistance(p)) > allowed) far++;
      // Outward: the normal points away from the box's middle.
      if (n[0] * p[0] + n[1] * p[1] + n[2] * (p[2] - BOX_TOP / 2) < 0) inward++;
      if (p[2] > BOX_TOP - 2 * cell && n[2] > 0.7) sides.top++;
      else if (n[0] > 0.7) sides.px++;
      else if (n[0] < -0.7) sides.nx++;
      else if (n[1] > 0.7) sides.py++;
      else if (n[1] < -0.7) sides.ny++;
    }
    // A visual hull from sixteen views 22.5° apart stands off the box's faces by up to about two
    // cells (only the views along a face see past it close by): within 2.5 cells, and the roof.
    expect(far / points.count).toBeLessThan(0.01);
    expect(inward / points.count).toBeLessThan(0.02);
    for (const [side, n] of Object.entries(sides)) expect(n, side).toBeGreaterThan(100);
    // The floor's points all stay; of the rim's, those in cells whose faces got points give way to them.
    const floorCount = floor.count;
    expect(dropped).not.toBeNull();
    expect(dropped!.subarray(0, floorCount).every((d) => d === 0)).toBe(true);
  });

  it("adds nothing to a floor with nothing on it", () => {
    const images = views.map((view) => ownDepth(view, false));
    const { points, report } = completeHulls(images, floor, floor, VOXEL, SPACING, HULL_DEFAULTS, GROUND);
    expect(report.hullBlocksKept).toBe(0);
    expect(points.count).toBe(0);
  });

  it("takes no depthless region that touches the image's border as evidence", () => {
    // The box against nothing (no floor): every view's depthless region runs to its borders.
    const images = views.map((view) => ownDepth(view, true, false));
    for (const image of images) expect(enclosedBlank(image, HULL_DEFAULTS.maxEnclosedShare).some((x) => x === 1)).toBe(false);
    const { points } = completeHulls(images, floor, floor, VOXEL, SPACING, HULL_DEFAULTS, GROUND);
    expect(points.count).toBe(0);
  });

  it("takes a hole in a wall's depth for no object: its block leans on the space behind the wall", () => {
    const arc = Array.from({ length: 9 }, (_, i) => arcView(i, 9));
    const images = arc.map((view) => wallDepth(view));
    const wall = wallCloud();
    // Without the rule the hole's block (in front of the patch and behind it) would be closed.
    const loose = completeHulls(images, wall, wall, VOXEL, SPACING, { ...HULL_DEFAULTS, maxUnseenFaceShare: 1 }, GROUND);
    expect(loose.report.hullBlocksKept).toBe(1);
    expect(loose.points.count).toBeGreaterThan(1000);
    const { points, report } = completeHulls(images, wall, wall, VOXEL, SPACING, HULL_DEFAULTS, GROUND);
    expect(report.hullBlocksAgainstSurface).toBe(1);
    expect(report.hullBlocksKept).toBe(0);
    expect(points.count).toBe(0);
  });

  it("does not close a box that too few views show enclosed", () => {
    const images = views.slice(0, HULL_DEFAULTS.minEnclosedViews - 1).map((view) => ownDepth(view, true));
    const { points } = completeHulls(images, floor, floor, VOXEL, SPACING, HULL_DEFAULTS, GROUND);
    expect(points.count).toBe(0);
  });
});
