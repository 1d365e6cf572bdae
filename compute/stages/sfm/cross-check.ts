/**
 * @module Cross-check of reconstructions started from different focal guesses.
 *
 * Without an EXIF focal, incremental SfM can settle in a local minimum that fits the photos
 * as well as the right solution: on templeSparseRing (16 photos of a dull statue on black,
 * 640×480) the full set started from 0.8, 1.2 and 2.0 × the long side gave three models of
 * 16/16 at 0.22–0.23 px, with the same focal, of which one had a camera 24.5° off and another
 * three cameras 3.9° off; its second half gave 4/8 at focals ~480 and ~540 px from two starts
 * (31° off) and 1,515 px (true 1,520) from the third. No residual tells the wrong model from
 * the right one; agreement between independent starts does (a camera that every start puts in
 * the same place is determined by the photos, one that moves between starts is not — the
 * idea behind multi-start consensus in global optimisation, and what COLMAP users do by hand
 * when they re-run with another initial pair).
 *
 * So, among the models that place about as many photos as the best (the peers):
 * - if two peers place the same cameras with focals more than FOCAL_AMBIGUITY apart and fit
 *   about equally well, the photos do not determine the focal: refuse rather than choose;
 * - otherwise keep the peer whose cameras the other peers confirm most (same pose within
 *   AGREE_ROTATION_DEG and AGREE_CENTER_SHARE of the camera spread after a robust similarity
 *   alignment, accuracy.ts), then the one placing more photos, then the one with fewer
 *   distinct intrinsics, then the earlier start (the prior first: between models the others
 *   confirm, a lower error by a few percent is noise — on smoke without every second photo
 *   it picked a start 6 % lower in error and 60 % higher in median rotation error); and take
 *   out of it the cameras no other peer confirms, each with the reason. A peer whose focal
 *   another contradicts while fitting clearly worse (EQUAL_FIT_RATIO) is not a witness.
 *
 * What it cannot catch: an error every start agrees on (templeSparseRing without every third
 * photo, four cameras 8.7–10° off from all starts; docs/decisions.md, "Small EXIF-less uploads
 * are cross-checked from several focal starts"). Each start begins from the matcher's tracks, not
 * from those an earlier start's loop closure extended, so the outcome does not depend on the
 * order of the starts (index.ts `tryOtherFocalGuesses`; docs/decisions.md, "Focal starts are
 * independent witnesses").
 */
import type { SparseModel } from "../../scene/index.js";
import { cameraCenter } from "../../scene/index.js";
import { cameraAccuracy } from "./accuracy.js";
import { meanReprojectionErrorPx } from "./model.js";
import { median } from "../../math/median.js";

/** Two starts' focals this far apart (relative) on the same cameras: the focal is not determined. */
export const FOCAL_AMBIGUITY = 0.15;
/** Mean reprojection errors within this factor count as fitting the photos equally well. */
const EQUAL_FIT_RATIO = 1.25;
/** A camera's pose in two models agrees within this rotation… */
const AGREE_ROTATION_DEG = 1;
/** …and this share of the cameras' spread (median distance from their centroid). */
const AGREE_CENTER_SHARE = 0.05;
/** A model placing at least this share of the most photos placed is a peer. */
const PEER_SHARE = 0.9;

export interface CrossCheck {
  /** Index (into the models given) of the model to keep; -1 when refused. */
  chosen: number;
  /** Views of the chosen model (by index) that no other peer confirms, with the reason. */
  unconfirmed: Map<number, string>;
  /** Why the models were refused (focal not determined); null when one was chosen. */
  refusal: string | null;
  /** Models compared (peers), and the chosen model's cameras confirmed by another peer. */
  peers: number;
  confirmed: number;
}

/** Median distance of the model's camera centres from their centroid. */
function cameraSpread(model: SparseModel): number {
  const centres = model.views.map((v) => cameraCenter(v.camFromWorld));
  const mean = [0, 1, 2].map((a) => centres.reduce((s, c) => s + c[a], 0) / Math.max(1, centres.length));
  return median(centres.map((c) => Math.hypot(c[0] - mean[0], c[1] - mean[1], c[2] - mean[2])));
}

/** Names of `model`'s cameras that `witness` places in the same pose (both need ≥ 3 cameras in common). */
function confirmedBy(model: SparseModel, witness: SparseModel): Set<string> {
  const names = new Set(witness.views.map((v) => v.name));
  if (model.views.filter((v) => names.has(v.name)).length < 3) return new Set();
  const spread = cameraSpread(witness);
  const accuracy = cameraAccuracy(model.views, witness.views, spread);
  const agreeing = accuracy.perCamera.filter((c) => c.rotationErrorDeg <= AGREE_ROTATION_DEG && c.centerErrorPercent <= 100 * AGREE_CENTER_SHARE);
  return new Set(agreeing.map((c) => c.name));
}

/** Median ratio of `a`'s focal to `b`'s over the cameras both place; NaN without any. */
function focalRatio(a: SparseModel, b: SparseModel): number {
  const focalOf = new Map(b.views.map((v) => [v.name, v.intrinsics.focal]));
  return median(a.views.flatMap((v) => (focalOf.has(v.name) ? [v.intrinsics.focal / focalOf.get(v.name)!] : [])));
}

export function crossCheckStarts(models: Array<SparseModel | null>): CrossCheck {
  const placed = models.map((m) => m?.views.length ?? 0);
  const most = Math.max(0, ...placed);
  const peers = models.flatMap((m, i) => (m !== null && placed[i] >= 3 && placed[i] >= PEER_SHARE * most ? [i] : []));
  const error = models.map((m) => (m ? meanReprojectionErrorPx(m) : Infinity));
  // A peer whose focal another peer contradicts while fitting clearly worse is not a witness.
  const dropped = new Set<number>();
  for (const p of peers) {
    for (const q of peers) {
      if (p === q) continue;
      const ratio = focalRatio(models[p]!, models[q]!);
      if (!(Math.abs(ratio - 1) > FOCAL_AMBIGUITY)) continue;
      if (error[p] > EQUAL_FIT_RATIO * error[q]) dropped.add(p);
    }
  }
  const kept = peers.filter((p) => !dropped.has(p));
  for (const [k, p] of kept.entries()) {
    for (const q of kept.slice(k + 1)) {
      if (Math.abs(focalRatio(models[p]!, models[q]!) - 1) > FOCAL_AMBIGUITY) {
        const fp = median(models[p]!.views.map((v) => v.intrinsics.focal));
        const fq = median(models[q]!.views.map((v) => v.intrinsics.focal));
        return {
          chosen: -1,
          unconfirmed: new Map(),
          refusal: `the photos do not determine the focal length: reconstructions started from different focal guesses place the same photos with focals of ${fp.toFixed(0)} and ${fq.toFixed(0)} px and fit them equally well (${error[p].toFixed(2)} and ${error[q].toFixed(2)} px)`,
          peers: kept.length,
          confirmed: 0,
        };
      }
    }
  }
  if (kept.length < 2) return { chosen: kept[0] ?? models.findIndex((m) => m !== null), unconfirmed: new Map(), refusal: null, peers: kept.length, confirmed: 0 };
  const confirmations = kept.map((p) => {
    const confirmed = new Set<string>();
    for (const q of kept) if (q !== p) for (const name of confirmedBy(models[p]!, models[q]!)) confirmed.add(name);
    return confirmed;
  });
  // Fewer distinct intrinsics first: a model that left photos on focals of their own fits a
  // little better for the extra parameters, not for a truer geometry (the twoFocal stress
  // scene: 5 % lower error from unmerged focals, centre errors 1.3 % instead of 1.0 %).
  const cameras = models.map((m) => new Set(m?.views.map((v) => v.intrinsics.focal) ?? []).size);
  let best = 0;
  for (let k = 1; k < kept.length; k++) {
    const [p, b] = [kept[k], kept[best]];
    const better =
      confirmations[k].size !== confirmations[best].size ? confirmations[k].size > confirmations[best].size
      : placed[p] !== placed[b] ? placed[p] > placed[b]
      : cameras[p] < cameras[b];
    if (better) best = k;
  }
  const chosen = kept[best];
  const unconfirmed = new Map<number, string>();
  models[chosen]!.views.forEach((view, v) => {
    if (!confirmations[best].has(view.name)) {
      unconfirmed.set(v, `its pose is not determined by the photos: reconstructions started from other focal guesses place it more than ${AGREE_ROTATION_DEG}° or ${100 * AGREE_CENTER_SHARE} % of the camera spread elsewhere`);
    }
  });
  return { chosen, unconfirmed, refusal: null, peers: kept.length, confirmed: confirmations[best].size };
}

/**
 * Whether a second start already confirms the first one completely (same photos placed, every
 * camera in the same pose, focals alike): then a third start is not worth its time (it would
 * add a third reconstruction to confirm what two agree on; synthetic/facade, 20 photos without
 * EXIF: SfM 26.6 s for one start).
 */
export function startsAgree(models: Array<SparseModel | null>): boolean {
  const [first, second] = models;
  if (models.length !== 2 || !first || !second || first.views.length !== second.views.length || first.views.length < 3) return false;
  if (Math.abs(focalRatio(first, second) - 1) > FOCAL_AMBIGUITY) return false;
  return confirmedBy(first, second).size === first.views.length && confirmedBy(second, first).size === second.views.length;
}
