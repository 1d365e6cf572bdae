/**
 * @module A drone survey with known cameras, of any size: a town of boxes (buildings) and
 * cylinders (trees) on textured ground, flown in a serpentine grid at constant altitude with
 * a fixed heading and the camera tilted 15° forward, about 80 % forward and 65 % side overlap.
 * The ground grows with the photo count, so every photo sees the same density of neighbours
 * and a pipeline whose cost is linear spends the same time per photo at 50 and at 800.
 *
 * Units: the flight altitude is 1; world +Z up as in render.ts. Deterministic for a seed.
 */
import { enuToGeodetic, type Geodetic } from "../../compute/geometry/geodesy.js";
import { createRng } from "../../compute/math/random.js";
import type { ExifFields } from "./fixtures.js";
import { box, cylinder, rectangle, sphere, type Primitive, type SceneDef } from "./render.js";

/** Focal length in image widths (render.ts's default) and its 35 mm equivalent for EXIF. */
export const SURVEY_FOCAL_WIDTHS = 1.1;
export const SURVEY_FOCAL_35MM = Math.round(SURVEY_FOCAL_WIDTHS * 36);

const ALTITUDE = 1;
/** Metres per scene unit when a survey's photos carry GPS: a mapping flight at 60 m. */
export const SURVEY_METRES_PER_UNIT = 60;
/** Where the town lies (degrees), and the ground's height above sea level (metres). */
const ORIGIN = { latitudeDeg: 47.3769, longitudeDeg: 8.5417, groundM: 408 };
/** ORIGIN as a geodetic reference: scene (x, y, z) is east, north, up of it in SURVEY_METRES_PER_UNIT. */
export const SURVEY_ORIGIN: Geodetic = { latitudeDeg: ORIGIN.latitudeDeg, longitudeDeg: ORIGIN.longitudeDeg, heightM: ORIGIN.groundM };
/** A consumer drone's fix without RTK: σ 1.5 m horizontally, 3 m vertically, no accuracy in the EXIF. */
export const SURVEY_GPS_SIGMA_M = { horizontal: 1.5, vertical: 3 };
/**
 * An RTK drone's fix: σ 2 cm horizontally and 3 cm vertically, stated as DJI's RTK drones state
 * it: a fixed solution's deviations in the XMP (drone-dji RtkStdLat/Lon/Hgt), none in the EXIF.
 */
export const SURVEY_RTK_SIGMA_M = { horizontal: 0.02, vertical: 0.03, rtk: true };
const TILT_RAD = (15 * Math.PI) / 180;
/** Along-track spacing: 20 % of the footprint's along-track extent (~0.68 × altitude at 4:3). */
const ALONG = 0.14;
/** Across-track spacing: 35 % of the footprint's across-track extent (~0.9 × altitude). */
const ACROSS = 0.3;
const CELL = 0.3;
const GROUND: [number, number, number] = [0.62, 0.6, 0.5];
const PALETTE: Array<[number, number, number]> = [
  [0.85, 0.55, 0.4],
  [0.75, 0.75, 0.7],
  [0.6, 0.45, 0.35],
  [0.9, 0.85, 0.65],
  [0.5, 0.55, 0.65],
];

export interface SurveyCapture {
  def: SceneDef;
  /** Photo names in flight order. */
  names: string[];
  /** Half the diagonal of the flown area, the scale of centre errors. */
  sceneRadius: number;
}

interface Placed {
  primitive: Primitive;
  x: number;
  y: number;
}

/** Rows and columns of the serpentine grid of `images` photos: about twice as many columns as rows. */
function gridOf(images: number): { rows: number; cols: number } {
  const rows = Math.max(2, Math.round(Math.sqrt(images / 2)));
  return { rows, cols: Math.ceil(images / rows) };
}

/**
 * The ground a survey of `images` photos covers well: the flown cameras span [0, spanX] ×
 * [0, spanY], and each looks `ahead` along +x of where it flies (the 15° forward tilt).
 */
export function surveyExtent(images: number): { spanX: number; spanY: number; ahead: number } {
  const { rows, cols } = gridOf(images);
  return { spanX: (cols - 1) * ALONG, spanY: (rows - 1) * ACROSS, ahead: ALTITUDE * Math.tan(TILT_RAD) };
}

/** The flight: `images` cameras along a serpentine grid of about twice as many columns as rows. */
function flightPlan(images: number, rng: () => number): { cameras: SceneDef["cameras"]; rows: number; cols: number } {
  const { rows, cols } = gridOf(images);
  const cameras: SceneDef["cameras"] = [];
  for (let k = 0; k < images; k++) {
    const row = Math.floor(k / cols);
    const step = k % cols;
    const col = row % 2 === 0 ? step : cols - 1 - step;
    const jitter = () => (rng() - 0.5) * 0.02;
    const eye: [number, number, number] = [col * ALONG + jitter(), row * ACROSS + jitter(), ALTITUDE + 3 * jitter()];
    const ahead = ALTITUDE * Math.tan(TILT_RAD);
    cameras.push({ eye, target: [eye[0] + ahead, eye[1] + 2 * jitter(), 0] });
  }
  return { cameras, rows, cols };
}

/** Buildings and trees on a jittered grid over [x0,x1]×[y0,y1]. */
function town(x0: number, x1: number, y0: number, y1: number, rng: () => number): Placed[] {
  const placed: Placed[] = [];
  for (let x = x0; x < x1; x += CELL) {
    for (let y = y0; y < y1; y += CELL) {
      const pick = rng();
      const cx = x + CELL * (0.3 + 0.4 * rng());
      const cy = y + CELL * (0.3 + 0.4 * rng());
      const colour = PALETTE[Math.floor(rng() * PALETTE.length)];
      if (pick < 0.45) {
        const half: [number, number] = [0.04 + 0.07 * rng(), 0.04 + 0.07 * rng()];
        placed.push({ primitive: box([cx, cy], half, [0, 0.04 + 0.21 * rng()], rng() * Math.PI, colour), x: cx, y: cy });
      } else if (pick < 0.6) {
        placed.push({ primitive: cylinder([cx, cy], 0.025 + 0.025 * rng(), 0.06 + 0.08 * rng(), [0.35, 0.55, 0.3]), x: cx, y: cy });
      } else if (pick < 0.68) {
        const radius = 0.03 + 0.03 * rng();
        placed.push({ primitive: sphere([cx, cy, radius], radius, [0.4, 0.6, 0.35]), x: cx, y: cy });
      }
    }
  }
  return placed;
}

/** Where camera `eye → target` sees the ground: the bounding box of its corner rays at z = 0. */
function footprint(camera: SceneDef["cameras"][number], aspect: number): [number, number, number, number] {
  const f = [camera.target[0] - camera.eye[0], camera.target[1] - camera.eye[1], camera.target[2] - camera.eye[2]];
  const fl = Math.hypot(f[0], f[1], f[2]);
  const fw = [f[0] / fl, f[1] / fl, f[2] / fl];
  const right = [fw[1], -fw[0], 0].map((v) => v / Math.hypot(fw[0], fw[1]));
  const down = [fw[1] * right[2] - fw[2] * right[1], fw[2] * right[0] - fw[0] * right[2], fw[0] * right[1] - fw[1] * right[0]];
  const half = 0.5 / SURVEY_FOCAL_WIDTHS;
  let box4: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [u, v] of [[-half, -half * aspect], [half, -half * aspect], [-half, half * aspect], [half, half * aspect]]) {
    const d = [0, 1, 2].map((a) => fw[a] + u * right[a] + v * down[a]);
    const t = d[2] < -1e-6 ? -camera.eye[2] / d[2] : 50;
    const x = camera.eye[0] + t * d[0];
    const y = camera.eye[1] + t * d[1];
    box4 = [Math.min(box4[0], x), Math.min(box4[1], y), Math.max(box4[2], x), Math.max(box4[3], y)];
  }
  return box4;
}

/**
 * A drone video over the same kind of town: `frames` frames along a serpentine of `rows` legs
 * (each `legLength` long, `ACROSS` apart), flown at constant speed, the camera tilted forward
 * along the leg (so it turns round at the end of each leg) and swaying slightly.
 */
function videoPath(frames: number, rows: number, legLength: number): SceneDef["cameras"] {
  const turn = ACROSS; // the short link between legs
  const total = rows * legLength + (rows - 1) * turn;
  const cameras: SceneDef["cameras"] = [];
  for (let f = 0; f < frames; f++) {
    let s = (f / Math.max(1, frames - 1)) * total;
    let x = 0;
    let y = 0;
    let heading = 1;
    for (let row = 0; row < rows; row++) {
      heading = row % 2 === 0 ? 1 : -1;
      if (s <= legLength || row === rows - 1) {
        x = heading > 0 ? Math.min(s, legLength) : legLength - Math.min(s, legLength);
        y = row * ACROSS;
        break;
      }
      s -= legLength;
      if (s <= turn) {
        x = heading > 0 ? legLength : 0;
        y = row * ACROSS + s;
        break;
      }
      s -= turn;
    }
    const sway = 0.01 * Math.sin(f / 40);
    const eye: [number, number, number] = [x, y + sway, ALTITUDE + 0.02 * Math.sin(f / 97)];
    const ahead = ALTITUDE * Math.tan(TILT_RAD);
    cameras.push({ eye, target: [eye[0] + heading * ahead, eye[1] + 0.03 * Math.sin(f / 61), 0] });
  }
  return cameras;
}

/** No building, tree or bush stands within this distance of a painted target (a building's half-diagonal is at most 0.16). */
const TARGET_CLEARANCE = 0.2;

/**
 * The town over [x0, x1] × [y0, y1] under a flight of `cameras`, its primitives culled per
 * camera; painted ground targets (survey-targets.ts) where given, with the ground around them clear.
 */
function townFor(cameras: SceneDef["cameras"], bounds: [number, number, number, number], center: [number, number, number], aspect: number, rng: () => number, targets: Placed[] = []): SceneDef {
  const [x0, x1, y0, y1] = bounds;
  const ground = rectangle(2, 0, 1, [x0, y0], [x1, y1], GROUND);
  // Drawn with the same random numbers as without targets, so the town is the same town.
  const placed = town(x0, x1, y0, y1, rng).filter((p) => targets.every((t) => Math.hypot(p.x - t.x, p.y - t.y) > TARGET_CLEARANCE));
  placed.push(...targets);
  // A tall building's top is seen up to about its height outside the ground footprint.
  const reach = 0.4;
  const primitivesFor = (index: number): Primitive[] => {
    const [ax, ay, bx, by] = footprint(cameras[index], aspect);
    const near = placed.filter((p) => p.x > ax - reach && p.x < bx + reach && p.y > ay - reach && p.y < by + reach);
    return [ground, ...near.map((p) => p.primitive)];
  };
  return { primitives: [ground, ...placed.map((p) => p.primitive)], center, cameras, primitivesFor };
}

/** Ground beyond the flown area, so that every photo sees ground to its edges. */
const MARGIN = 1.2;

/** A video of `frames` frames flying `rows` legs of `legLength` over a town (aspect = height / width). */
export function surveyVideo(frames: number, seed: number, rows = 3, legLength = 5, aspect = 9 / 16): SurveyCapture {
  const rng = createRng(seed);
  const cameras = videoPath(frames, rows, legLength);
  const ahead = ALTITUDE * Math.tan(TILT_RAD);
  const spanY = (rows - 1) * ACROSS;
  const def = townFor(cameras, [-MARGIN - ahead, legLength + MARGIN + ahead, -MARGIN, spanY + MARGIN], [legLength / 2, spanY / 2, 0], aspect, rng);
  return { def, names: cameras.map((_, f) => `frame_${String(f).padStart(5, "0")}`), sceneRadius: 0.5 * Math.hypot(legLength, spanY) };
}

/**
 * A survey of `images` photos (aspect = height / width of the photos); `targets`: painted ground
 * targets to lay out (survey-targets.ts), as primitives at their centres.
 */
export function surveyCapture(images: number, seed: number, aspect = 0.75, targets: Array<{ primitive: Primitive; x: number; y: number }> = []): SurveyCapture {
  const rng = createRng(seed);
  const { cameras, rows, cols } = flightPlan(images, rng);
  const spanX = (cols - 1) * ALONG;
  const spanY = (rows - 1) * ACROSS;
  const def = townFor(cameras, [-MARGIN, spanX + MARGIN + ALTITUDE * Math.tan(TILT_RAD), -MARGIN, spanY + MARGIN], [spanX / 2, spanY / 2, 0], aspect, rng, targets);
  const names = cameras.map((_, k) => `survey_${String(k).padStart(4, "0")}`);
  return { def, names, sceneRadius: 0.5 * Math.hypot(spanX, spanY) };
}

/**
 * The GPS fix a drone would write for a camera at `eye` (scene units, +X east, +Y north, +Z
 * up): its position in metres east, north and up of ORIGIN plus Gaussian noise of the
 * receiver's σ (a consumer receiver's by default; seeded by the photo's index), converted to
 * WGS 84 exactly. (A spherical Earth is not good enough: its east and north scales differ from
 * the ellipsoid's by 0.3 % at this latitude, 18 cm over 60 m, ten times an RTK fix's error.)
 */
export function surveyGps(eye: [number, number, number], index: number, seed: number, receiver: { horizontal: number; vertical: number; rtk?: boolean } = SURVEY_GPS_SIGMA_M): Pick<ExifFields, "gps" | "djiRtk"> {
  const rng = createRng(seed * 7919 + index);
  const gauss = () => Math.sqrt(-2 * Math.log(Math.max(1e-12, rng()))) * Math.cos(2 * Math.PI * rng());
  const east = eye[0] * SURVEY_METRES_PER_UNIT + receiver.horizontal * gauss();
  const north = eye[1] * SURVEY_METRES_PER_UNIT + receiver.horizontal * gauss();
  const up = eye[2] * SURVEY_METRES_PER_UNIT + receiver.vertical * gauss();
  const fix = enuToGeodetic([east, north, up], { latitudeDeg: ORIGIN.latitudeDeg, longitudeDeg: ORIGIN.longitudeDeg, heightM: ORIGIN.groundM });
  const gps = { latitudeDeg: fix.latitudeDeg, longitudeDeg: fix.longitudeDeg, altitudeM: fix.heightM };
  return { gps, ...(receiver.rtk ? { djiRtk: { flag: 50, stdLatM: receiver.horizontal, stdLonM: receiver.horizontal, stdHgtM: receiver.vertical } } : {}) };
}
