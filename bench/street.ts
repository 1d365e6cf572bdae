/**
 * @module `rendered/street`, a set the views bench renders itself (issue "Complete surfaces"): a
 * street between two rows of plain-rendered houses, photographed by someone walking down its middle
 * and turning from one side to the other and ahead, as a phone user photographs a street. 20 photos
 * at 960 × 720, open sky above the roofs.
 *
 * Why it looks like this: the courtyard (courtyard.ts) is seen from its open side, every wall
 * facing the photographer; a street's walls are seen along their length, at 25–65° and further
 * off as they recede, and its asphalt at a few degrees. The facades carry only a trace of texture
 * (contrast 0.06–0.07), the asphalt some (0.3); the doors, shop windows, a parked van, a kiosk,
 * bollards and the building closing the street's far end are fully textured, so the capture
 * registers. It checks that the plain walls and ground are closed in a layout no other set has,
 * not only in the ones the completions were built on.
 *
 * Which pixels show a surface: as for the courtyard, those of gt/mesh.ply rendered from the
 * held-back camera; the sky does not count.
 *
 * Written on first use to bench/out/rendered/street/ (rendered-set.ts), and re-rendered when
 * SCENE_VERSION changes.
 */
import type { SceneDef } from "../test/support/render.js";
import { primitive, renderedSetFolder, type Colour, type Shape } from "./rendered-set.js";

/** Bump when the scene, cameras or image format change, so cached copies are rendered anew. */
const SCENE_VERSION = 1;
const SEED = 2041;
const WIDTH = 960;
const HEIGHT = 720;
const PHOTOS = 20;
/** Focal length in image widths (a phone's main camera, about 58° across). */
const FOCAL_WIDTHS = 0.9;
const NAME = "street";
export const STREET_SET = `rendered/${NAME}`;

const OCHRE: Colour = [0.9, 0.84, 0.7];
const GREY_RENDER: Colour = [0.86, 0.86, 0.84];
const ASPHALT: Colour = [0.44, 0.43, 0.41];
const WOOD: Colour = [0.5, 0.34, 0.22];
const GLASS: Colour = [0.32, 0.36, 0.4];
const BRICK: Colour = [0.66, 0.4, 0.3];

/** Metres, world +Z up. The street runs along +y between house fronts at x = ±5; the walk is y = 0–10. */
const SHAPES: Shape[] = [
  { kind: "rectangle", axis: 2, value: 0, facing: 1, lo: [-9, -6], hi: [9, 34], colour: ASPHALT, contrast: 0.3 },
  { kind: "rectangle", axis: 0, value: -5, facing: 1, lo: [-3, 0], hi: [30, 9], colour: OCHRE, contrast: 0.06 },
  { kind: "rectangle", axis: 0, value: 5, facing: -1, lo: [-3, 0], hi: [30, 7], colour: GREY_RENDER, contrast: 0.07 },
  { kind: "rectangle", axis: 1, value: 30, facing: -1, lo: [-5, 0], hi: [5, 11], colour: BRICK, contrast: 0.6 },
  // Doors and shop windows standing 0.1–0.2 m out of the fronts.
  { kind: "box", centre: [-4.9, 2], half: [0.1, 0.6], z: [0, 2.3], yaw: 0, colour: WOOD },
  { kind: "box", centre: [-4.85, 9], half: [0.15, 1.5], z: [0.4, 2.6], yaw: 0, colour: GLASS },
  { kind: "box", centre: [-4.9, 17], half: [0.1, 0.6], z: [0, 2.3], yaw: 0, colour: WOOD },
  { kind: "box", centre: [4.9, 5], half: [0.1, 0.6], z: [0, 2.3], yaw: 0, colour: WOOD },
  { kind: "box", centre: [4.85, 13], half: [0.15, 1.8], z: [0.4, 2.6], yaw: 0, colour: GLASS },
  { kind: "box", centre: [4.9, 21], half: [0.1, 0.6], z: [0, 2.3], yaw: 0, colour: WOOD },
  // A parked van on the right, a kiosk on the left, bollards along the right kerb.
  { kind: "box", centre: [3.6, 9], half: [0.9, 2.4], z: [0, 2.1], yaw: 0, colour: [0.35, 0.45, 0.6] },
  { kind: "box", centre: [-3.9, 13], half: [0.8, 0.8], z: [0, 2.4], yaw: 0.2, colour: [0.3, 0.5, 0.35] },
  { kind: "cylinder", base: [3.9, 2], radius: 0.12, height: 0.9, colour: [0.55, 0.55, 0.5] },
  { kind: "cylinder", base: [3.9, 4], radius: 0.12, height: 0.9, colour: [0.55, 0.55, 0.5] },
  { kind: "cylinder", base: [3.9, 16], radius: 0.12, height: 0.9, colour: [0.55, 0.55, 0.5] },
];
const CENTRE: [number, number, number] = [0, 10, 3];

/**
 * The walk: y from 0 to 10 m down the street's middle (x within ±0.6 m), eye height about 1.6 m,
 * the view turning in threes: toward the left houses (130°), ahead (90°), toward the right ones
 * (50°), aimed 1 m above eye height 10 m away.
 */
export function streetScene(): SceneDef {
  const cameras: SceneDef["cameras"] = [];
  const headings = [130, 90, 50];
  for (let i = 0; i < PHOTOS; i++) {
    const share = i / (PHOTOS - 1);
    const eye: [number, number, number] = [0.6 * Math.sin(3 * i), 10 * share, 1.6 + 0.05 * Math.cos(5 * i)];
    const heading = ((headings[i % 3] + 4 * Math.sin(11 * i)) * Math.PI) / 180;
    const target: [number, number, number] = [eye[0] + 10 * Math.cos(heading), eye[1] + 10 * Math.sin(heading), eye[2] + 1];
    cameras.push({ eye, target, focal: FOCAL_WIDTHS });
  }
  return { primitives: SHAPES.map(primitive), center: CENTRE, cameras };
}

/** The set's folder, rendered first if it is missing or from another SCENE_VERSION. */
export function streetDataset(): Promise<string> {
  return renderedSetFolder({
    name: NAME,
    module: "bench/street.ts",
    version: SCENE_VERSION,
    seed: SEED,
    width: WIDTH,
    height: HEIGHT,
    focalWidths: FOCAL_WIDTHS,
    shapes: SHAPES,
    scene: streetScene(),
    radius: 8,
    radiusKind: "half the street's length the photos see well",
  });
}
