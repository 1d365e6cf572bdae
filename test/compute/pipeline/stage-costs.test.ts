import { describe, expect, it } from "vitest";
import { QUALITY_PRESETS } from "../../../compute/pipeline/presets.js";
import { FIXED_FULL_WEIGHTS, FIXED_SPARSE_WEIGHTS, ProgressTracker, completionAt, linearRemainingMs } from "../../../compute/pipeline/progress.js";
import { costOptions, expectedPairs, jobWeights, stageSeconds } from "../../../compute/pipeline/stage-costs.js";
import * as dense from "../../../compute/stages/dense/index.js";
import * as features from "../../../compute/stages/features/index.js";
import * as matching from "../../../compute/stages/matching/index.js";

const defaults = { features: features.DEFAULTS, matching: matching.DEFAULTS, dense: dense.DEFAULTS };
const standard = costOptions(QUALITY_PRESETS.standard, defaults);
const photos = (n: number, width: number, height: number) => Array.from({ length: n }, () => ({ width, height }));
const share = (weights: Record<string, number | undefined>, stage: string) => (weights[stage] ?? 0) / Object.values(weights).reduce<number>((s, w) => s + (w ?? 0), 0);

describe("pipeline/stage-costs", () => {
  it("takes the preset's options over the stages' defaults", () => {
    expect(standard.depthSide).toBe(QUALITY_PRESETS.standard.dense.maxImageSide);
    expect(standard.featureSide).toBe(QUALITY_PRESETS.standard.features.maxImageSide);
    expect(costOptions(QUALITY_PRESETS.high, defaults).sourceViews).toBe(6);
    expect(standard.exhaustiveMaxImages).toBe(matching.DEFAULTS.exhaustiveMaxImages);
  });

  it("counts every pair of a small set and a bounded number per image of a large one", () => {
    expect(expectedPairs(photos(11, 1, 1), standard)).toBe(55);
    const large = expectedPairs(photos(800, 1, 1), standard);
    expect(large / 800).toBeGreaterThan(5);
    expect(large / 800).toBeLessThan(standard.retrievalNeighbours);
    const video = Array.from({ length: 400 }, (_, frame) => ({ width: 1920, height: 1080, video: { file: "walk.mp4", frame } }));
    expect(expectedPairs(video, standard) / 400).toBeLessThan(standard.sequentialWindow + standard.loopClosureNeighbours);
  });

  it("grows dense and features with the pixels they work on, capped at each stage's side", () => {
    const small = stageSeconds(photos(50, 640, 480), standard, false);
    const twice = stageSeconds(photos(100, 640, 480), standard, false);
    expect(twice.dense! / small.dense!).toBeCloseTo(2, 6);
    expect(twice.features! / small.features!).toBeCloseTo(2, 6);
    // Above the depth side (800 px) a larger photo costs dense nothing more; features still see up to 2000 px.
    const big = stageSeconds(photos(50, 3072, 2048), standard, false);
    const bigger = stageSeconds(photos(50, 6144, 4096), standard, false);
    expect(bigger.dense).toBeCloseTo(big.dense!, 6);
    expect(bigger.features!).toBeGreaterThan(big.features! * 0.99);
    // high: more pixels and more sources.
    const high = stageSeconds(photos(50, 3072, 2048), costOptions(QUALITY_PRESETS.high, defaults), false);
    expect(high.dense! / big.dense!).toBeGreaterThan(2);
  });

  it("counts the working level's final propagation in dense, as a fifth more PatchMatch work", () => {
    expect(standard.finalPropagation).toBe(true);
    const images = photos(20, 3072, 2048);
    const withPass = stageSeconds(images, standard, false).dense!;
    const without = stageSeconds(images, { ...standard, finalPropagation: false }, false).dense!;
    const perView = 20 * 1.5; // the per-view part (COSTS.densePerImage) does not grow with it
    // standard: 3 iterations at a sixteenth of the pixels, 1 at a quarter, 1 at full size.
    expect([standard.iterations, standard.pyramidLevels, standard.refineIterations]).toEqual([3, 2, 1]);
    expect((withPass - perView) / (without - perView)).toBeCloseTo(1 + 0.3 / (3 / 16 + 1 / 4 + 1), 6);
    // Without a coarser level there is no final propagation.
    const single = { ...standard, pyramidLevels: 0 };
    expect(stageSeconds(images, single, false).dense).toBeCloseTo(stageSeconds(images, { ...single, finalPropagation: false }, false).dense!, 9);
  });

  it("puts most of a large survey's weight in dense, and none in a sparse-only job", () => {
    const survey = jobWeights(FIXED_FULL_WEIGHTS, photos(800, 640, 480), standard, false, 6);
    expect(Object.keys(survey)).toEqual(Object.keys(FIXED_FULL_WEIGHTS));
    expect(share(survey, "dense")).toBeGreaterThan(0.5);
    expect(share(survey, "ingest")).toBeLessThan(0.01);
    const sparse = jobWeights(FIXED_SPARSE_WEIGHTS, photos(11, 3072, 2048), standard, true, 2);
    expect(Object.keys(sparse)).toEqual(Object.keys(FIXED_SPARSE_WEIGHTS));
    expect(sparse.dense).toBeUndefined();
    expect(share(sparse, "features") + share(sparse, "matching")).toBeGreaterThan(share(sparse, "sfm"));
  });
});

describe("pipeline/progress re-weighted", () => {
  it("maps the next stages through the new weights and never goes back", () => {
    const values: number[] = [];
    const tracker = new ProgressTracker(FIXED_SPARSE_WEIGHTS, (e) => values.push(e.progress));
    tracker.update("ingest", 1); // 10 of 100
    tracker.reweight({ ingest: 0.5, features: 1, matching: 1, sfm: 6.5, export: 1 });
    tracker.update("features", 0.25); // 7.5 % by the new weights: held at 10
    tracker.update("features", 1); // 15 %
    tracker.update("sfm", 0.5); // 57.5 %
    expect(values).toEqual([10, 10, 15, 57]);
    expect(() => tracker.reweight({ ingest: 1, features: 1 })).toThrow(/same stages/);
  });

  it("tells the time left at the pace measured so far, and the current stage by its own pace once it is far enough along", () => {
    let clock = 0;
    const left: Array<number | undefined> = [];
    const tracker = new ProgressTracker({ ingest: 1, features: 1, matching: 2, sfm: 1, export: 1 }, (e) => left.push(e.remainingMs), () => clock);
    tracker.update("ingest", 0);
    clock = 1000;
    tracker.update("ingest", 1); // the first stage: nothing measured before it
    tracker.update("features", 0); // 1,000 ms per unit of weight so far: 5 units left
    clock = 2000;
    tracker.update("features", 0.1); // 2,000 ms for 1.1 units; too early to trust features' own pace
    clock = 3000;
    tracker.update("features", 0.5); // half done in 2,000 ms: 2,000 more; then 4 units at 3,000 / 1.5 ms
    clock = 5000;
    tracker.update("matching", 0); // 5,000 ms for 2 units: 2,500 ms per unit, 4 units left
    expect(left[0]).toBeUndefined();
    expect(left[1]).toBeUndefined();
    expect(left[2]).toBeCloseTo(5000, 6);
    expect(left[3]).toBeCloseTo((2000 / 1.1) * 4.9, 6);
    expect(left[4]).toBeCloseTo(2000 + 4 * 2000, 6);
    expect(left[5]).toBeCloseTo(10_000, 6);
  });

  it("tells no time left in the first stage, nor until a few percent of the job's weight is done", () => {
    let clock = 0;
    const first: Array<number | undefined> = [];
    const ingesting = new ProgressTracker({ ingest: 5, features: 10, matching: 35, sfm: 50 }, (e) => first.push(e.remainingMs), () => clock);
    clock = 5; // the first report comes a moment after the tracker is made
    ingesting.update("ingest", 0);
    clock = 400;
    ingesting.update("ingest", 1); // 5 % done, but of weights set before the job's shape is known
    expect(first).toEqual([undefined, undefined]);

    const left: Array<number | undefined> = [];
    const tracker = new ProgressTracker({ ingest: 0.5, features: 10, matching: 39.5, sfm: 50 }, (e) => left.push(e.remainingMs), () => clock);
    tracker.update("ingest", 1);
    clock = 500;
    tracker.update("features", 0.2); // 2.5 of 100 done: a sliver
    tracker.update("features", 0.3); // 3.5: told
    expect(left[1]).toBeUndefined();
    expect(left[2]).toBeGreaterThan(0);
  });

  it("counts the time left down while a stage's fraction stands still, and takes the pace afresh once that runs out", () => {
    let clock = 0;
    const left: Array<number | undefined> = [];
    const tracker = new ProgressTracker({ ingest: 1, features: 1, dense: 8 }, (e) => left.push(e.remainingMs), () => clock);
    tracker.update("ingest", 0);
    clock = 1000;
    tracker.update("features", 0);
    clock = 2000;
    tracker.update("dense", 0); // 1,000 ms a unit: 8,000 ms left
    clock = 5000;
    tracker.update("dense", 0); // the same fraction, polled again: 5,000 left, not a slower pace
    clock = 12_000;
    tracker.update("dense", 0); // overdue: the pace afresh, 12,000 ms for 2 units, 8 units left
    clock = 13_000;
    tracker.update("dense", 0.5); // a new step: its own pace, 11,000 ms for half
    expect(left.slice(2)).toEqual([8000, 5000, 48_000, 11_000]);
  });

  it("extrapolates the time left from the elapsed time, once there is enough to go on", () => {
    expect(linearRemainingMs(1000, 4)).toBeUndefined();
    expect(linearRemainingMs(1000, 25)).toBe(3000);
    expect(linearRemainingMs(1000, 100)).toBe(0);
  });

  it("counts the pipeline's time left down between reports, and extrapolates once it has run out", () => {
    const told = { at: 10_000, leftMs: 5000 };
    expect(completionAt(12_000, told, 12_000, 50)).toBe(15_000);
    // Overdue: the linear extrapolation of 20 s elapsed at 80 % (5 s more).
    expect(completionAt(20_000, told, 20_000, 80)).toBe(25_000);
    expect(completionAt(1000, null, 1000, 2)).toBeUndefined();
  });
});
