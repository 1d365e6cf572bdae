/**
 * Guided matching in the matching stage, on rendered views with and without guidance, against
 * the true cameras' epipolar geometry (the band search itself: test/compute/geometry).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampsonError } from "../../../compute/geometry/fundamental.js";
import type { ImageFeatures } from "../../../compute/scene/features.js";
import type { VerifiedPair } from "../../../compute/scene/matches.js";
import type { ImageRef } from "../../../compute/scene/images.js";
import * as features from "../../../compute/stages/features/index.js";
import * as matching from "../../../compute/stages/matching/index.js";
import { encodeJpeg } from "../../support/fixtures.js";
import { renderScene, type RenderedView } from "../../support/render.js";

/** F (x_Bᵀ·F·x_A = 0, pixels) of two rendered views: K⁻ᵀ·[t]×·R·K⁻¹ with the relative pose. */
function trueFundamental(a: RenderedView, b: RenderedView): Float64Array {
  // Relative pose B from A: R = R_B·R_Aᵀ, t = t_B − R·t_A.
  const R = new Float64Array(9);
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) for (let k = 0; k < 3; k++) R[3 * i + j] += b.R[3 * i + k] * a.R[3 * j + k];
  const t = [0, 1, 2].map((i) => b.t[i] - (R[3 * i] * a.t[0] + R[3 * i + 1] * a.t[1] + R[3 * i + 2] * a.t[2]));
  const tx = [0, -t[2], t[1], t[2], 0, -t[0], -t[1], t[0], 0];
  const E = new Float64Array(9);
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) for (let k = 0; k < 3; k++) E[3 * i + j] += tx[3 * i + k] * R[3 * k + j];
  const kInv = (K: Float64Array) => [1 / K[0], 0, -K[2] / K[0], 0, 1 / K[4], -K[5] / K[4], 0, 0, 1];
  const ka = kInv(a.K);
  const kb = kInv(b.K);
  const tmp = new Float64Array(9);
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) for (let k = 0; k < 3; k++) tmp[3 * i + j] += E[3 * i + k] * ka[3 * k + j];
  const F = new Float64Array(9);
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) for (let k = 0; k < 3; k++) F[3 * i + j] += kb[3 * k + i] * tmp[3 * k + j];
  return F;
}

describe("matching/guided: the stage on rendered views", () => {
  let dir = "";
  let images: ImageRef[] = [];
  let detected: ImageFeatures[] = [];
  let views: RenderedView[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "guided-"));
    views = renderScene({ scene: "facade", views: 3, width: 480, height: 360, seed: 9 }).views;
    images = [];
    for (const [index, view] of views.entries()) {
      const file = path.join(dir, `${view.name}.jpg`);
      await writeFile(file, await encodeJpeg(Buffer.from(view.rgb), view.width, view.height));
      images.push({ index, name: `${view.name}.jpg`, path: file, width: view.width, height: view.height, focalPrior: view.K[0], focalPriorSource: "default" });
    }
    detected = (await features.run({ images }, { workers: 2, threshold: 0.0001 })).features;
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("verifies the same pairs as the exhaustive search, with most of its matches, at least as precise on the true epipolar lines", async () => {
    const subset = Math.floor(Math.min(...detected.map((f) => f.count)) / 2) - 1;
    expect(subset).toBeGreaterThan(100);
    const exhaustive = await matching.run({ images, features: detected }, { guidedSubset: 0, workers: 2 });
    const guided = await matching.run({ images, features: detected }, { guidedSubset: subset, guidedMinKeypoints: 0, workers: 2 });
    expect(exhaustive.report.counts.guidedPairs).toBe(0);
    expect(guided.report.counts.guidedPairs).toBe(3);
    const key = (p: { imageA: number; imageB: number }) => `${p.imageA}-${p.imageB}`;
    expect(guided.pairs.map(key).sort()).toEqual(exhaustive.pairs.map(key).sort());
    const onTrueLines = (pair: VerifiedPair): number => {
      const F = trueFundamental(views[pair.imageA], views[pair.imageB]);
      const a = detected[pair.imageA].xy;
      const b = detected[pair.imageB].xy;
      let on = 0;
      for (let k = 0; k < pair.matches.length; k += 2) {
        const i = pair.matches[k];
        const j = pair.matches[k + 1];
        if (Math.sqrt(sampsonError(F, [a[2 * i], a[2 * i + 1]], [b[2 * j], b[2 * j + 1]], 0)) < 1.5) on++;
      }
      return on / (pair.matches.length / 2);
    };
    for (const pair of guided.pairs) {
      const plain = exhaustive.pairs.find((p) => key(p) === key(pair))!;
      // The band's stricter ratio (guidedRatio) trades some matches for precision.
      expect(pair.matches.length).toBeGreaterThanOrEqual(0.6 * plain.matches.length);
      expect(onTrueLines(pair)).toBeGreaterThan(0.98);
      expect(onTrueLines(pair)).toBeGreaterThanOrEqual(onTrueLines(plain) - 0.005);
    }
  });
});
