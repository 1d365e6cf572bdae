import { describe, expect, it } from "vitest";
import type { RegisteredView, SparseModel } from "../../../compute/scene/index.js";
import { crossCheckStarts, startsAgree } from "../../../compute/stages/sfm/cross-check.js";

type Mat3 = number[];

function rotY(deg: number): Mat3 {
  const a = (deg * Math.PI) / 180;
  return [Math.cos(a), 0, Math.sin(a), 0, 1, 0, -Math.sin(a), 0, Math.cos(a)];
}

function mul(a: Mat3, b: Mat3): Mat3 {
  return Array.from({ length: 9 }, (_, k) => a[3 * Math.floor(k / 3)] * b[k % 3] + a[3 * Math.floor(k / 3) + 1] * b[3 + (k % 3)] + a[3 * Math.floor(k / 3) + 2] * b[6 + (k % 3)]);
}

function apply(m: Mat3, v: number[]): number[] {
  return [0, 1, 2].map((r) => m[3 * r] * v[0] + m[3 * r + 1] * v[1] + m[3 * r + 2] * v[2]);
}

/** A camera at `centre` with orientation `R` (camFromWorld). */
function view(index: number, centre: number[], R: Mat3, focal: number): RegisteredView {
  const t = apply(R, centre).map((x) => -x);
  return { imageIndex: index, name: `img${index}.jpg`, intrinsics: { width: 1000, height: 800, focal, cx: 500, cy: 400, k1: 0, k2: 0 }, camFromWorld: { R: new Float64Array(R), t: new Float64Array(t) } };
}

/** Six cameras on a ring looking inward, seen through a similarity (rotation about y by `turn`, scale, shift) — one start's frame. */
function ringModel(opts: { turn?: number; scale?: number; focal?: number; error?: number; perturb?: Map<number, number> } = {}): SparseModel {
  const { turn = 0, scale = 1, focal = 1000, error = 0.3, perturb = new Map() } = opts;
  const Q = rotY(turn);
  const views = Array.from({ length: 6 }, (_, i) => {
    const azimuth = 60 * i;
    const centre = apply(rotY(azimuth), [0, 0, -4]);
    const R = mul(rotY(-azimuth), rotY(perturb.get(i) ?? 0));
    // Similarity of the world: C' = s·Q·C + d, R' = R·Qᵀ.
    const moved = apply(Q, centre).map((c, a) => scale * c + [0.5, -1, 2][a]);
    const Qt = [Q[0], Q[3], Q[6], Q[1], Q[4], Q[7], Q[2], Q[5], Q[8]];
    return view(i, moved, mul(R, Qt), focal);
  });
  const count = 10;
  const obsViews = Uint32Array.from({ length: count * 6 }, (_, o) => o % 6);
  return {
    views,
    unregistered: [],
    otherModelSizes: [],
    points: { count, xyz: new Float64Array(3 * count), rgb: new Uint8Array(3 * count), error: new Float32Array(count).fill(error), obsOffsets: Uint32Array.from({ length: count + 1 }, (_, p) => 6 * p), obsViews, obsKeypoints: new Uint32Array(obsViews.length) },
  };
}

describe("sfm/cross-check of focal starts", () => {
  it("keeps the first start when every start places every camera alike (up to a similarity)", () => {
    const check = crossCheckStarts([ringModel(), ringModel({ turn: 40, scale: 2.5 }), ringModel({ turn: -70, scale: 0.3 })]);
    expect(check.refusal).toBeNull();
    expect(check.chosen).toBe(0);
    expect(check.unconfirmed.size).toBe(0);
    expect(check.confirmed).toBe(6);
  });

  it("prefers the start the others confirm over one with a camera 10° off, even at a lower error", () => {
    const check = crossCheckStarts([ringModel({ perturb: new Map([[3, 10]]), error: 0.2 }), ringModel({ turn: 30, scale: 2 }), ringModel({ turn: 90 })]);
    expect(check.chosen).toBe(1);
    expect(check.unconfirmed.size).toBe(0);
  });

  it("takes out a camera that two starts place differently, with the reason", () => {
    const check = crossCheckStarts([ringModel(), ringModel({ turn: 30, perturb: new Map([[3, 10]]) })]);
    expect(check.refusal).toBeNull();
    expect([...check.unconfirmed.keys()]).toEqual([3]);
    expect(check.unconfirmed.get(3)).toMatch(/not determined by the photos/);
  });

  it("refuses when two starts fit equally well with focals 40 % apart", () => {
    const check = crossCheckStarts([ringModel({ focal: 1000 }), ringModel({ focal: 1400, turn: 20 })]);
    expect(check.chosen).toBe(-1);
    expect(check.refusal).toMatch(/do not determine the focal length.*1000 and 1400 px/);
  });

  it("drops a start whose focal the others contradict while it fits clearly worse", () => {
    const check = crossCheckStarts([ringModel({ focal: 1400, error: 0.6 }), ringModel({ focal: 1000, error: 0.3 }), ringModel({ focal: 1010, error: 0.31, turn: 50 })]);
    expect(check.refusal).toBeNull();
    expect(check.chosen).toBe(1);
    expect(check.peers).toBe(2);
  });

  it("does not count a start that places clearly fewer photos as a witness", () => {
    const small = ringModel({ focal: 700 });
    small.views = small.views.slice(0, 3);
    const check = crossCheckStarts([ringModel(), small, null]);
    expect(check.refusal).toBeNull();
    expect(check.chosen).toBe(0);
    expect(check.peers).toBe(1);
  });

  it("says two starts agree only when they place the same cameras alike with the same focal", () => {
    expect(startsAgree([ringModel(), ringModel({ turn: 25, scale: 3 })])).toBe(true);
    expect(startsAgree([ringModel(), ringModel({ perturb: new Map([[2, 5]]) })])).toBe(false);
    expect(startsAgree([ringModel(), ringModel({ focal: 1300 })])).toBe(false);
    expect(startsAgree([ringModel(), null])).toBe(false);
    expect(startsAgree([ringModel(), ringModel(), ringModel()])).toBe(false);
  });
});
