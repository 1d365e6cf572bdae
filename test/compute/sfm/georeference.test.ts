/**
 * GPS fixes as camera-centre priors (sfm/georeference.ts): when a capture's fixes are used, in
 * which frame, which are left out, and when they say nothing (spread within their noise, or
 * along a line).
 */
import { describe, expect, it } from "vitest";
import { enuToGeodetic, geodeticToEnu } from "../../../compute/geometry/geodesy.js";
import type { ImageRef } from "../../../compute/scene/index.js";
import { gpsPriorFor, localPositions } from "../../../compute/stages/sfm/georeference.js";
import { DEFAULTS } from "../../../compute/stages/sfm/options.js";
import type { SfmState } from "../../../compute/stages/sfm/state.js";
import { rng as createRng } from "../../support/fixtures.js";

const ORIGIN = { latitudeDeg: 46.2, longitudeDeg: 7.3, heightM: 500 };

/** A fix `east`, `north`, `up` metres from ORIGIN. */
function fixAt(east: number, north: number, up: number): NonNullable<ImageRef["gps"]> {
  const p = enuToGeodetic([east, north, up], ORIGIN);
  return { latitudeDeg: p.latitudeDeg, longitudeDeg: p.longitudeDeg, altitudeM: p.heightM };
}

/**
 * A state whose registered cameras sit at `centres` (metres east, north, up) seen through a
 * model frame = ENU scaled by 1/40, turned 30° about the vertical and shifted; each image has
 * the fix `fixes[i]` (null: none).
 */
function stateWith(centres: number[][], fixes: Array<NonNullable<ImageRef["gps"]> | null>): SfmState {
  const n = centres.length;
  const images = centres.map((_, i) => ({ index: i, name: `p${i}.jpg`, path: "", width: 640, height: 480, focalPrior: 600, focalPriorSource: "exif35mm", ...(fixes[i] ? { gps: fixes[i]! } : {}) })) as unknown as ImageRef[];
  const rotation = new Float64Array(9 * n);
  const translation = new Float64Array(3 * n);
  const [c, s] = [Math.cos(0.5), Math.sin(0.5)];
  centres.forEach((p, i) => {
    // Camera looking down (R = diag(1, −1, −1)); centre in the model frame m = Rz·p/40 + (3, −2, 1).
    const m = [(c * p[0] - s * p[1]) / 40 + 3, (s * p[0] + c * p[1]) / 40 - 2, p[2] / 40 + 1];
    rotation.set([1, 0, 0, 0, -1, 0, 0, 0, -1], 9 * i);
    translation.set([-m[0], m[1], m[2]], 3 * i); // t = −R·m
  });
  return { images, rotation, translation, order: centres.map((_, i) => i) } as unknown as SfmState;
}

const noise = (seed: number) => {
  const random = createRng(seed);
  return () => Math.sqrt(-2 * Math.log(Math.max(1e-12, random()))) * Math.cos(2 * Math.PI * random());
};

/** A 6 × 5 survey grid, 20 m apart, at 60 m. */
const GRID = Array.from({ length: 30 }, (_, k) => [20 * (k % 6), 20 * Math.floor(k / 6), 60]);

describe("sfm/georeference: GPS fixes as priors", () => {
  it("converts fixes to metres east, north, up about the capture", () => {
    const [e, n, u] = geodeticToEnu({ latitudeDeg: ORIGIN.latitudeDeg + 0.001, longitudeDeg: ORIGIN.longitudeDeg + 0.001, heightM: ORIGIN.heightM + 10 }, ORIGIN);
    expect(n).toBeCloseTo(111.2, 0); // 0.001° of latitude
    expect(e).toBeCloseTo(111.3 * Math.cos((46.2 * Math.PI) / 180), 0);
    expect(u).toBeCloseTo(10, 1);
    // And back, to the millimetre, a kilometre away.
    const far = enuToGeodetic([800, -600, 120], ORIGIN);
    const [e2, n2, u2] = geodeticToEnu(far, ORIGIN);
    expect(Math.hypot(e2 - 800, n2 + 600, u2 - 120)).toBeLessThan(1e-3);
    const enu = localPositions(stateWith(GRID, GRID.map((p) => fixAt(p[0], p[1], p[2]))).images as ImageRef[]);
    expect(enu[3 * 7] - enu[0]).toBeCloseTo(20, 2);
    expect(enu[3 * 7 + 1] - enu[1]).toBeCloseTo(20, 2);
  });

  it("holds a survey's cameras to their fixes through the similarity from the model's frame, and leaves out a fix 80 m off", () => {
    const gauss = noise(3);
    const fixes = GRID.map((p) => fixAt(p[0] + 1.5 * gauss(), p[1] + 1.5 * gauss(), p[2] + 3 * gauss()));
    fixes[7] = fixAt(GRID[7][0] + 80, GRID[7][1], GRID[7][2]);
    const state = stateWith(GRID, fixes);
    const cameras = GRID.map((_, i) => i);
    const { prior, summary } = gpsPriorFor(state, cameras, DEFAULTS);
    expect(prior).not.toBeNull();
    expect(summary.withFix).toBe(30);
    expect(summary.used).toBe(29);
    expect(prior!.sigmas[3 * 7]).toBe(0); // the outlier has no prior
    expect(prior!.frame!.scale).toBeCloseTo(40, 0);
    expect(summary.residualRmsM).toBeLessThan(5);
    // The frame maps a camera's model centre onto its fix within the noise.
    const enu = localPositions(state.images as ImageRef[]);
    const { R, scale, t } = prior!.frame!;
    for (const i of [0, 12, 29]) {
      const Rc = state.rotation.subarray(9 * i, 9 * i + 9);
      const tc = state.translation.subarray(3 * i, 3 * i + 3);
      const m = [0, 1, 2].map((a) => -(Rc[a] * tc[0] + Rc[3 + a] * tc[1] + Rc[6 + a] * tc[2]));
      const mapped = [0, 1, 2].map((a) => scale * (R[3 * a] * m[0] + R[3 * a + 1] * m[1] + R[3 * a + 2] * m[2]) + t[a]);
      expect(Math.hypot(mapped[0] - enu[3 * i], mapped[1] - enu[3 * i + 1])).toBeLessThan(6);
    }
    // The options' σ, or more where the fixes scatter more.
    expect(summary.sigmaM).toBeGreaterThanOrEqual(DEFAULTS.gpsSigmaM);
    expect(summary.sigmaM).toBeLessThan(3);
  });

  it("trusts a fix's stated accuracy (RTK: 2 cm) even where the model has not yet reached it", () => {
    const gauss = noise(4);
    // The model's centres 10 cm off their true places (a drifted block), the fixes within 2 cm.
    const drifted = GRID.map((p) => [p[0] + 0.1 * gauss(), p[1] + 0.1 * gauss(), p[2] + 0.1 * gauss()]);
    const fixes = GRID.map((p) => ({ ...fixAt(p[0] + 0.02 * gauss(), p[1] + 0.02 * gauss(), p[2] + 0.03 * gauss()), horizontalErrorM: 0.02 }));
    const { prior, summary } = gpsPriorFor(stateWith(drifted, fixes), GRID.map((_, i) => i), DEFAULTS);
    expect(summary.used).toBe(30);
    expect(prior!.sigmas[0]).toBeCloseTo(0.02, 9);
    expect(prior!.sigmas[2]).toBeCloseTo(0.04, 9);
    expect(summary.residualRmsM).toBeGreaterThan(0.1);
  });

  it("takes the vertical accuracy a drone states (DJI RTK: its height deviation), not the ratio to the horizontal", () => {
    const gauss = noise(6);
    const fixes = GRID.map((p, i) => ({ ...fixAt(p[0] + 0.015 * gauss(), p[1] + 0.015 * gauss(), p[2] + 0.025 * gauss()), horizontalErrorM: 0.015, ...(i === 4 ? {} : { verticalErrorM: 0.025 }) }));
    const { prior, summary } = gpsPriorFor(stateWith(GRID, fixes), GRID.map((_, i) => i), DEFAULTS);
    expect(summary.used).toBe(30);
    expect(prior!.sigmas[0]).toBeCloseTo(0.015, 9);
    expect(prior!.sigmas[2]).toBeCloseTo(0.025, 9);
    // A fix that states no height deviation keeps the options' ratio (4 m / 2 m) to its horizontal.
    expect(prior!.sigmas[3 * 4 + 2]).toBeCloseTo(0.03, 9);
    expect(summary.verticalSigmaM).toBeCloseTo(0.025, 9);
  });

  it("takes the σ the fixes show when they scatter more than the options say (a phone in a street)", () => {
    const gauss = noise(5);
    const fixes = GRID.map((p) => fixAt(p[0] + 8 * gauss(), p[1] + 8 * gauss(), p[2] + 8 * gauss()));
    const { prior, summary } = gpsPriorFor(stateWith(GRID, fixes), GRID.map((_, i) => i), { ...DEFAULTS, gpsSigmaM: 2, gpsVerticalSigmaM: 4 });
    expect(prior).not.toBeNull();
    // Fixes 8 m apart from the truth: σ well above the options' 2 m (the similarity's 13 m cut trims the tails).
    expect(summary.sigmaM).toBeGreaterThan(4);
    expect(summary.verticalSigmaM).toBeGreaterThan(5);
  });

  it("uses no prior from fixes within their noise (a walk around a statue), along one line, too few, without altitude, or when off", () => {
    const gauss = noise(9);
    const ring = Array.from({ length: 24 }, (_, k) => [4 * Math.cos((2 * Math.PI * k) / 24), 4 * Math.sin((2 * Math.PI * k) / 24), 1.6]);
    const walk = gpsPriorFor(stateWith(ring, ring.map((p) => fixAt(p[0] + 3 * gauss(), p[1] + 3 * gauss(), p[2]))), ring.map((_, i) => i), DEFAULTS);
    expect(walk.prior).toBeNull();
    expect(walk.summary.reason).toMatch(/spread .* within 5 × their 2 m noise/);
    const strip = Array.from({ length: 20 }, (_, k) => [30 * k, 0, 60]);
    expect(gpsPriorFor(stateWith(strip, strip.map((p) => fixAt(p[0], p[1] + 0.5 * gauss(), p[2]))), strip.map((_, i) => i), DEFAULTS).prior).toBeNull();
    const few = gpsPriorFor(stateWith(GRID, GRID.map((p, i) => (i < 2 ? fixAt(p[0], p[1], p[2]) : null))), GRID.map((_, i) => i), DEFAULTS);
    expect(few.summary.reason).toMatch(/2 registered photos with a GPS fix/);
    const flat = GRID.map((p) => ({ ...fixAt(p[0], p[1], p[2]), altitudeM: undefined }));
    expect(gpsPriorFor(stateWith(GRID, flat), GRID.map((_, i) => i), DEFAULTS).summary.reason).toMatch(/0 registered photos with a GPS altitude/);
    // With altitude on most fixes, those without hold their camera horizontally.
    const some = GRID.map((p, i) => (i % 3 === 0 ? { ...fixAt(p[0], p[1], p[2]), altitudeM: undefined } : fixAt(p[0], p[1], p[2])));
    const mixed = gpsPriorFor(stateWith(GRID, some), GRID.map((_, i) => i), DEFAULTS);
    expect(mixed.summary.used).toBe(30);
    expect(mixed.prior!.sigmas[3 * 0 + 2]).toBe(0);
    expect(mixed.prior!.sigmas[3 * 1 + 2]).toBeGreaterThan(0);
    expect(gpsPriorFor(stateWith(GRID, GRID.map((p) => fixAt(p[0], p[1], p[2]))), GRID.map((_, i) => i), { ...DEFAULTS, gpsPriors: false }).summary.reason).toBe("off");
  });
});
