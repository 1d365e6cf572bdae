import { describe, expect, it } from "vitest";
import { assignIntrinsicsGroups, focalsRunAway, focalsUnsettled, guessedFocalsRunning, guessedFocalStep, mergeConsistentGroups, oneCameraPerSize, photosShareUnknownCamera } from "../../../compute/stages/sfm/groups.js";
import { createState, registerImage } from "../../../compute/stages/sfm/state.js";
import { makeSyntheticScene } from "./synthetic.js";

describe("mergeConsistentGroups", () => {
  function stateWithFocals(focals: number[], registered: number[]) {
    const scene = makeSyntheticScene({ cameras: focals.length, points: 30, noisePx: 0.5, outlierShare: 0, outlierImage: false, seed: 2, defaultFocalPrior: 600 });
    const intrinsics = Float64Array.from(focals.flatMap((f) => [f, 320, 240, 0, 0]));
    const state = createState(scene.images, scene.features, scene.tracks, Uint32Array.from(focals.map((_, i) => i)), intrinsics);
    for (const i of registered) registerImage(state, i);
    return state;
  }

  it("merges the agreeing majority of EXIF-less same-size images and leaves the outlier alone", () => {
    const state = stateWithFocals([500, 505, 498, 502, 560, 610], [0, 1, 2, 3, 4]);
    expect(mergeConsistentGroups(state)).toBe(3);
    const group = state.groupOfImage[0];
    // Image 4 disagrees by 11 %; image 5 is not registered, so nothing says which camera took
    // it (a second camera of the same image size is common): it keeps its own group for now.
    expect(Array.from(state.groupOfImage)).toEqual([group, group, group, group, 4, 5]);
    expect(state.intrinsics[5 * group]).toBe(502);
  });

  it("takes in an image registered later once its own refined focal agrees", () => {
    const state = stateWithFocals([500, 505, 498, 502, 560, 499], [0, 1, 2, 3, 4]);
    mergeConsistentGroups(state);
    const group = state.groupOfImage[0];
    registerImage(state, 5);
    expect(mergeConsistentGroups(state)).toBe(1);
    expect(state.groupOfImage[5]).toBe(group);
  });

  it("merges nothing when no majority agrees", () => {
    const state = stateWithFocals([500, 505, 560, 620], [0, 1, 2, 3]);
    expect(mergeConsistentGroups(state)).toBe(0);
    expect(Array.from(state.groupOfImage)).toEqual([0, 1, 2, 3]);
  });

  it("finds a second camera of the same image size among the photos that disagree with the first", () => {
    // Photos at ~400 px and at ~600 px (two zoom settings, no EXIF), registered as incremental
    // SfM would: the short camera's photos are the majority first, then the long camera's arrive.
    const state = stateWithFocals([400, 602, 398, 598, 401, 601, 399, 597, 402, 603, 400, 600], [0, 2, 4, 6, 8, 10, 1, 3]);
    expect(mergeConsistentGroups(state)).toBe(5);
    for (const i of [5, 7, 9, 11]) registerImage(state, i);
    expect(mergeConsistentGroups(state)).toBe(5);
    const [short, long] = [state.groupOfImage[0], state.groupOfImage[1]];
    expect(short).not.toBe(long);
    expect(Array.from(state.groupOfImage)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].map((i) => (i % 2 === 0 ? short : long)));
    expect(state.intrinsics[5 * short]).toBeCloseTo(400, 0);
    expect(state.intrinsics[5 * long]).toBeCloseTo(600, -1);
  });

  it("leaves two disagreeing photos on their own focals (a second camera needs three that agree)", () => {
    const state = stateWithFocals([500, 505, 498, 502, 501, 640, 700], [0, 1, 2, 3, 4, 5, 6]);
    mergeConsistentGroups(state);
    expect(new Set([0, 1, 2, 3, 4].map((i) => state.groupOfImage[i])).size).toBe(1);
    expect([state.groupOfImage[5], state.groupOfImage[6]]).toEqual([5, 6]);
    // Three left over, two of them alike: still not a camera of its own.
    const three = stateWithFocals([500, 505, 498, 502, 501, 503, 640, 642, 700], [0, 1, 2, 3, 4, 5, 6, 7, 8]);
    mergeConsistentGroups(three);
    expect([6, 7, 8].map((i) => three.groupOfImage[i])).toEqual([6, 7, 8]);
  });
});

describe("oneCameraPerSize", () => {
  it("puts the EXIF-less photos of one size in one group and leaves EXIF cameras and videos as they were", () => {
    const scene = makeSyntheticScene({ cameras: 6, points: 30, noisePx: 0.5, outlierShare: 0, outlierImage: false, seed: 2, defaultFocalPrior: 600 });
    const images = scene.images.map((image, i) => ({ ...image, index: i }));
    // 0, 1, 3: no EXIF, 640×480; 2: EXIF; 4: no EXIF, another size; 5: a video frame.
    images[2] = { ...images[2], focalPriorSource: "exif35mm", focalPrior: 700 };
    images[4] = { ...images[4], width: 800, height: 600 };
    images[5] = { ...images[5], video: { file: "walk.mp4", frame: 30 } };
    const groups = assignIntrinsicsGroups(images);
    expect(new Set(groups.groupOfImage).size).toBe(6);
    expect(photosShareUnknownCamera(images)).toBe(true);
    const shared = oneCameraPerSize(groups, images);
    const g = shared.groupOfImage;
    expect(g[0]).toBe(g[1]);
    expect(g[3]).toBe(g[0]);
    expect(new Set([g[0], g[2], g[4], g[5]]).size).toBe(4);
    expect(shared.intrinsics.length).toBe(5 * 4);
    expect(shared.intrinsics[5 * g[2]]).toBe(700);
    expect(shared.intrinsics[5 * g[0]]).toBe(600);
    expect(photosShareUnknownCamera([images[0], images[2], images[4], images[5]])).toBe(false);
  });
});

describe("focalsUnsettled", () => {
  const scene = makeSyntheticScene({ cameras: 8, points: 30, noisePx: 0.5, outlierShare: 0, outlierImage: false, seed: 2, defaultFocalPrior: 600 });
  const images = scene.images.map((image, i) => ({ ...image, index: i }));
  const all = [0, 1, 2, 3, 4, 5, 6, 7];

  it("holds when no group has half of six or more placed EXIF-less photos of one size", () => {
    // A barrel lens the per-photo model cannot represent: eight focals of their own.
    expect(focalsUnsettled(images, all, Uint32Array.from(all))).toBe(true);
    // Half of them on one merged focal: settled (the others may be a second camera).
    expect(focalsUnsettled(images, all, Uint32Array.from([0, 0, 0, 0, 4, 5, 6, 7]))).toBe(false);
    // Three on one focal, five alone: no half.
    expect(focalsUnsettled(images, all, Uint32Array.from([0, 0, 0, 3, 4, 5, 6, 7]))).toBe(true);
  });

  it("says nothing of fewer than six photos, of photos with EXIF or of video frames", () => {
    expect(focalsUnsettled(images, [0, 1, 2, 3, 4], Uint32Array.from(all))).toBe(false);
    const exif = images.map((image, i) => (i < 3 ? { ...image, focalPriorSource: "exif35mm" as const, focalPrior: 700 } : image));
    expect(focalsUnsettled(exif, all, Uint32Array.from(all))).toBe(false);
    const video = images.map((image, i) => (i < 3 ? { ...image, video: { file: "walk.mp4", frame: i } } : image));
    expect(focalsUnsettled(video, all, Uint32Array.from(all))).toBe(false);
    // Two image sizes of four each: neither reaches six.
    const sizes = images.map((image, i) => (i < 4 ? { ...image, width: 800, height: 600 } : image));
    expect(focalsUnsettled(sizes, all, Uint32Array.from(all))).toBe(false);
  });
});

describe("focalsRunAway", () => {
  const scene = makeSyntheticScene({ cameras: 8, points: 30, noisePx: 0.5, outlierShare: 0, outlierImage: false, seed: 2, defaultFocalPrior: 960 });
  const images = scene.images.map((image, i) => ({ ...image, index: i }));
  const all = [0, 1, 2, 3, 4, 5, 6, 7];
  const perPhoto = Uint32Array.from(all);
  const intrinsicsOf = (focals: number[]) => Float64Array.from(focals.flatMap((f) => [f, 320, 240, 0, 0]));

  it("holds for unsettled focals whose median is twice the prior or half of it", () => {
    // rendered/courtyard-wide's per-photo focals at 7 photos placed (prior 960 px, true 864 px).
    const courtyardWide = [1988, 1992, 2075, 2186, 2281, 2326, 2298, 2200];
    expect(focalsRunAway(images, all, perPhoto, intrinsicsOf(courtyardWide))).toBe(true);
    expect(focalsRunAway(images, all, perPhoto, intrinsicsOf(courtyardWide.map((f) => f / 5)))).toBe(true);
  });

  it("does not hold for unsettled focals near the prior, nor for settled ones far from it", () => {
    expect(focalsRunAway(images, all, perPhoto, intrinsicsOf([1481, 1485, 1521, 1579, 1628, 1659, 1600, 1550]))).toBe(false);
    // The temple's case: far from the 768-px guess, but merged.
    const merged = Uint32Array.from([0, 0, 0, 0, 0, 5, 6, 7]);
    expect(focalsRunAway(images, all, merged, intrinsicsOf([2500, 0, 0, 0, 0, 2400, 2600, 2550]))).toBe(false);
  });
});

describe("guessedFocalStep", () => {
  it("is the median step of the placed EXIF-less photos' focals, photos with EXIF left out", () => {
    const scene = makeSyntheticScene({ cameras: 4, points: 30, noisePx: 0.5, outlierShare: 0, outlierImage: false, seed: 2, defaultFocalPrior: 600 });
    const images = scene.images.map((image, i) => (i === 3 ? { ...image, focalPriorSource: "exif35mm" as const, focalPrior: 700 } : image));
    // Images 0 and 1 share group 0; image 2 its own; image 3 (EXIF) group 2.
    const before = Float64Array.from([1000, 320, 240, 0, 0, 1000, 320, 240, 0, 0, 700, 320, 240, 0, 0]);
    const state = createState(images, scene.features, scene.tracks, Uint32Array.from([0, 0, 1, 2]), before.slice());
    for (const i of [0, 1, 2, 3]) registerImage(state, i);
    state.intrinsics[0] = 1200;
    state.intrinsics[5] = 1010;
    state.intrinsics[10] = 2100;
    // Steps 0.2, 0.2, 0.01 over the three EXIF-less photos (the EXIF camera's 200 % not among them).
    expect(guessedFocalStep(state, before)).toBeCloseTo(0.2, 12);
    expect(guessedFocalStep(state, state.intrinsics.slice())).toBe(0);
  });
});

describe("guessedFocalsRunning", () => {
  const scene = makeSyntheticScene({ cameras: 8, points: 30, noisePx: 0.5, outlierShare: 0, outlierImage: false, seed: 2, defaultFocalPrior: 960 });
  const images = scene.images.map((image, i) => ({ ...image, index: i }));
  const all = [0, 1, 2, 3, 4, 5, 6, 7];
  const merged = new Uint32Array(8);
  const intrinsicsAt = (focal: number) => Float64Array.from([focal, 320, 240, 0, 0]);

  it("holds for merged focals at twice the prior that the last adjustment still moved by over 10 %", () => {
    expect(guessedFocalsRunning(images, all, merged, intrinsicsAt(2114), 0.23)).toBe(true);
    expect(guessedFocalsRunning(images, all, merged, intrinsicsAt(400), 0.15)).toBe(true);
  });

  it("does not hold for a focal that is settling, nor one still near its prior", () => {
    // templeSparseRing's: twice its guess, moving by 5 %.
    expect(guessedFocalsRunning(images, all, merged, intrinsicsAt(1930), 0.049)).toBe(false);
    expect(guessedFocalsRunning(images, all, merged, intrinsicsAt(1800), 0.2)).toBe(false);
    expect(guessedFocalsRunning(images, [0, 1, 2, 3, 4], merged, intrinsicsAt(2114), 0.23)).toBe(false);
  });
});
