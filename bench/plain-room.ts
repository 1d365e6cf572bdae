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
 * Written on first use to bench/out/rendered/plain-room/ (rendered-set.ts), and re-rendered when
 * SCENE_VERSION changes.
 */
import { createRng } from "../compute/math/random.js";
import type { SceneDef } from "../test/support/render.js";
import { primitive, renderedSetFolder, type Colour, type Shape } from "./rendered-set.js";

/** Bump when the scene, cameras or image format change, so cached copies are rendered anew. */
const SCENE_VERSION = 1;
const SEED = 2024;
const WIDTH = 960;
const HEIGHT = 720;
const PHOTOS = 16;
/** Focal length in image widths (render.ts's default). */
const FOCAL_WIDTHS = 1.1;
const NAME = "plain-room";
export const PLAIN_ROOM_SET = `rendered/${NAME}`;

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

/** The set's folder, rendered first if it is missing or from another SCENE_VERSION (under a minute of one core). */
export function plainRoomDataset(): Promise<string> {
  return renderedSetFolder({
    name: NAME,
    module: "bench/plain-room.ts",
    version: SCENE_VERSION,
    seed: SEED,
    width: WIDTH,
    height: HEIGHT,
    focalWidths: FOCAL_WIDTHS,
    shapes: SHAPES,
    scene: plainRoomScene(),
    radius: 2.8,
    radiusKind: "distance from the photographer's arc to the object",
  });
}
