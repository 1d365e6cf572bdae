/** Oriented point samples of known surfaces, with seeded noise, for the mesh stage tests. */
import type { PointCloud, RegisteredView } from "../../../compute/scene/index.js";
import type { GreyPhoto } from "../../../compute/stages/mesh/photo-texture.js";
import { createRng, gaussian } from "../../../compute/math/random.js";

/** Deterministic generator (mulberry32) shared with the code under test. */
export const rng = createRng;

function cloudOf(count: number): PointCloud {
  return { count, positions: new Float32Array(3 * count), normals: new Float32Array(3 * count), colors: new Uint8Array(3 * count) };
}

/** Colour as a function of position, so colour transfer can be checked. */
export function colorAt(x: number, y: number, z: number): [number, number, number] {
  const c = (v: number): number => Math.max(0, Math.min(255, Math.round(128 + 100 * v)));
  return [c(x), c(y), c(z)];
}

function setPoint(cloud: PointCloud, i: number, p: number[], n: number[], noise: number, random: () => number): void {
  for (let a = 0; a < 3; a++) {
    cloud.positions[3 * i + a] = p[a] + noise * gaussian(random);
    cloud.normals[3 * i + a] = n[a];
  }
  cloud.colors.set(colorAt(p[0], p[1], p[2]), 3 * i);
}

/** Uniform samples of a sphere of `radius` at `centre`, outward normals, Gaussian position noise. */
export function spherePoints(count: number, radius: number, centre: number[], noise: number, seed = 1): PointCloud {
  const random = rng(seed);
  const cloud = cloudOf(count);
  for (let i = 0; i < count; i++) {
    const z = 2 * random() - 1;
    const phi = 2 * Math.PI * random();
    const r = Math.sqrt(1 - z * z);
    const n = [r * Math.cos(phi), r * Math.sin(phi), z];
    setPoint(cloud, i, n.map((v, a) => centre[a] + radius * v), n, noise, random);
  }
  return cloud;
}

/** Uniform samples of the surface of the axis-aligned box [-half, half], outward face normals. */
export function boxPoints(count: number, half: [number, number, number], noise: number, seed = 2): PointCloud {
  const random = rng(seed);
  const cloud = cloudOf(count);
  const areas = [half[1] * half[2], half[0] * half[2], half[0] * half[1]];
  const total = 2 * (areas[0] + areas[1] + areas[2]);
  for (let i = 0; i < count; i++) {
    let pick = random() * total;
    let axis = 0;
    while (axis < 2 && pick > 2 * areas[axis]) { pick -= 2 * areas[axis]; axis++; }
    const sign = random() < 0.5 ? -1 : 1;
    const p = [0, 1, 2].map((a) => (2 * random() - 1) * half[a]);
    p[axis] = sign * half[axis];
    const n = [0, 0, 0];
    n[axis] = sign;
    setPoint(cloud, i, p, n, noise, random);
  }
  return cloud;
}

/** Distance from p to the surface of the box [-half, half]. */
export function boxDistance(p: ArrayLike<number>, half: [number, number, number]): number {
  const q = [0, 1, 2].map((a) => Math.abs(p[a]) - half[a]);
  const outside = Math.hypot(Math.max(q[0], 0), Math.max(q[1], 0), Math.max(q[2], 0));
  return outside + Math.abs(Math.min(Math.max(q[0], q[1], q[2]), 0));
}

/** Uniform samples of the square [-half, half]² in the plane y = 0, normals +Y (an open surface). */
export function planePoints(count: number, half: number, noise: number, seed = 3): PointCloud {
  const random = rng(seed);
  const cloud = cloudOf(count);
  for (let i = 0; i < count; i++) {
    setPoint(cloud, i, [(2 * random() - 1) * half, 0, (2 * random() - 1) * half], [0, 1, 0], noise, random);
  }
  return cloud;
}

/** Edges used by exactly one face. */
export function boundaryEdges(indices: Uint32Array): number {
  const count = new Map<string, number>();
  for (let f = 0; f < indices.length; f += 3) for (let k = 0; k < 3; k++) {
    const a = indices[f + k], b = indices[f + ((k + 1) % 3)];
    const key = `${Math.min(a, b)},${Math.max(a, b)}`;
    count.set(key, (count.get(key) ?? 0) + 1);
  }
  return [...count.values()].filter((c) => c === 1).length;
}

/**
 * A 480 × 360 grey photo (focal 420 px) from a camera at (x, eye, 0) looking along +z, pitched
 * down by `pitchDeg`, ray cast: each pixel's grey is `shade` of the camera's centre and the pixel's
 * ray in the world (undefined: nothing there, left 0).
 */
export function eyeLevelPhoto(x: number, eye: number, pitchDeg: number, shade: (centre: number[], ray: number[], row: number, col: number) => number | undefined): GreyPhoto {
  const width = 480, height = 360, focal = 420;
  const p = (pitchDeg * Math.PI) / 180;
  // Rows of R: the camera's right, down and forward axes in the world.
  const R = new Float64Array([-1, 0, 0, 0, -Math.cos(p), -Math.sin(p), 0, -Math.sin(p), Math.cos(p)]);
  const centre = [x, eye, 0];
  const t = new Float64Array([0, 1, 2].map((r) => -(R[3 * r] * centre[0] + R[3 * r + 1] * centre[1] + R[3 * r + 2] * centre[2])));
  const view: RegisteredView = { imageIndex: 0, name: `c${x}.png`, intrinsics: { width, height, focal, cx: width / 2, cy: height / 2, k1: 0, k2: 0 }, camFromWorld: { R, t } };
  const grey = new Float32Array(width * height);
  for (let row = 0; row < height; row++) for (let col = 0; col < width; col++) {
    const cam = [(col + 0.5 - width / 2) / focal, (row + 0.5 - height / 2) / focal, 1];
    const ray = [0, 1, 2].map((a) => R[a] * cam[0] + R[3 + a] * cam[1] + R[6 + a] * cam[2]);
    grey[row * width + col] = shade(centre, ray, row, col) ?? 0;
  }
  return { view, grey, width, height, scale: 1 };
}
