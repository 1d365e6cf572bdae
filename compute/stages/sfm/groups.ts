/**
 * @module Which images share intrinsics (one physical camera, one focal and distortion).
 *
 * Sharing intrinsics makes focal and distortion refinement far better conditioned
 * (COLMAP's `single_camera_per_folder`): all frames of one video share a group; photos with
 * the same size and the same EXIF-derived focal prior share a group (same body and zoom
 * setting, as far as ImageRef can tell); an image whose focal is only the default guess gets
 * its own group, since nothing says it came from the same camera as another.
 */
import type { ImageRef } from "../../scene/index.js";
import type { SfmState } from "./state.js";
import { median } from "../../math/median.js";

export interface IntrinsicsGroups {
  groupOfImage: Uint32Array;
  /** focal, cx, cy, k1, k2 per group, initialised from the priors. */
  intrinsics: Float64Array;
}

function groupKey(image: ImageRef): string {
  if (image.video) return `video:${image.video.file}`;
  if (image.focalPriorSource === "default") return `image:${image.index}`;
  return `exif:${image.width}x${image.height}:${image.focalPrior.toFixed(1)}`;
}

export function assignIntrinsicsGroups(images: ImageRef[]): IntrinsicsGroups {
  const groupOfKey = new Map<string, number>();
  const groupOfImage = new Uint32Array(images.length);
  const values: number[] = [];
  images.forEach((image, i) => {
    const key = groupKey(image);
    let g = groupOfKey.get(key);
    if (g === undefined) {
      g = groupOfKey.size;
      groupOfKey.set(key, g);
      values.push(image.focalPrior, image.width / 2, image.height / 2, 0, 0);
    }
    groupOfImage[i] = g;
  });
  return { groupOfImage, intrinsics: new Float64Array(values) };
}

/**
 * The same groups with the photos without an EXIF focal (not video frames) of one image size
 * in one group: the hypothesis that one camera took them, the common case, which per-image
 * groups only reach once their refined focals agree (mergeConsistentGroups). On a sparse ring
 * of a dull object those per-image focals are too weakly fixed to agree: templeSparseRing's
 * starts then disagreed and the upload was refused, whereas one shared focal from the same
 * default prior (768 px) refined to 1,531 px (true 1,520) and placed all 16 photos within
 * 0.85°. Each group starts from its members' (equal) default prior.
 */
export function oneCameraPerSize(groups: IntrinsicsGroups, images: ImageRef[]): IntrinsicsGroups {
  const groupOfSize = new Map<string, number>();
  const keep = new Map<number, number>();
  const values: number[] = [];
  const groupOfImage = new Uint32Array(images.length);
  const newGroup = (old: number): number => {
    values.push(...groups.intrinsics.subarray(5 * old, 5 * old + 5));
    return values.length / 5 - 1;
  };
  images.forEach((image, i) => {
    const old = groups.groupOfImage[i];
    if (image.focalPriorSource === "default" && !image.video) {
      const key = `${image.width}x${image.height}`;
      if (!groupOfSize.has(key)) groupOfSize.set(key, newGroup(old));
      groupOfImage[i] = groupOfSize.get(key)!;
      return;
    }
    if (!keep.has(old)) keep.set(old, newGroup(old));
    groupOfImage[i] = keep.get(old)!;
  });
  return { groupOfImage, intrinsics: Float64Array.from(values) };
}

/** Whether two or more photos without an EXIF focal share an image size (so oneCameraPerSize differs from the groups). */
export function photosShareUnknownCamera(images: ImageRef[]): boolean {
  const sizes = new Set<string>();
  for (const image of images) {
    if (image.focalPriorSource !== "default" || image.video) continue;
    const key = `${image.width}x${image.height}`;
    if (sizes.has(key)) return true;
    sizes.add(key);
  }
  return false;
}

/** Registered photos of one size without EXIF before their focals' failure to agree says something. */
const UNSETTLED_MIN_PHOTOS = 6;

/**
 * Whether a model's photos without an EXIF focal (not video frames) of some image size, at least
 * UNSETTLED_MIN_PHOTOS of them placed, ended with no intrinsics group holding half of them: their
 * per-photo focals never came to agree (mergeConsistentGroups). One camera's photos agree within
 * a few percent even on a narrow ring (templeSparseRing: 1,494–1,646 px, merged); through a
 * barrel lens the model cannot represent per photo, they run away together instead
 * (rendered/courtyard-wide, k1 −0.25, true focal 864 px: 1,481–1,659 px at 6 photos placed,
 * 5,206–10,551 px at 16), and every per-photo start does the same.
 */
export function focalsUnsettled(images: ImageRef[], placed: number[], groupOfImage: Uint32Array): boolean {
  return unsettledSizes(images, placed, groupOfImage).length > 0;
}

/** The placed EXIF-less photos of each image size whose focals are unsettled (focalsUnsettled). */
function unsettledSizes(images: ImageRef[], placed: number[], groupOfImage: Uint32Array): number[][] {
  const bySize = new Map<string, number[]>();
  for (const i of placed) {
    const image = images[i];
    if (image.focalPriorSource !== "default" || image.video) continue;
    const key = `${image.width}x${image.height}`;
    bySize.set(key, [...(bySize.get(key) ?? []), i]);
  }
  return [...bySize.values()].filter((members) => {
    if (members.length < UNSETTLED_MIN_PHOTOS) return false;
    const count = new Map<number, number>();
    for (const i of members) count.set(groupOfImage[i], (count.get(groupOfImage[i]) ?? 0) + 1);
    return 2 * Math.max(...count.values()) < members.length;
  });
}

/**
 * The median relative step of the focals of the placed photos without an EXIF focal (not video
 * frames) from `before` (the intrinsics a global adjustment began from) to the state's; 0 when
 * there are none.
 */
export function guessedFocalStep(state: SfmState, before: Float64Array): number {
  const steps: number[] = [];
  for (const i of state.order) {
    const image = state.images[i];
    if (image.focalPriorSource !== "default" || image.video) continue;
    const g = state.groupOfImage[i];
    steps.push(Math.abs(state.intrinsics[5 * g] / before[5 * g] - 1));
  }
  return steps.length === 0 ? 0 : median(steps);
}

/** Unsettled focals whose median has grown this many times their prior run away. */
const RUNAWAY_FACTOR = 2;

/**
 * Whether unsettled per-photo focals (focalsUnsettled) are running away: their median at least
 * RUNAWAY_FACTOR times the photos' prior, or at most its 1 / RUNAWAY_FACTOR. On
 * rendered/courtyard-wide (barrel lens, no EXIF, prior 960 px, true 864 px) the median went
 * 1,579 → 2,186 → 2,849 px over the global adjustments at 6, 7 and 9 photos placed, and 7,123 px
 * at 16; the finished start took 16 of the stage's 38 s. A focal that is only far from its guess
 * converges and agrees (templeSparseRing, 768 → ~1,520 px, merged from 6 photos on).
 */
export function focalsRunAway(images: ImageRef[], placed: number[], groupOfImage: Uint32Array, intrinsics: Float64Array): boolean {
  return unsettledSizes(images, placed, groupOfImage).some((members) => {
    const ratio = median(members.map((i) => intrinsics[5 * groupOfImage[i]])) / median(members.map((i) => images[i].focalPrior));
    return ratio >= RUNAWAY_FACTOR || ratio <= 1 / RUNAWAY_FACTOR;
  });
}

/** A last adjustment that moved the guessed focals by more than this (median, relative) has not settled them. */
const RUNNING_STEP = 0.1;

/**
 * Whether the placed EXIF-less photos' focals, merged or not, are running away: their median at
 * RUNAWAY_FACTOR times their prior (or 1 / RUNAWAY_FACTOR) while the last adjustment (`lastStep`,
 * guessedFocalStep) still moved them by more than RUNNING_STEP. rendered/courtyard-wide without
 * photos 04 and 12 merged its focals and ran on: 2.20 × the prior at 13 photos, +23 % in that
 * adjustment; templeSparseRing's reached 2.01 × with a 4.9 % step and settled at 1,520 px.
 */
export function guessedFocalsRunning(images: ImageRef[], placed: number[], groupOfImage: Uint32Array, intrinsics: Float64Array, lastStep: number): boolean {
  const guessed = placed.filter((i) => images[i].focalPriorSource === "default" && !images[i].video);
  if (guessed.length < UNSETTLED_MIN_PHOTOS || lastStep <= RUNNING_STEP) return false;
  const ratio = median(guessed.map((i) => intrinsics[5 * groupOfImage[i]])) / median(guessed.map((i) => images[i].focalPrior));
  return ratio >= RUNAWAY_FACTOR || ratio <= 1 / RUNAWAY_FACTOR;
}

/**
 * Relative spread of refined focals within which default-prior images are taken to share a
 * camera. 5%: one image's focal is poorly fixed on a narrow lens (temple ring, f ≈ 2.4 ×
 * width: 16 per-image focals spread −3.5%…+0.8% around their median, so at 3% they never
 * merged and the ring kept a 14-focal ambiguity); two different cameras' focals rarely
 * agree that closely by chance, and the default-prior ones also share the image size.
 */
const MERGE_FOCAL_TOLERANCE = 0.05;
/** Registered members needed before their focals are trusted to agree. */
const MERGE_MIN_REGISTERED = 3;
/** Cameras of one image size looked for among photos without EXIF (a body and two zoom settings). */
const MAX_CAMERAS_PER_SIZE = 3;

/**
 * Photos without EXIF start in groups of their own, but a set of them is usually shot with
 * one camera, and per-image focals leave a focal/depth ambiguity that biases every pose. Once
 * the refined focals of a majority of the registered same-size default-prior images agree
 * within 5% of their median, the evidence says one camera: merge those (median focal and
 * distortion) into one group that BA then refines with all their observations; an image
 * registered later joins when its own refined focal agrees (merging the unregistered ones too
 * put both cameras of a two-camera upload on one focal: 5.7° and 139 % errors on the
 * twoFocal stress scene). The registered images that disagree keep their own group
 * (another camera, or a focal a weak link let drift): on templeSparseRing the per-image
 * focals spread 1494–1646 px round a true 1520 px with two images beyond 5%, so the
 * all-must-agree rule this replaces never merged and left 16 free focals to bend the ring.
 * The photos left over are then searched for a second camera of the same size (three or more
 * agreeing). Returns the number of groups merged away.
 */
export function mergeConsistentGroups(state: SfmState): number {
  const clusters = new Map<string, number[]>();
  state.images.forEach((image, i) => {
    if (image.focalPriorSource !== "default" || image.video) return;
    const key = `${image.width}x${image.height}`;
    clusters.set(key, [...(clusters.get(key) ?? []), i]);
  });
  let merged = 0;
  for (const members of clusters.values()) {
    // The majority camera first, then, among the photos that disagree with it, a second camera
    // of the same image size (another zoom setting) when a majority of those agree in turn: on
    // the twoFocal stress scene the second camera's six photos kept six focals of their own,
    // which traded against their distances (centre errors up to 1.3 %).
    let pool = members.filter((i) => state.registered[i] === 1);
    for (let round = 0; round < MAX_CAMERAS_PER_SIZE && pool.length >= MERGE_MIN_REGISTERED; round++) {
      // A second camera needs three photos agreeing on it, not two drifted focals that happen to match.
      merged += mergeAgreeing(state, members, pool, round === 0 ? 2 : MERGE_MIN_REGISTERED);
      // Set the largest camera aside: the photos left may agree on a second one.
      const count = new Map<number, number>();
      for (const i of pool) count.set(state.groupOfImage[i], (count.get(state.groupOfImage[i]) ?? 0) + 1);
      const [largest, size] = [...count].reduce((a, b) => (b[1] > a[1] ? b : a));
      if (size < MERGE_MIN_REGISTERED) break;
      pool = pool.filter((i) => state.groupOfImage[i] !== largest);
    }
  }
  return merged;
}

/**
 * One round of mergeConsistentGroups over the registered images `pool` of one size: merge
 * those agreeing with their median focal when they are a majority of the pool and at least
 * `minAgreeing` photos. Returns the number of groups merged away.
 */
function mergeAgreeing(state: SfmState, members: number[], pool: number[], minAgreeing: number): number {
  const K = state.intrinsics;
  const registeredGroups = new Set(pool.map((i) => state.groupOfImage[i]));
  if (registeredGroups.size < 2 || pool.length < MERGE_MIN_REGISTERED) return 0;
  // Median and majority over images, not groups: a merged group speaks for all its images.
  const focalOf = (i: number) => K[5 * state.groupOfImage[i]];
  const focal = median(pool.map(focalOf));
  const agreeingImages = pool.filter((i) => Math.abs(focalOf(i) / focal - 1) <= MERGE_FOCAL_TOLERANCE);
  const agreeing = new Set(agreeingImages.map((i) => state.groupOfImage[i]));
  // A majority of the pool must agree; those that do not keep their own groups.
  if (2 * agreeingImages.length <= pool.length || agreeing.size < 2 || agreeingImages.length < minAgreeing) return 0;
  // The largest agreeing group absorbs the others, so repeated calls keep one target.
  const sizes = new Map<number, number>();
  for (const i of members) sizes.set(state.groupOfImage[i], (sizes.get(state.groupOfImage[i]) ?? 0) + 1);
  const target = [...agreeing].reduce((a, b) => ((sizes.get(b) ?? 0) > (sizes.get(a) ?? 0) ? b : a));
  const focalK1K2 = [0, 3, 4].map((a) => median(agreeingImages.map((i) => K[5 * state.groupOfImage[i] + a])));
  K[5 * target] = focalK1K2[0];
  K[5 * target + 3] = focalK1K2[1];
  K[5 * target + 4] = focalK1K2[2];
  const mergedAway = new Set<number>();
  for (const i of members) {
    const g = state.groupOfImage[i];
    // An image not registered yet may come from another camera of the same image size (two
    // phones, a zoom setting): it joins only once its own refined focal agrees (a later call).
    if (g === target || state.registered[i] !== 1 || !agreeing.has(g)) continue;
    mergedAway.add(g);
    state.groupOfImage[i] = target;
    state.normalizedXy[i] = null;
  }
  return mergedAway.size;
}
