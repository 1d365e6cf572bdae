/**
 * @module `rendered/plain-objects`, a set the views bench renders itself (issue "Complete
 * surfaces": "the sides of an object"): three plain white objects (a vase, a box, a ball) on a
 * wooden table top, photographed all around from a walk of 360° at arm's length, a little above
 * them, as a user photographs things on a table. The room's walls behind, 2.5 m away, carry a
 * faint wallpaper.
 *
 * Why it looks like this: the objects carry only a trace of texture (contrast 0.05), like glazed
 * ceramic or painted card, so photometric matching cannot decide a depth on their sides; only
 * their shading (render.ts's Lambertian light, the same in every photo) and their outlines against
 * the textured table and walls hold. The table top is fully textured, so the capture registers.
 * The bench then shows how much of the plain sides the delivered model covers. Coverage counts the
 * pixels gt/mesh.ply (the same shapes triangulated, rendered-set.ts) covers; the room is closed, so
 * every pixel shows a surface.
 *
 * Written on first use to bench/out/rendered/plain-objects/ (rendered-set.ts), and re-rendered when
 * SCENE_VERSION changes.
 */
import { createRng } from "../compute/math/random.js";
import type { SceneDef } from "../test/support/render.js";
import { primitive, renderedSetFolder, type Colour, type Shape } from "./rendered-set.js";

/** Bump when the scene, cameras or image format change, so cached copies are rendered anew. */
const SCENE_VERSION = 1;
const SEED = 2031;
const WIDTH = 960;
const HEIGHT = 720;
const PHOTOS = 24;
/** Focal length in image widths (a phone's main camera, about 58° across). */
const FOCAL_WIDTHS = 0.9;
const NAME = "plain-objects";
export const PLAIN_OBJECTS_SET = `rendered/${NAME}`;

const CERAMIC: Colour = [0.93, 0.92, 0.9];
const WOOD: Colour = [0.62, 0.45, 0.3];
const WALLPAPER: Colour = [0.8, 0.78, 0.7];
const PLAIN = 0.05;

/** Metres, world +Z up; the table top is z = 0 and fills the room, whose walls stand at ±2.5 m. */
const SHAPES: Shape[] = [
  { kind: "rectangle", axis: 2, value: 0, facing: 1, lo: [-2.5, -2.5], hi: [2.5, 2.5], colour: WOOD },
  { kind: "rectangle", axis: 0, value: -2.5, facing: 1, lo: [-2.5, 0], hi: [2.5, 2], colour: WALLPAPER, contrast: 0.35 },
  { kind: "rectangle", axis: 0, value: 2.5, facing: -1, lo: [-2.5, 0], hi: [2.5, 2], colour: WALLPAPER, contrast: 0.35 },
  { kind: "rectangle", axis: 1, value: -2.5, facing: 1, lo: [-2.5, 0], hi: [2.5, 2], colour: WALLPAPER, contrast: 0.35 },
  { kind: "rectangle", axis: 1, value: 2.5, facing: -1, lo: [-2.5, 0], hi: [2.5, 2], colour: WALLPAPER, contrast: 0.35 },
  { kind: "cylinder", base: [-0.18, 0.08], radius: 0.09, height: 0.32, colour: CERAMIC, contrast: PLAIN },
  { kind: "box", centre: [0.16, -0.1], half: [0.14, 0.09], z: [0, 0.2], yaw: 0.5, colour: CERAMIC, contrast: PLAIN },
  { kind: "sphere", centre: [0.14, 0.2, 0.08], radius: 0.08, colour: CERAMIC, contrast: PLAIN },
];
const OBJECT_CENTRE: [number, number, number] = [0, 0.05, 0.12];

/** The walk: all around at 0.9 m from the objects, the camera 0.45–0.55 m above the table, aimed at them with a few centimetres of jitter. */
export function plainObjectsScene(): SceneDef {
  const rng = createRng(SEED);
  const cameras: SceneDef["cameras"] = [];
  for (let i = 0; i < PHOTOS; i++) {
    const azimuth = (2 * Math.PI * i) / PHOTOS + 0.05 * (rng() - 0.5);
    const eye: [number, number, number] = [OBJECT_CENTRE[0] + 0.9 * Math.cos(azimuth), OBJECT_CENTRE[1] + 0.9 * Math.sin(azimuth), 0.5 + 0.1 * (rng() - 0.5)];
    const target: [number, number, number] = [OBJECT_CENTRE[0] + 0.06 * (rng() - 0.5), OBJECT_CENTRE[1] + 0.06 * (rng() - 0.5), OBJECT_CENTRE[2] + 0.04 * (rng() - 0.5)];
    cameras.push({ eye, target, focal: FOCAL_WIDTHS });
  }
  return { primitives: SHAPES.map(primitive), center: OBJECT_CENTRE, cameras };
}

/** The set's folder, rendered first if it is missing or from another SCENE_VERSION. */
export function plainObjectsDataset(): Promise<string> {
  return renderedSetFolder({
    name: NAME,
    module: "bench/plain-objects.ts",
    version: SCENE_VERSION,
    seed: SEED,
    width: WIDTH,
    height: HEIGHT,
    focalWidths: FOCAL_WIDTHS,
    shapes: SHAPES,
    scene: plainObjectsScene(),
    radius: 0.9,
    radiusKind: "distance from the photographer's walk to the objects",
  });
}
