/**
 * @module `rendered/courtyard`, a set the views bench renders itself (issue "Complete surfaces"):
 * a courtyard of white-plastered walls on three sides, two stone towers at its far corners, a
 * stone portal in the far wall and a planter on the cobbled ground, photographed by someone
 * walking across its open side at eye height and turning from the left wall to the right one,
 * as a phone user photographs a place. 16 photos at 960 × 720, open sky above the walls.
 *
 * Why it looks like this: it is the shape of the held-out courtyard of the issue, where the plain
 * walls between the towers and the ground came back as holes. The walls carry only a trace of
 * texture (contrast 0.06), the cobbles some (0.4), seen at 9–17° from the photos' lower edges
 * (the ground starts 5 m in front of the photographer); the towers, the portal and the planter
 * are fully textured, so the capture registers. The bench then shows how much of the walls and
 * the ground the model covers from held-back photos, and how they look.
 *
 * Which pixels show a surface: as for the plain room, those of gt/mesh.ply rendered from the
 * held-back camera; the sky above the walls has no mesh and does not count.
 *
 * Written on first use to bench/out/rendered/courtyard/ (rendered-set.ts), and re-rendered when
 * SCENE_VERSION changes.
 */
import type { SceneDef } from "../test/support/render.js";
import { primitive, renderedSetFolder, type Colour, type Shape } from "./rendered-set.js";

const SCENE_VERSION = 1;
const SEED = 2026;
const WIDTH = 960;
const HEIGHT = 720;
const PHOTOS = 16;
/** A wider lens than the plain room's (58° across): a phone's main camera, which a courtyard needs. */
const FOCAL_WIDTHS = 0.9;
const NAME = "courtyard";
export const COURTYARD_SET = `rendered/${NAME}`;

const PLASTER: Colour = [0.93, 0.92, 0.89];
const COBBLES: Colour = [0.62, 0.6, 0.56];
const STONE: Colour = [0.78, 0.66, 0.52];

/** Metres, world +Z up. The far wall is y = 6, the side walls x = ±6 (from y = −1), all 5 m tall; the photographer walks along y ≈ −6. */
const SHAPES: Shape[] = [
  { kind: "rectangle", axis: 2, value: 0, facing: 1, lo: [-9, -9], hi: [9, 9], colour: COBBLES, contrast: 0.4 },
  { kind: "rectangle", axis: 1, value: 6, facing: -1, lo: [-6, 0], hi: [6, 5], colour: PLASTER, contrast: 0.06 },
  { kind: "rectangle", axis: 0, value: -6, facing: 1, lo: [-1, 0], hi: [6, 5], colour: PLASTER, contrast: 0.06 },
  { kind: "rectangle", axis: 0, value: 6, facing: -1, lo: [-1, 0], hi: [6, 5], colour: PLASTER, contrast: 0.06 },
  { kind: "box", centre: [-6, 6], half: [1.3, 1.3], z: [0, 9], yaw: 0, colour: STONE },
  { kind: "box", centre: [6, 6], half: [1.3, 1.3], z: [0, 9], yaw: 0, colour: STONE },
  { kind: "box", centre: [0, 5.85], half: [1.1, 0.35], z: [0, 3.6], yaw: 0, colour: [0.6, 0.45, 0.34] },
  { kind: "box", centre: [-2, 2.5], half: [0.5, 0.5], z: [0, 0.8], yaw: 0.3, colour: [0.45, 0.6, 0.35] },
];
const CENTRE: [number, number, number] = [0, 2, 2];

/**
 * The walk: x from −3.5 to 3.5 m at y ≈ −6 (5 m before the side walls' ends), the view turning
 * from 110° (the left wall and its tower) to 70° (the right), aimed 1 m above eye height 10 m away;
 * every photo shows a tower, the portal or the planter besides plain wall and ground.
 */
export function courtyardScene(): SceneDef {
  const cameras: SceneDef["cameras"] = [];
  for (let i = 0; i < PHOTOS; i++) {
    const share = i / (PHOTOS - 1);
    const eye: [number, number, number] = [-3.5 + 7 * share, -6 + 0.3 * Math.sin(7 * i), 1.6 + 0.05 * Math.cos(5 * i)];
    const heading = ((110 - 40 * share) * Math.PI) / 180;
    const target: [number, number, number] = [eye[0] + 10 * Math.cos(heading), eye[1] + 10 * Math.sin(heading), eye[2] + 1];
    cameras.push({ eye, target, focal: FOCAL_WIDTHS });
  }
  return { primitives: SHAPES.map(primitive), center: CENTRE, cameras };
}

/** The set's folder, rendered first if it is missing or from another SCENE_VERSION. */
export function courtyardDataset(): Promise<string> {
  return renderedSetFolder({
    name: NAME,
    module: "bench/courtyard.ts",
    version: SCENE_VERSION,
    seed: SEED,
    width: WIDTH,
    height: HEIGHT,
    focalWidths: FOCAL_WIDTHS,
    shapes: SHAPES,
    scene: courtyardScene(),
    radius: 6,
    radiusKind: "half the courtyard's width",
  });
}
