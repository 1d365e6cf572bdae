/**
 * @module Scenes the views bench renders itself (plain-room.ts, courtyard.ts): surfaces kept as
 * numbers so that the same shapes are ray cast into photos (test/support/render.ts) and
 * triangulated into gt/mesh.ply, and a writer of the set's folder in the synthetic sets' format
 * (../shared/datasets/README.md: images/, gt/cameras.json, gt/mesh.ply; no surface.ply, which the
 * views bench does not read), rendered again when the scene's version changes. Deterministic.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { encodeJpeg } from "../test/support/fixtures.js";
import { box, cylinder, renderDefinedScene, rectangle, sphere, type Primitive, type SceneDef } from "../test/support/render.js";
import { repoRoot } from "./datasets.js";

export type Colour = [number, number, number];
/** One surface of a scene, kept as numbers so it can be both ray cast (render.ts) and triangulated (mesh.ply). */
export type Shape =
  | { kind: "rectangle"; axis: 0 | 1 | 2; value: number; facing: 1 | -1; lo: [number, number]; hi: [number, number]; colour: Colour; contrast?: number }
  | { kind: "box"; centre: [number, number]; half: [number, number]; z: [number, number]; yaw: number; colour: Colour; contrast?: number }
  | { kind: "sphere"; centre: [number, number, number]; radius: number; colour: Colour; contrast?: number }
  /** A vertical cylinder standing on z = 0 with a top cap (render.ts's cylinder). */
  | { kind: "cylinder"; base: [number, number]; radius: number; height: number; colour: Colour; contrast?: number };

export function primitive(shape: Shape): Primitive {
  if (shape.kind === "rectangle") return { ...rectangle(shape.axis, shape.value, shape.facing, shape.lo, shape.hi, shape.colour), contrast: shape.contrast };
  if (shape.kind === "box") return { ...box(shape.centre, shape.half, shape.z, shape.yaw, shape.colour), contrast: shape.contrast };
  if (shape.kind === "cylinder") return { ...cylinder(shape.base, shape.radius, shape.height, shape.colour), contrast: shape.contrast };
  return { ...sphere(shape.centre, shape.radius, shape.colour), contrast: shape.contrast };
}

/** What a rendered set is: its name under rendered/, its shapes and cameras, and how its photos are taken. */
export interface RenderedSetSpec {
  /** Folder name: the set is `rendered/<name>`. */
  name: string;
  /** The module that defines it, recorded in gt/cameras.json. */
  module: string;
  /** Bump when the scene, cameras or image format change, so cached copies are rendered anew. */
  version: number;
  seed: number;
  width: number;
  height: number;
  /** Focal length in image widths (the scene's cameras'); EXIF gets its 35 mm equivalent. */
  focalWidths: number;
  shapes: Shape[];
  scene: SceneDef;
  /** gt/cameras.json's scene radius, and what it measures. */
  radius: number;
  radiusKind: string;
}

/** Triangles of the shapes (vertex positions, base colours, index triples), wound to face outwards. */
function triangulate(shapes: Shape[]): { positions: number[]; colours: number[]; faces: number[] } {
  const positions: number[] = [], colours: number[] = [], faces: number[] = [];
  const vertex = (p: number[], colour: Colour): number => {
    positions.push(p[0], p[1], p[2]);
    colours.push(...colour.map((c) => Math.round(255 * c)));
    return positions.length / 3 - 1;
  };
  // A quad a-b-c-d (in order around it), wound so that its normal points along `outward`.
  const quad = (a: number[], b: number[], c: number[], d: number[], outward: number[], colour: Colour): void => {
    const e1 = [0, 1, 2].map((k) => b[k] - a[k]), e2 = [0, 1, 2].map((k) => c[k] - a[k]);
    const n = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
    const [ia, ib, ic, id] = [a, b, c, d].map((p) => vertex(p, colour));
    if (n[0] * outward[0] + n[1] * outward[1] + n[2] * outward[2] >= 0) faces.push(ia, ib, ic, ia, ic, id);
    else faces.push(ia, ic, ib, ia, id, ic);
  };
  for (const s of shapes) {
    if (s.kind === "rectangle") {
      const u = s.axis === 0 ? 1 : 0, v = s.axis === 2 ? 1 : 2;
      const at = (pu: number, pv: number): number[] => { const p = [0, 0, 0]; p[s.axis] = s.value; p[u] = pu; p[v] = pv; return p; };
      const outward = [0, 0, 0];
      outward[s.axis] = s.facing;
      quad(at(s.lo[0], s.lo[1]), at(s.hi[0], s.lo[1]), at(s.hi[0], s.hi[1]), at(s.lo[0], s.hi[1]), outward, s.colour);
    } else if (s.kind === "box") {
      const c = Math.cos(s.yaw), sn = Math.sin(s.yaw);
      const world = (x: number, y: number, z: number): number[] => [s.centre[0] + c * x - sn * y, s.centre[1] + sn * x + c * y, z];
      const [hx, hy] = s.half, [z0, z1] = s.z;
      const mid = [s.centre[0], s.centre[1], (z0 + z1) / 2];
      const face = (corners: number[][]): void => {
        const w = corners.map((p) => world(p[0], p[1], p[2]));
        const centre = [0, 1, 2].map((k) => w.reduce((sum, p) => sum + p[k], 0) / 4 - mid[k]);
        quad(w[0], w[1], w[2], w[3], centre, s.colour);
      };
      // Five faces: the bottom rests on the floor, as render.ts's box.
      face([[-hx, -hy, z1], [hx, -hy, z1], [hx, hy, z1], [-hx, hy, z1]]);
      for (const sx of [-hx, hx]) face([[sx, -hy, z0], [sx, hy, z0], [sx, hy, z1], [sx, -hy, z1]]);
      for (const sy of [-hy, hy]) face([[-hx, sy, z0], [hx, sy, z0], [hx, sy, z1], [-hx, sy, z1]]);
    } else if (s.kind === "cylinder") {
      const segments = 64;
      const rim = (j: number, z: number): number[] => [s.base[0] + s.radius * Math.cos((2 * Math.PI * j) / segments), s.base[1] + s.radius * Math.sin((2 * Math.PI * j) / segments), z];
      const top = [s.base[0], s.base[1], s.height];
      for (let j = 0; j < segments; j++) {
        const a = rim(j, 0), b = rim(j + 1, 0), cc = rim(j + 1, s.height), d = rim(j, s.height);
        quad(a, b, cc, d, [(a[0] + b[0]) / 2 - s.base[0], (a[1] + b[1]) / 2 - s.base[1], 0], s.colour);
        // The cap's fan: counter-clockwise seen from above, so its normal is +Z.
        faces.push(vertex(d, s.colour), vertex(cc, s.colour), vertex(top, s.colour));
      }
    } else {
      const rings = 32, segments = 64;
      const point = (i: number, j: number): number[] => {
        const theta = (Math.PI * i) / rings, phi = (2 * Math.PI * j) / segments;
        return [s.centre[0] + s.radius * Math.sin(theta) * Math.cos(phi), s.centre[1] + s.radius * Math.sin(theta) * Math.sin(phi), s.centre[2] + s.radius * Math.cos(theta)];
      };
      for (let i = 0; i < rings; i++) for (let j = 0; j < segments; j++) {
        const a = point(i, j), b = point(i + 1, j), cc = point(i + 1, j + 1), d = point(i, j + 1);
        quad(a, b, cc, d, [0, 1, 2].map((k) => (a[k] + cc[k]) / 2 - s.centre[k]), s.colour);
      }
    }
  }
  return { positions, colours, faces };
}

/** Binary PLY as the synthetic sets' gt/mesh.ply: float x y z, uchar red green blue, uchar-counted int indices. */
function meshPly(mesh: { positions: number[]; colours: number[]; faces: number[] }): Buffer {
  const vertices = mesh.positions.length / 3, triangles = mesh.faces.length / 3;
  const header = `ply\nformat binary_little_endian 1.0\nelement vertex ${vertices}\nproperty float x\nproperty float y\nproperty float z\nproperty uchar red\nproperty uchar green\nproperty uchar blue\nelement face ${triangles}\nproperty list uchar int vertex_indices\nend_header\n`;
  const body = Buffer.alloc(15 * vertices + 13 * triangles);
  let o = 0;
  for (let i = 0; i < vertices; i++) {
    for (let k = 0; k < 3; k++) o = body.writeFloatLE(mesh.positions[3 * i + k], o);
    for (let k = 0; k < 3; k++) o = body.writeUInt8(mesh.colours[3 * i + k], o);
  }
  for (let f = 0; f < triangles; f++) {
    o = body.writeUInt8(3, o);
    for (let k = 0; k < 3; k++) o = body.writeInt32LE(mesh.faces[3 * f + k], o);
  }
  return Buffer.concat([Buffer.from(header, "latin1"), body]);
}

const CONVENTION =
  "opencv: x_cam = R @ X_world + t; x right, y down, z forward; K in pixel units; continuous pixel coordinates with pixel centers at integer coordinates + 0.5 (pixel (col i, row j) covers [i, i+1] x [j, j+1], its center is (i+0.5, j+0.5); a centred principal point is (W/2, H/2), as in COLMAP; subtract 0.5 from cx, cy for OpenCV's integer-centre convention). World: right-handed, +Z up, units arbitrary (metre-like).";

/** The 35 mm equivalent of the focal, by the diagonal rule a phone writes. */
function focal35mm(spec: Pick<RenderedSetSpec, "focalWidths" | "width" | "height">): number {
  return Math.round((spec.focalWidths * spec.width * Math.hypot(36, 24)) / Math.hypot(spec.width, spec.height));
}

/**
 * The set's folder (bench/out/rendered/<name>), rendered first if it is missing or from another
 * version (about a minute of one core per 16 photos at 960 × 720).
 */
export async function renderedSetFolder(spec: RenderedSetSpec): Promise<string> {
  const set = `rendered/${spec.name}`;
  const dir = path.join(repoRoot, "bench/out", set);
  const camerasFile = path.join(dir, "gt/cameras.json");
  if (existsSync(camerasFile)) {
    const cached = JSON.parse(await readFile(camerasFile, "utf8")) as { generator?: { version?: number } };
    if (cached.generator?.version === spec.version) return dir;
  }
  console.log(`views: rendering ${set} (${spec.scene.cameras.length} photos, ${spec.width}×${spec.height}) into ${dir}…`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(path.join(dir, "images"), { recursive: true });
  await mkdir(path.join(dir, "gt"), { recursive: true });
  const rendered = renderDefinedScene(spec.scene, { width: spec.width, height: spec.height, seed: spec.seed, prefix: spec.name, sceneRadius: spec.radius });
  const images = [];
  for (const view of rendered.views) {
    const file = `${view.name}.jpg`;
    // JPEG quality 92 as the synthetic sets; the 35 mm focal a phone would write.
    await writeFile(path.join(dir, "images", file), await encodeJpeg(Buffer.from(view.rgb), view.width, view.height, { focalLength35mm: focal35mm(spec) }, 92));
    const R = [0, 1, 2].map((i) => Array.from(view.R.subarray(3 * i, 3 * i + 3)));
    const center = [0, 1, 2].map((k) => -(view.R[k] * view.t[0] + view.R[3 + k] * view.t[1] + view.R[6 + k] * view.t[2]));
    const K = [0, 1, 2].map((i) => Array.from(view.K.subarray(3 * i, 3 * i + 3)));
    images.push({ file, width: view.width, height: view.height, K, R, t: Array.from(view.t), center, outlier: false });
  }
  const mesh = triangulate(spec.shapes);
  await writeFile(path.join(dir, "gt/mesh.ply"), meshPly(mesh));
  const gt = {
    convention: CONVENTION,
    scene: { center: spec.scene.center, radius: spec.radius, radius_kind: spec.radiusKind, up: [0, 0, 1] },
    mesh: { file: "mesh.ply", triangles: mesh.faces.length / 3 },
    seed: spec.seed,
    generator: { module: spec.module, version: spec.version },
    images,
  };
  // Written last: its presence marks a complete set.
  await writeFile(camerasFile, JSON.stringify(gt, null, 1));
  return dir;
}
