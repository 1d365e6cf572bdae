import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rm } from "node:fs/promises";
import path from "node:path";
import { clusterViews } from "../../../compute/stages/dense/clusters.js";
import { checkClusterJob, decodeClusterResult, encodeClusterResult, run, solveCluster, type ClusterJob, type ClusterRunner, type DenseOutput } from "../../../compute/stages/dense/index.js";
import type { ViewResult, ViewTask } from "../../../compute/stages/dense/worker.js";
import { WorkerPool } from "../../../compute/util/pool.js";
import { visiblePoints } from "../../support/render.js";
import { denseFixture, type DenseFixture } from "./fixture.js";
import { median, nearestDistances } from "./metrics.js";

describe("dense clusters", () => {
  // A flight grid of 20 × 10 cameras 1 apart; each view's sources are its 4-neighbours.
  const cols = 20;
  const rows = 10;
  const centres = new Float64Array(3 * cols * rows);
  const sources: number[][] = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      centres.set([c, r, 5], 3 * (r * cols + c));
      sources.push([[c - 1, r], [c + 1, r], [c, r - 1], [c, r + 1]].filter(([x, y]) => x >= 0 && y >= 0 && x < cols && y < rows).map(([x, y]) => y * cols + x));
    }
  }

  it("puts every view in exactly one cluster of at most maxViews, as compact blocks", () => {
    const clusters = clusterViews(centres, sources, 40);
    const seen = new Uint8Array(cols * rows);
    for (const { core, extras } of clusters) {
      expect(core.length).toBeLessThanOrEqual(40);
      expect(core.length).toBeGreaterThanOrEqual(20); // halves, never slivers
      for (const v of core) seen[v]++;
      // Extras are exactly the core's sources from outside it.
      const expected = new Set(core.flatMap((v) => sources[v]).filter((s) => !core.includes(s)));
      expect(new Set(extras)).toEqual(expected);
      // Blocks, not strips: a 40-view cluster of a grid spans at most 10 × 5 cells here.
      const xs = core.map((v) => v % cols);
      const ys = core.map((v) => Math.floor(v / cols));
      expect((Math.max(...xs) - Math.min(...xs) + 1) * (Math.max(...ys) - Math.min(...ys) + 1)).toBeLessThanOrEqual(60);
    }
    expect([...seen].every((k) => k === 1)).toBe(true);
    // The overlap costs a fraction of the views, not a multiple.
    const extras = clusters.reduce((s, c) => s + c.extras.length, 0);
    expect(extras / (cols * rows)).toBeLessThan(0.5);
  });

  it("keeps a set of at most maxViews views as one cluster without extras", () => {
    expect(clusterViews(centres, sources, 200)).toEqual([{ core: Array.from({ length: 200 }, (_, i) => i), extras: [] }]);
  });

  describe("on a rendered facade split into clusters of 2 views", () => {
    let fixture: DenseFixture;
    let whole: DenseOutput;
    let split: DenseOutput;
    // Two PatchMatch iterations: the tests compare the split run with the whole one, and three
    // dense runs at four iterations made the file 84 s alone, 47 s at two (completeness 0.863/0.856).
    const settings = { workers: 2, iterations: 2, windowStep: 1, minFusedViews: 2 };

    beforeAll(async () => {
      fixture = await denseFixture({ scene: "facade", views: 6, width: 200, height: 150, seed: 4 });
      whole = await run({ images: fixture.images, model: fixture.model }, settings);
      split = await run({ images: fixture.images, model: fixture.model }, { ...settings, maxClusterViews: 2 });
    });

    afterAll(async () => {
      if (fixture) await rm(path.dirname(fixture.images[0].path), { recursive: true, force: true });
    });

    it("fuses the same surface as one cluster does, without doubling it at the seams", () => {
      expect(whole.report.counts.clusters).toBe(1);
      expect(split.report.counts.clusters).toBeGreaterThanOrEqual(3);
      expect(split.report.counts.clusterExtraSolves).toBeGreaterThan(0);
      expect(split.report.counts.depthMaps).toBe(whole.report.counts.depthMaps);
      const radius = fixture.scene.sceneRadius;
      const truth = fixture.scene.samplePoints(200_000);
      const visible = visiblePoints(truth.subarray(0, 3 * 30_000), fixture.scene.views, 3);
      const figures = (out: DenseOutput) => {
        const accuracy = median(nearestDistances(out.cloud.positions, truth, 0.1 * radius));
        const toCloud = nearestDistances(visible, out.cloud.positions, 0.02 * radius);
        return { accuracy, completeness: toCloud.filter((d) => d <= 0.02 * radius).length / toCloud.length, points: out.cloud.count };
      };
      const a = figures(whole);
      const b = figures(split);
      console.log(`dense clusters: one ${JSON.stringify(a)}, split ${JSON.stringify(b)}`);
      expect(b.accuracy).toBeLessThan(0.01 * radius);
      expect(b.completeness).toBeGreaterThan(0.95 * a.completeness);
      // The overlap is emitted once (without yieldTo the split cloud had 2.3 × the points).
      expect(b.points).toBeLessThan(1.2 * a.points);
      expect(b.points).toBeGreaterThan(0.8 * a.points);
    });

    it("gives the same cloud, bit for bit, when each cluster travels as bytes to a solve of its own (a task on another container)", async () => {
      const solvedRemotely: number[] = [];
      const fractions: number[][] = [];
      // What a task does: read its job back from JSON, solve it with its own worker pool, encode the result.
      const jobs: ClusterJob[] = [];
      const plan = (cluster: number) => jobs[cluster];
      const runner: ClusterRunner = async (densePlan, images, progress) => {
        jobs.push(...densePlan.jobs);
        const byIndex = new Map(images.map((im) => [im.index, im]));
        const results = [];
        for (const job of densePlan.jobs) {
          const received = checkClusterJob(JSON.parse(JSON.stringify(job)));
          const pool = new WorkerPool<ViewTask, ViewResult>(new URL("../../../compute/stages/dense/worker.ts", import.meta.url), { size: 2 });
          try {
            const seen: number[] = [];
            const result = await solveCluster(received, (i) => byIndex.get(i)!, pool, { onProgress: (f) => seen.push(f) });
            fractions.push(seen);
            const decoded = decodeClusterResult(encodeClusterResult(result));
            expect(decoded.phaseMs).toEqual(result.phaseMs);
            expect(result.phaseMs.patchMatch).toBeGreaterThan(0);
            results.push(decoded);
          } finally {
            await pool.close();
          }
          solvedRemotely.push(job.cluster);
          progress(solvedRemotely.length / densePlan.jobs.length);
        }
        return results.reverse(); // any order
      };
      const remote = await run({ images: fixture.images, model: fixture.model }, { ...settings, maxClusterViews: 2 }, undefined, runner);
      expect(solvedRemotely.length).toBe(split.report.counts.clusters);
      // Each cluster's fraction rises through its loads and its views' sweeps, not only once per
      // solved view, and ends at 1 when it is fused.
      for (const [c, seen] of fractions.entries()) {
        expect(seen.every((f, i) => f > 0 && f <= 1 && (i === 0 || f > seen[i - 1]))).toBe(true);
        expect(seen.at(-1)).toBe(1);
        expect(seen.length).toBeGreaterThan(2 * plan(c).views.length);
      }
      expect(remote.report.counts.remoteClusters).toBe(split.report.counts.clusters);
      expect(remote.cloud.count).toBe(split.cloud.count);
      expect(Buffer.from(remote.cloud.positions.buffer).equals(Buffer.from(split.cloud.positions.buffer))).toBe(true);
      expect(Buffer.from(remote.cloud.normals.buffer).equals(Buffer.from(split.cloud.normals.buffer))).toBe(true);
      expect(Buffer.from(remote.cloud.colors).equals(Buffer.from(split.cloud.colors))).toBe(true);
      // The views' own coarse depths (the mesh stage's hull completion reads them) come back too, the same.
      expect(split.viewDepths?.map((d) => d.viewIndex)).toEqual(fixture.model.views.map((_, i) => i));
      expect(remote.viewDepths?.length).toBe(split.viewDepths!.length);
      for (const [i, d] of remote.viewDepths!.entries()) {
        expect(d.depth.some((z) => z > 0)).toBe(true);
        expect(Buffer.from(d.depth.buffer).equals(Buffer.from(split.viewDepths![i].depth.buffer))).toBe(true);
      }
      expect(remote.report.perImage).toEqual(split.report.perImage!.map((p) => ({ ...p, patchMatchMs: expect.any(Number) })));
    }, 600_000); // re-solves every cluster: ~1 min alone, over 2 beside a full CI run
  });
});
