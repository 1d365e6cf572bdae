/** Small synthetic scenes for the writer round-trip tests: a coloured cube mesh, a cloud, cameras. */
import type { Mesh, PointCloud, RegisteredView } from "../../../compute/scene/index.js";
import { createRng } from "../../../compute/math/random.js";

/** Axis-aligned cube [-1,1]³ + `centre`, 8 vertices, 12 CCW-from-outside triangles, per-vertex colours. */
export function cubeMesh(centre: [number, number, number] = [0.25, -0.5, 2]): Mesh {
  const positions = new Float32Array(24);
  const colors = new Uint8Array(24);
  const normals = new Float32Array(24);
  for (let v = 0; v < 8; v++) {
    const s = [v & 1 ? 1 : -1, v & 2 ? 1 : -1, v & 4 ? 1 : -1];
    for (let a = 0; a < 3; a++) {
      positions[3 * v + a] = centre[a] + s[a];
      normals[3 * v + a] = s[a] / Math.sqrt(3);
      colors[3 * v + a] = (37 * v + 91 * a) % 256;
    }
  }
  // Quads as corner bit patterns, listed CCW seen from outside.
  const quads = [
    [0, 2, 3, 1], [4, 5, 7, 6], // z = -1, z = +1
    [0, 1, 5, 4], [2, 6, 7, 3], // y = -1, y = +1
    [0, 4, 6, 2], [1, 3, 7, 5], // x = -1, x = +1
  ];
  const indices = new Uint32Array(36);
  quads.forEach(([a, b, c, d], q) => indices.set([a, b, c, a, c, d], 6 * q));
  return { vertexCount: 8, faceCount: 12, positions, colors, normals, indices };
}

/** Deterministic generator (mulberry32) shared with the code under test. */
export const rng = createRng;

export function randomCloud(count: number, seed = 1): PointCloud {
  const random = rng(seed);
  const positions = new Float32Array(3 * count);
  const normals = new Float32Array(3 * count);
  const colors = new Uint8Array(3 * count);
  for (let i = 0; i < count; i++) {
    const n = [random() - 0.5, random() - 0.5, random() - 0.5];
    const len = Math.hypot(n[0], n[1], n[2]) || 1;
    for (let a = 0; a < 3; a++) {
      positions[3 * i + a] = (random() - 0.5) * 20 + [3, -1, 7][a];
      normals[3 * i + a] = n[a] / len;
      colors[3 * i + a] = Math.floor(random() * 256);
    }
  }
  return { count, positions, normals, colors };
}

/** A camera at `centre` looking at the origin, OpenCV axes, +Y world up mapped to −y image. */
export function lookAtView(name: string, centre: [number, number, number], width = 4000, height = 3000, focal = 3200): RegisteredView {
  const forward = centre.map((c) => -c);
  const fl = Math.hypot(...forward);
  const z = forward.map((f) => f / fl);
  // x = z × up(0,1,0) points right in the image when y (down) = z × x.
  let x = [z[1] * 0 - z[2] * 1, z[2] * 0 - z[0] * 0, z[0] * 1 - z[1] * 0];
  const xl = Math.hypot(...x);
  x = x.map((v) => v / xl);
  const y = [z[1] * x[2] - z[2] * x[1], z[2] * x[0] - z[0] * x[2], z[0] * x[1] - z[1] * x[0]];
  const R = new Float64Array([...x, ...y, ...z]);
  const t = new Float64Array(3);
  for (let r = 0; r < 3; r++) t[r] = -(R[3 * r] * centre[0] + R[3 * r + 1] * centre[1] + R[3 * r + 2] * centre[2]);
  return { imageIndex: 0, name, intrinsics: { width, height, focal, cx: width / 2, cy: height / 2, k1: 0, k2: 0 }, camFromWorld: { R, t } };
}

export function views(): RegisteredView[] {
  return [
    { ...lookAtView("IMG_0001.JPG", [0, 1, 10]), imageIndex: 0 },
    { ...lookAtView("IMG_0002.HEIC", [8, 3, -6], 3000, 4000, 2900), imageIndex: 1 },
    { ...lookAtView("walkaround.mp4#42", [-7, -2, 5], 1920, 1080, 1500), imageIndex: 2 },
  ];
}
