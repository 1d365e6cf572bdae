/**
 * @module GPS positions as priors on the camera centres (ba/centre-prior.ts). A drone survey or
 * a long walk has EXIF positions on every photo; bundle adjustment on the photos alone lets a
 * large block bend with the keypoint noise (the scale bench: median rotation error 0.04° at 50
 * photos, 0.18° at 800, both at the optimum of their own observations), and no estimator can
 * stop that from the photos. The positions can: each global adjustment holds every camera with
 * a fix near it, in east-north-up metres about the capture.
 *
 * The model's frame stays its own. Before each global adjustment a robust similarity maps the
 * registered centres onto their fixes (so a fix far off, a multipath jump, is left out), and
 * the adjustment gets the fixes with that similarity as the priors' frame; no pose is held,
 * since the fixes fix the gauge. Fixes spread less than `gpsMinSpreadSigmas` σ across the
 * capture's second direction (a walk around a statue, one straight strip) give no prior.
 */
import { geodeticToEnu, type Geodetic } from "../../geometry/geodesy.js";
import { robustSimilarity } from "../../geometry/similarity.js";
import { median } from "../../math/median.js";
import { cameraCenter, type ImageRef, type SparseModel } from "../../scene/index.js";
import type { CentrePrior } from "../../solvers/bundle-adjustment/index.js";
import type { Options } from "./options.js";
import type { SfmState } from "./state.js";

/** Each image's fix in metres east, north, up of the capture's mean position; NaN without a fix (up NaN without altitude). */
const enuCache = new WeakMap<ImageRef[], Float64Array>();

export function localPositions(images: ImageRef[]): Float64Array {
  let enu = enuCache.get(images);
  if (enu) return enu;
  enu = new Float64Array(3 * images.length).fill(Number.NaN);
  const fixed = images.filter((im) => im.gps);
  if (fixed.length > 0) {
    const mean = (f: (im: ImageRef) => number | undefined) => {
      const values = fixed.map(f).filter((v): v is number => v !== undefined && Number.isFinite(v));
      return values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
    };
    const reference: Geodetic = { latitudeDeg: mean((im) => im.gps!.latitudeDeg), longitudeDeg: mean((im) => im.gps!.longitudeDeg), heightM: mean((im) => im.gps!.altitudeM) };
    images.forEach((im, i) => {
      if (!im.gps) return;
      const hasAltitude = im.gps.altitudeM !== undefined && Number.isFinite(im.gps.altitudeM);
      const [e, n, u] = geodeticToEnu({ latitudeDeg: im.gps.latitudeDeg, longitudeDeg: im.gps.longitudeDeg, heightM: hasAltitude ? im.gps.altitudeM! : reference.heightM }, reference);
      enu!.set([e, n, hasAltitude ? u : Number.NaN], 3 * i);
    });
  }
  enuCache.set(images, enu);
  return enu;
}

/** Where the world's east and up point in the model's coordinates, by the fixes, and how well the fixes fix "up". */
export interface GpsFrame {
  east: Float64Array;
  up: Float64Array;
  /** σ of the up direction (radians): the fixes' vertical scatter about the model over the capture's narrower horizontal spread, √n of them. */
  tiltSigmaRad: number;
}

/**
 * The world's east and up in the model's coordinates, from the similarity that maps its camera
 * centres onto their fixes with an altitude; null with fewer than 3 such fixes or no
 * similarity. For a model the fixes held (frame.ts). A phone's altitudes scatter by metres, so
 * its up can be worse than the photos' own: the tilt's σ, as for the slope of a plane fitted to
 * n points (σ_v / (√n · spread)), lets frame.ts choose.
 */
export function gpsFrame(model: SparseModel, images: ImageRef[]): GpsFrame | null {
  const enu = localPositions(images);
  const views = model.views.filter((v) => Number.isFinite(enu[3 * v.imageIndex + 2]));
  if (views.length < 3) return null;
  const centres = views.flatMap((v) => [...cameraCenter(v.camFromWorld)]);
  const fixes = views.flatMap((v) => [...enu.subarray(3 * v.imageIndex, 3 * v.imageIndex + 3)]);
  const sim = robustSimilarity(centres, fixes, views.length);
  if (!sim) return null;
  const { R, s, t } = sim;
  const kept = views.map((_, k) => k).filter((k) => sim.inliers[k]);
  let squares = 0;
  for (const k of kept) {
    const up = s * (R[6] * centres[3 * k] + R[7] * centres[3 * k + 1] + R[8] * centres[3 * k + 2]) + t[2];
    squares += (up - fixes[3 * k + 2]) ** 2;
  }
  const spread = secondSpread(kept.map((k) => [fixes[3 * k], fixes[3 * k + 1]]));
  const tiltSigmaRad = spread > 0 && kept.length >= 3 ? Math.sqrt(squares / kept.length) / (Math.sqrt(kept.length) * spread) : Number.POSITIVE_INFINITY;
  // ENU = s·R·model + t, so the model direction of ENU axis a is row a of R.
  return { east: Float64Array.from(R.subarray(0, 3)), up: Float64Array.from(R.subarray(6, 9)), tiltSigmaRad };
}

/** What a global adjustment's priors were (or why there were none), for the report. */
export interface GpsPriorSummary {
  /** Cameras of the adjustment with a fix, and those whose fix the similarity kept. */
  withFix: number;
  used: number;
  /** RMS distance (metres) of the kept fixes from the model's centres after the similarity, before the adjustment. */
  residualRmsM: number;
  /** The σ the priors had: the options', or larger where the fixes scatter more. */
  sigmaM?: number;
  verticalSigmaM?: number;
  reason?: string;
}

/** RMS about their mean of the horizontal positions along their second principal direction (metres): √ of the 2×2 covariance's smaller eigenvalue. */
function secondSpread(points: number[][]): number {
  const n = points.length;
  const [mx, my] = [0, 1].map((a) => points.reduce((s, p) => s + p[a], 0) / n);
  let sxx = 0, sxy = 0, syy = 0;
  for (const [x, y] of points) {
    sxx += (x - mx) ** 2;
    sxy += (x - mx) * (y - my);
    syy += (y - my) ** 2;
  }
  const [a, b, d] = [sxx / n, sxy / n, syy / n];
  const half = (a + d) / 2;
  return Math.sqrt(Math.max(0, half - Math.sqrt(Math.max(0, half * half - (a * d - b * b)))));
}

/** Each image's stated horizontal accuracy (EXIF GPSHPositioningError, or XMP), metres; NaN where the fix states none. */
function statedAccuracy(images: ImageRef[]): Float64Array {
  return Float64Array.from(images, (im) => im.gps?.horizontalErrorM ?? Number.NaN);
}

/** Each image's stated vertical accuracy (XMP: an RTK drone's, or Pix4D's namespace), metres; NaN where the fix states none. */
function statedVerticalAccuracy(images: ImageRef[]): Float64Array {
  return Float64Array.from(images, (im) => im.gps?.verticalErrorM ?? Number.NaN);
}

/**
 * Priors for the cameras `cameraImages` (one per camera of the adjustment, in its order), or
 * null (with the reason in `summary`) when the fixes cannot hold the block.
 *
 * σ per fix: the receiver's stated accuracy where the photo has one (RTK: centimetres), else
 * the options'; vertical σ as stated, else in the options' ratio to horizontal. A fix with a stated accuracy
 * is trusted as stated. The others are checked against the model: where their scatter about
 * it (after the similarity) exceeds the assumed σ, σ is raised to that scatter, so a phone's
 * fixes in a street do not bend the block.
 */
export function gpsPriorFor(state: SfmState, cameraImages: number[], options: Options): GpsPrior {
  // The centre −Rᵀt of image img.
  const centreOf = (img: number) => {
    const R = state.rotation.subarray(9 * img, 9 * img + 9);
    const t = state.translation.subarray(3 * img, 3 * img + 3);
    return [0, 1, 2].map((a) => -(R[a] * t[0] + R[3 + a] * t[1] + R[6 + a] * t[2]));
  };
  return gpsPriorForCentres(state.images as ImageRef[], cameraImages, centreOf, options);
}

/** The priors, or null with the reason in `summary`. */
export type GpsPrior = { prior: CentrePrior; summary: GpsPriorSummary } | { prior: null; summary: GpsPriorSummary };

/** gpsPriorFor for cameras whose centres `centre(imageIndex)` gives (a finished model's, sfm/control-adjust.ts). */
export function gpsPriorForCentres(images: ImageRef[], cameraImages: number[], centre: (imageIndex: number) => number[], options: Options): GpsPrior {
  const enu = localPositions(images);
  const stated = statedAccuracy(images);
  const statedVertical = statedVerticalAccuracy(images);
  const withFix = cameraImages.map((img, c) => ({ img, c })).filter(({ img }) => Number.isFinite(enu[3 * img]));
  const none = (reason: string) => ({ prior: null, summary: { withFix: withFix.length, used: 0, residualRmsM: Number.NaN, reason } });
  if (!options.gpsPriors) return none("off");
  if (withFix.length < 3) return none(`${withFix.length} registered photos with a GPS fix (3 needed)`);
  const verticalRatio = options.gpsVerticalSigmaM / options.gpsSigmaM;
  const sigmaOf = (img: number) => (Number.isFinite(stated[img]) ? stated[img] : options.gpsSigmaM);
  const verticalSigmaOf = (img: number) => (Number.isFinite(statedVertical[img]) ? statedVertical[img] : verticalRatio * sigmaOf(img));
  const typical = median(withFix.map(({ img }) => sigmaOf(img)));
  const spread = secondSpread(withFix.map(({ img }) => [enu[3 * img], enu[3 * img + 1]]));
  if (spread < options.gpsMinSpreadSigmas * typical) return none(`GPS fixes spread ${spread.toFixed(1)} m across the capture, within ${options.gpsMinSpreadSigmas} × their ${typical} m noise`);
  // The similarity from the model's centres to the fixes with an altitude; a fix without one
  // (some phones) then holds its camera horizontally only.
  const full = withFix.filter(({ img }) => Number.isFinite(enu[3 * img + 2]));
  if (full.length < 3) return none(`${full.length} registered photos with a GPS altitude (3 needed)`);
  const sim = robustSimilarity(full.flatMap(({ img }) => centre(img)), full.flatMap(({ img }) => [...enu.subarray(3 * img, 3 * img + 3)]), full.length);
  if (!sim) return none("no similarity maps the model onto its GPS fixes");
  // A fix is kept within 3 σ of its camera, or within the similarity's own robust threshold where
  // the model is not yet as accurate as the fixes (accurate fixes and a drifted block: the
  // drift is what the priors are there to remove).
  const threshold = Math.max(3 * Math.hypot(typical, verticalRatio * typical), sim.threshold);
  let horizontal = 0;
  let vertical = 0;
  let assumedCount = 0;
  let assumedWithAltitude = 0;
  let squares = 0;
  const kept = withFix.filter(({ img }) => {
    const m = centre(img);
    const mapped = [0, 1, 2].map((a) => sim.s * (sim.R[3 * a] * m[0] + sim.R[3 * a + 1] * m[1] + sim.R[3 * a + 2] * m[2]) + sim.t[a]);
    const h = (mapped[0] - enu[3 * img]) ** 2 + (mapped[1] - enu[3 * img + 1]) ** 2;
    const up = enu[3 * img + 2];
    const v = Number.isFinite(up) ? (mapped[2] - up) ** 2 : 0;
    if (Math.sqrt(h + v) > Math.max(threshold, 3 * Math.hypot(sigmaOf(img), verticalSigmaOf(img)))) return false;
    squares += h + v;
    if (!Number.isFinite(stated[img])) {
      horizontal += h;
      vertical += v;
      assumedCount++;
      if (Number.isFinite(up)) assumedWithAltitude++;
    }
    return true;
  });
  if (kept.length < Math.max(3, 0.5 * withFix.length)) return none(`the model agrees with only ${kept.length} of ${withFix.length} GPS fixes within ${threshold.toFixed(1)} m`);
  // Fixes of no stated accuracy: σ raised to their scatter about the model where it is larger.
  const sigmaH = Math.max(options.gpsSigmaM, assumedCount > 0 ? Math.sqrt(horizontal / (2 * assumedCount)) : 0);
  const sigmaV = Math.max(options.gpsVerticalSigmaM, assumedWithAltitude > 0 ? Math.sqrt(vertical / assumedWithAltitude) : 0);
  const positions = new Float64Array(3 * cameraImages.length);
  const sigmas = new Float64Array(3 * cameraImages.length);
  for (const { img, c } of kept) {
    const up = enu[3 * img + 2];
    const [h, v] = Number.isFinite(stated[img]) ? [stated[img], verticalSigmaOf(img)] : [sigmaH, sigmaV];
    positions.set([enu[3 * img], enu[3 * img + 1], Number.isFinite(up) ? up : 0], 3 * c);
    sigmas.set([h, h, Number.isFinite(up) ? v : 0], 3 * c);
  }
  return {
    prior: { positions, sigmas, frame: { R: sim.R, scale: sim.s, t: sim.t } },
    summary: { withFix: withFix.length, used: kept.length, residualRmsM: Math.sqrt(squares / kept.length), sigmaM: median(kept.map(({ c }) => sigmas[3 * c])), verticalSigmaM: median(kept.map(({ c }) => sigmas[3 * c + 2])) },
  };
}
