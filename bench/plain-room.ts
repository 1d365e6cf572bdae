/**
 * @module `rendered/plain-room`, a set the views bench renders itself (issue "Complete surfaces"):
 * a corner of a room with an almost white plaster back wall, a plain grey-beige floor and a
 * plain side wall, and a textured box and sphere standing on the floor about a metre in front
 * of the back wall. Sixteen photos are taken by someone walking an arc of about 70° in front of
 * the object at eye height (1.6 m, 2.8 m from it), each showing the object, a good part of the
 * wall behind it and the floor in front of it at the grazing angles a person photographs it at.
 *
 * Why it looks like this: the walls and the floor carry only a trace of texture (contrast 0.06
 * and 0.08, i.e. a few grey levels against the sensor noise), which is what real plaster and
 * floors look like and what photometric stereo cannot decide a depth on; the object is fully
 * textured, so the capture registers and the object itself reconstructs. The bench then shows
 * how much of the plain surfaces the delivered model covers, and whether what covers them is
 * textured from the photos.
 *
 * Which pixels show a surface: the views bench renders gt/mesh.ply (the scene's surfaces,
 * triangulated here from the same shapes the ray caster draws) from the held-back camera, and
 * coverage is the share of the pixels that mesh covers which the model covers too. The room is
 * big enough that every photo sees only surfaces; a ray that missed them would see the sky
 * colour and, having no mesh there, would not count.
 *
 * Written on first use to bench/out/rendered/plain-room/ in the format of the synthetic sets
 * (../shared/datasets/README.md: images/, gt/cameras.json, gt/mesh.ply; no surface.ply, which
 * the views bench does not read), and re-rendered when SCENE_VERSION changes. Deterministic.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { createRng } from "../compute/math/random.js";
import { encodeJpeg } from "../test/support/fixtures.js";
import { box, renderDefinedScene, rectangle, sphere, type Primitive, type SceneDef } from "../test/support/render.js";
import { repoRoot } from "./datasets.js";

/** Bump when the scene, cameras or image format change, so cached copies are rendered anew. */
const SCENE_VERSION = 1;
const SEED = 2024;
const WIDTH = 960;
const HEIGHT = 720;
const PHOTOS = 16;
/** Focal length in image widths (render.ts's default), and its 35 mm equivalent by the diagonal rule a phone writes. */
const FOCAL_WIDTHS = 1.1;
const FOCAL_35MM = Math.round((FOCAL_WIDTHS * WIDTH * Math.hypot(36, 24)) / Math.hypot(WIDTH, HEIGHT));
const NAME = "plain-room";
export const PLAIN_ROOM_SET = `rendered/${NAME}`;

type Colour = [number, number, number];
/** One surface of the scene, kept as numbers so it can be both ray cast (render.ts) and triangulated (mesh.ply). */
type Shape =
  | { kind: "rectangle"; axis: 0 | 1 | 2; value: number; facing: 1 | -1; lo: [number, number]; hi: [number, number]; colour: Colour; contrast?: number }
  | { kind: "box"; centre: [number, number]; half: [number, number]; z: [number, number]; yaw: number; colour: Colour }
  | { kind: "sphere"; centre: [number, number, number]; radius: number; colour: Colour };

const PLASTER: Colour = [0.92, 0.91, 0.88];
const FLOOR: Colour = [0.68, 0.64, 0.57];

/** Metres, world +Z up; the back wall is the plane y = 2, the side wall x = −2.6; the object stands near (0.1, 0.85). */
const SHAPES: Shape[] = [
  { kind: "rectangle", axis: 1, value: 2, facing: -1, lo: [-2.6, 0], hi: [5, 3], colour: PLASTER, contrast: 0.06 },
  { kind: "rectangle", axis: 2, value: 0, facing: 1, lo: [-2.6, -4], hi: [5, 2], colour: FLOOR, contrast: 0.08 },
  { kind: "rectangle", axis: 0, value: -2.6, facing: 1, lo: [-4, 0], hi: [2, 3], colour: PLASTER, contrast: 0.06 },
  { kind: "box", centre: [-0.25, 0.95], half: [0.3, 0.22], z: [0, 0.75], yaw: 0.35, colour: [0.85, 0.45, 0.3] },
  { kind: "sphere", centre: [0.45, 0.75, 0.28], radius: 0.28, colour: [0.35, 0.6, 0.95] },
];
const OBJECT_CENTRE: [number, number, number] = [0.1, 0.85, 0.35];

function primitive(shape: Shape): Primitive {
  if (shape.kind === "rectangle") return { ...rectangle(shape.axis, shape.value, shape.facing, shape.lo, shape.hi, shape.colour), contrast: shape.contrast };
  if (shape.kind === "box") return box(shape.centre, shape.half, shape.z, shape.yaw, shape.colour);
  return sphere(shape.centre, shape.radius, shape.colour);
}

/** The arc: azimuths −125°…−55° about the object, eye height 1.6 m ± 3 cm, aim jittered by a few centimetres. */
export function plainRoomScene(): SceneDef {
  const rng = createRng(SEED);
  const cameras: SceneDef["cameras"] = [];
  for (let i = 0; i < PHOTOS; i++) {
    const azimuth = ((-125 + (70 * i) / (PHOTOS - 1)) * Math.PI) / 180;
    const eye: [number, number, number] = [OBJECT_CENTRE[0] + 2.8 * Math.cos(azimuth), OBJECT_CENTRE[1] + 2.8 * Math.sin(azimuth), 1.6 + 0.06 * (rng() - 0.5)];
    const target: [number, number, number] = [OBJECT_CENTRE[0] + 0.2 * (rng() - 0.5), OBJECT_CENTRE[1] + 0.2 * (rng() - 0.5), OBJECT_CENTRE[2] + 0.1 * (rng() - 0.5)];
    cameras.push({ eye, target, focal: FOCAL_WIDTHS });
  }
  return { primitives: SHAPES.map(primitive), center: OBJECT_CENTRE, cameras };
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

/** The set's folder, rendered first if it is missing or from another SCENE_VERSION (under a minute of one core). */
export async function plainRoomDataset(): Promise<string> {
  const dir = path.join(repoRoot, "bench/out", PLAIN_ROOM_SET);
  const camerasFile = path.join(dir, "gt/cameras.json");
  if (existsSync(camerasFile)) {
    const cached = JSON.parse(await readFile(camerasFile, "utf8")) as { generator?: { version?: number } };
    if (cached.generator?.version === SCENE_VERSION) return dir;
  }
  console.log(`views: rendering ${PLAIN_ROOM_SET} (${PHOTOS} photos, ${WIDTH}×${HEIGHT}) into ${dir}…`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(path.join(dir, "images"), { recursive: true });
  await mkdir(path.join(dir, "gt"), { recursive: true });
  const def = plainRoomScene();
  const rendered = renderDefinedScene(def, { width: WIDTH, height: HEIGHT, seed: SEED, prefix: NAME, sceneRadius: 2.8 });
  const images = [];
  for (const view of rendered.views) {
    const file = `${view.name}.jpg`;
    // JPEG quality 92 as the synthetic sets; the 35 mm focal a phone would write.
    await writeFile(path.join(dir, "images", file), await encodeJpeg(Buffer.from(view.rgb), view.width, view.height, { focalLength35mm: FOCAL_35MM }, 92));
    const R = [0, 1, 2].map((i) => Array.from(view.R.subarray(3 * i, 3 * i + 3)));
    const center = [0, 1, 2].map((k) => -(view.R[k] * view.t[0] + view.R[3 + k] * view.t[1] + view.R[6 + k] * view.t[2]));
    const K = [0, 1, 2].map((i) => Array.from(view.K.subarray(3 * i, 3 * i + 3)));
    images.push({ file, width: view.width, height: view.height, K, R, t: Array.from(view.t), center, outlier: false });
  }
  const mesh = triangulate(SHAPES);
  await writeFile(path.join(dir, "gt/mesh.ply"), meshPly(mesh));
  const gt = {
    convention: CONVENTION,
    scene: { center: def.center, radius: 2.8, radius_kind: "distance from the photographer's arc to the object", up: [0, 0, 1] },
    mesh: { file: "mesh.ply", triangles: mesh.faces.length / 3 },
    seed: SEED,
    generator: { module: "bench/plain-room.ts", version: SCENE_VERSION },
    images,
  };
  // Written last: its presence marks a complete set.
  await writeFile(camerasFile, JSON.stringify(gt, null, 1));
  return dir;
}
