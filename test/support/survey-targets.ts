/**
 * @module Painted ground targets for the rendered drone survey (survey-scene.ts), as a surveyor
 * lays them out before a mapping flight: squares of black and white quarters (a checker of 2 × 2,
 * whose centre is a saddle a person clicks on), TARGET_WIDTH scene units wide (13 px in a
 * 400-px photo from the flight altitude), spread over the flown area: control points at the
 * corners and the middle, checkpoints between them. For each target: its true position, in
 * the scene and in the API frame in metres (x east, y up, z south), and where it appears in each
 * photo that sees it unoccluded, projected through the known camera with seeded click noise.
 */
import { enuToGeodetic } from "../../compute/geometry/geodesy.js";
import { createRng } from "../../compute/math/random.js";
import type { ControlPoints } from "../../shared/control-points.js";
import { lookAt, rectangle, type Primitive, type SceneDef } from "./render.js";
import { SURVEY_FOCAL_WIDTHS, SURVEY_METRES_PER_UNIT, SURVEY_ORIGIN, surveyExtent } from "./survey-scene.js";

/** Side of a target, scene units (1.8 m at 60 m per unit). */
export const TARGET_WIDTH = 0.03;
/** Height of the painted square above the ground, so the renderer sees it rather than the ground (scene units). */
const PAINT_HEIGHT = 1e-4;
/** Standard deviation of a person's click on a target's centre, pixels. */
export const CLICK_SIGMA_PX = 0.3;

export interface SurveyTarget {
  name: string;
  role: "control" | "check";
  /** Scene units, +X east, +Y north, +Z up (render.ts). */
  scene: [number, number, number];
  /** API frame, metres: x east, y up, z south (−north), about the scene's origin. */
  position: [number, number, number];
}

/** A target's centre in one photo: pixels of the photo, origin at its top-left corner. */
export interface TargetMark {
  imageIndex: number;
  x: number;
  y: number;
}

/** Scene units (+Z up) to the API frame in metres (x east, y up, z south). */
export function apiPosition(scene: ArrayLike<number>): [number, number, number] {
  return [scene[0] * SURVEY_METRES_PER_UNIT, scene[2] * SURVEY_METRES_PER_UNIT, -scene[1] * SURVEY_METRES_PER_UNIT];
}

/**
 * Nine targets over the ground a survey of `images` photos covers well (survey-scene.ts
 * surveyExtent), each moved by up to 0.03 units for the seed: five control points (the corners
 * and the middle, C1…C5) and four checkpoints between them (K1…K4).
 */
export function surveyTargets(images: number, seed: number): SurveyTarget[] {
  const rng = createRng(seed * 104729 + 17);
  const { spanX, spanY, ahead } = surveyExtent(images);
  // A photo looks at the ground `ahead` of where it flies; the corners a little inside the
  // first and last photos' centres, so that four photos or more see each.
  const x0 = ahead + 0.05;
  const x1 = spanX + ahead - 0.05;
  const y0 = 0.05;
  const y1 = spanY - 0.05;
  const at = (u: number, v: number): [number, number, number] => [x0 + u * (x1 - x0) + 0.03 * (rng() - 0.5), y0 + v * (y1 - y0) + 0.03 * (rng() - 0.5), PAINT_HEIGHT];
  const layout: Array<[string, SurveyTarget["role"], number, number]> = [
    ["C1", "control", 0, 0], ["C2", "control", 1, 0], ["C3", "control", 0, 1], ["C4", "control", 1, 1], ["C5", "control", 0.5, 0.5],
    ["K1", "check", 0.25, 0.25], ["K2", "check", 0.75, 0.25], ["K3", "check", 0.25, 0.75], ["K4", "check", 0.75, 0.75],
  ];
  return layout.map(([name, role, u, v]) => {
    const scene = at(u, v);
    return { name, role, scene, position: apiPosition(scene) };
  });
}

/** The painted squares, for survey-scene.ts surveyCapture's `targets`. */
export function targetPrimitives(targets: SurveyTarget[]): Array<{ primitive: Primitive; x: number; y: number }> {
  return targets.map(({ scene: [x, y, z] }) => {
    const half = TARGET_WIDTH / 2;
    const square = rectangle(2, z, 1, [x - half, y - half], [x + half, y + half], [1, 1, 1]);
    // Black where the point is north-east or south-west of the centre, white elsewhere.
    const paint = (px: number, py: number) => ((px - x) * (py - y) > 0 ? 0.06 : 0.95);
    return { primitive: { ...square, contrast: 0, paint }, x, y };
  });
}

/** Whether the segment from camera `index`'s eye to `point` is blocked by a primitive other than the target's own square. */
function occluded(def: SceneDef, index: number, point: ArrayLike<number>): boolean {
  const eye = def.cameras[index].eye;
  const o = Float64Array.from(eye);
  const d = Float64Array.from([0, 1, 2], (a) => point[a] - eye[a]);
  const normal = new Float64Array(3);
  const primitives = def.primitivesFor ? def.primitivesFor(index) : def.primitives;
  // d spans the whole segment: a hit before t = 1 (less a margin for the square itself) blocks it.
  return primitives.some((p) => p.intersect(o, d, 1 - 1e-3, normal) < 1 - 1e-3);
}

/**
 * Per target, its marks: the photos (of `def`'s cameras, rendered `width` × `height`) in which
 * its centre lies at least `margin` pixels inside the frame and nothing stands in front of it,
 * with Gaussian click noise of `clickSigmaPx`, seeded.
 */
export function targetMarks(def: SceneDef, targets: SurveyTarget[], width: number, height: number, seed: number, clickSigmaPx = CLICK_SIGMA_PX, margin = 8): TargetMark[][] {
  const rng = createRng(seed * 7907 + 3);
  const gauss = () => Math.sqrt(-2 * Math.log(Math.max(1e-12, rng()))) * Math.cos(2 * Math.PI * rng());
  return targets.map((target) => {
    const marks: TargetMark[] = [];
    def.cameras.forEach((camera, index) => {
      const { R, t } = lookAt(camera.eye, camera.target);
      const X = target.scene;
      const z = R[6] * X[0] + R[7] * X[1] + R[8] * X[2] + t[2];
      if (z <= 0) return;
      const focal = (camera.focal ?? SURVEY_FOCAL_WIDTHS) * width;
      const u = (focal * (R[0] * X[0] + R[1] * X[1] + R[2] * X[2] + t[0])) / z + width / 2;
      const v = (focal * (R[3] * X[0] + R[4] * X[1] + R[5] * X[2] + t[1])) / z + height / 2;
      if (u < margin || v < margin || u > width - margin || v > height - margin) return;
      if (occluded(def, index, X)) return;
      marks.push({ imageIndex: index, x: u + clickSigmaPx * gauss(), y: v + clickSigmaPx * gauss() });
    });
    return marks;
  });
}

/** Scene units (+Z up) to WGS 84 longitude, latitude and ellipsoidal height, degrees and metres. */
export function geographicOf(scene: ArrayLike<number>): [number, number, number] {
  const g = enuToGeodetic([scene[0] * SURVEY_METRES_PER_UNIT, scene[1] * SURVEY_METRES_PER_UNIT, scene[2] * SURVEY_METRES_PER_UNIT], SURVEY_ORIGIN);
  return [g.longitudeDeg, g.latitudeDeg, g.heightM];
}

/**
 * The targets as a surveyor sends them (shared/control-points.ts): WGS 84 coordinates with a
 * GNSS rover's stated accuracy (2 cm horizontally, 3 cm vertically), and each target's marks
 * in the photos named `imageNames` (by the marks' image index).
 */
export function surveyControlPoints(targets: SurveyTarget[], marks: TargetMark[][], imageNames: string[]): ControlPoints {
  return {
    crs: "EPSG:4326",
    points: targets.map((target, k) => ({
      name: target.name,
      role: target.role,
      coordinates: geographicOf(target.scene),
      accuracy: { horizontal: 0.02, vertical: 0.03 },
      marks: marks[k].map((m) => ({ image: imageNames[m.imageIndex], x: m.x, y: m.y })),
    })),
  };
}
