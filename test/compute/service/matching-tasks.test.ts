/**
 * Matching by pair batches as tasks (compute/service/matching-tasks.ts): a job's selected pairs
 * cut into batches, each batch's payload decoded and matched as a task thread does it, and the
 * results gathered, must give the pairs and tracks of one process bit for bit (pairs are
 * seeded by their images' positions in the whole set, not in the batch).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImageRef } from "../../../compute/scene/images.js";
import type { VerifiedPair } from "../../../compute/scene/matches.js";
import * as features from "../../../compute/stages/features/index.js";
import * as matching from "../../../compute/stages/matching/index.js";
import { decodeMatchingPayload, encodeMatchingPayload, matchingTaskRunner } from "../../../compute/service/matching-tasks.js";
import type { TaskCoordinator } from "../../../compute/service/task-coordinator.js";
import { encodePng, makePlaneScene, PLANE_VIEWS, renderPlane } from "../../support/fixtures.js";

const W = 400;
const H = 300;

/** Five views of a textured plane: ten pairs, all overlapping. */
const VIEWS = PLANE_VIEWS;

let dir: string;
let images: ImageRef[];
let detected: features.Output;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "matching-tasks-"));
  const scene = makePlaneScene(33, 600, 450, 1400);
  images = [];
  for (const [index, imageFromPlane] of VIEWS.entries()) {
    const path = join(dir, `plane${index}.png`);
    await writeFile(path, await encodePng(renderPlane(scene, W, H, imageFromPlane), W, H));
    images.push({ index, name: `plane${index}.png`, path, width: W, height: H, focalPrior: 480, focalPriorSource: "default" });
  }
  detected = await features.run({ images }, { maxFeatures: 1000, workers: 2 });
}, 60_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A coordinator that runs each task's payload as the task thread does, and records what it was given. */
function inProcessCoordinator(seen: Array<{ kind: string; key: string; images: number; pairs: number }>): TaskCoordinator {
  return {
    run: async (kind: string, payloads: Array<{ key: string; payload: string | Uint8Array }>, progress: (fraction: number) => void) => {
      const results: Uint8Array[] = [];
      for (const { key, payload } of payloads) {
        const batch = decodeMatchingPayload(payload as Uint8Array);
        seen.push({ kind, key, images: batch.images.length, pairs: batch.pairs.length / 2 });
        results.push(matching.encodePairResults(await matching.runPairBatch(batch.images, batch.features, batch.pairs, batch.positions, { ...batch.options, workers: 2 })));
        progress(results.length / payloads.length);
      }
      return results;
    },
  } as unknown as TaskCoordinator;
}

const bits = (a?: Float64Array) => (a ? Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString("hex") : "none");
const pairKey = (p: VerifiedPair) => `${p.imageA}-${p.imageB} ${p.model} ${p.homographyRatio} ${bits(p.F)} ${bits(p.H)} ${Buffer.from(p.matches.buffer, p.matches.byteOffset, p.matches.byteLength).toString("hex")}`;

describe("matching by pair batches as tasks", () => {
  it("gives the pairs and tracks of one process, bit for bit, from batches that carry only their own images", async () => {
    const here = await matching.run({ images, features: detected.features }, { workers: 2 });
    const seen: Array<{ kind: string; key: string; images: number; pairs: number }> = [];
    const fractions: number[] = [];
    const spread = await matching.run({ images, features: detected.features }, { workers: 2 }, (f) => fractions.push(f), undefined, matchingTaskRunner(inProcessCoordinator(seen), 3));
    expect(here.pairs.length).toBe(10);
    expect(spread.pairs.map(pairKey)).toEqual(here.pairs.map(pairKey));
    expect(spread.tracks).toEqual(here.tracks);
    // 10 pairs in batches of 3: 4 tasks, each with only the images its pairs name.
    expect(seen.map((s) => `${s.kind} ${s.key} ${s.pairs}`)).toEqual(["matching-batch matching-0000 3", "matching-batch matching-0001 3", "matching-batch matching-0002 3", "matching-batch matching-0003 1"]);
    expect(seen[0].images).toBe(4); // (0,1) (0,2) (0,3)
    expect(seen[3].images).toBe(2);
    expect(spread.report.counts.remoteBatches).toBe(4);
    expect(here.report.counts.remoteBatches).toBe(0);
    expect(fractions.at(-1)).toBe(1);
  }, 120_000);

  it("matches a job of at most one batch in its own process", async () => {
    const seen: Array<{ kind: string; key: string; images: number; pairs: number }> = [];
    const { report } = await matching.run({ images, features: detected.features }, { workers: 2 }, undefined, undefined, matchingTaskRunner(inProcessCoordinator(seen), 10));
    expect(seen).toEqual([]);
    expect(report.counts.remoteBatches).toBe(0);
  }, 60_000);

  it("refuses a payload whose pair names an image outside its batch, or that lacks an image's features", () => {
    const two = images.slice(0, 2);
    const options = { ...matching.DEFAULTS };
    const good = encodeMatchingPayload(two, detected.features.slice(0, 2), Uint32Array.of(0, 1), Uint32Array.of(0, 1), options);
    expect(decodeMatchingPayload(good).pairs).toEqual(Uint32Array.of(0, 1));
    expect(() => decodeMatchingPayload(encodeMatchingPayload(two, detected.features.slice(0, 2), Uint32Array.of(0, 1), Uint32Array.of(0, 2), options))).toThrow(/outside the batch/);
    expect(() => decodeMatchingPayload(encodeMatchingPayload(two, detected.features.slice(0, 1), Uint32Array.of(0, 1), Uint32Array.of(0, 1), options))).toThrow(/no features for plane1/);
    expect(() => decodeMatchingPayload(good.subarray(0, good.byteLength - 100))).toThrow(/truncated/);
    expect(() => decodeMatchingPayload(new TextEncoder().encode("{}"))).toThrow(/not a matching payload/);
  });

  it("round-trips pair results, refused pairs included", () => {
    const results: matching.PairResult[] = [
      { a: 3, b: 7, putative: 12, guided: false, search: "exhaustive", reason: "12 putative matches < 15" },
      { a: 1, b: 2, putative: 40, guided: true, pair: { imageA: 1, imageB: 2, matches: Uint32Array.of(1, 2, 3, 4, 5, 6), model: "fundamental", F: Float64Array.from({ length: 9 }, (_, i) => Math.PI * i), H: Float64Array.from({ length: 9 }, (_, i) => -i / 3), homographyRatio: 0.25 } },
      { a: 0, b: 5, putative: 30, guided: false, search: "approximate", pair: { imageA: 0, imageB: 5, matches: Uint32Array.of(9, 8), model: "homography", homographyRatio: 0.9 } },
    ];
    expect(matching.decodePairResults(matching.encodePairResults(results))).toEqual(results);
    expect(() => matching.decodePairResults(matching.encodePairResults(results).subarray(0, 60))).toThrow(/truncated|not a pair/);
  });
});
