/**
 * Placing the ground by the photos (compute/stages/mesh/ground-sweep.ts): three cameras at eye
 * height photograph a textured ground plane y = 0; the sweep starts from a plane 2.7 voxels
 * too high and tilted by 1.3°, as the ground's noisy points give it, and must find the true
 * plane from the patches' agreement alone.
 */
import { describe, expect, it } from "vitest";
import { sweepGround, scoreSweepTask, GROUND_SWEEP_DEFAULTS, type GroundSweepTask } from "../../../compute/stages/mesh/ground-sweep.js";
import type { MeshResult, MeshTask } from "../../../compute/stages/mesh/worker-task.js";
import { WorkerPool } from "../../../compute/util/pool.js";
import type { GreyPhoto } from "../../../compute/stages/mesh/photo-texture.js";
import { eyeLevelPhoto } from "./fixtures.js";

const VOXEL = 0.02;
const EYE = 1.6;
// The photos of eyeLevelPhoto (fixtures.ts): 360 rows, focal 420 px.
const HEIGHT = 360, FOCAL = 420;

/** Grey level of the ground at (x, z): stripes and blobs at several scales, like gravel and shadows. */
function groundTexture(x: number, z: number): number {
  return 128 + 45 * Math.sin(9 * x) * Math.cos(7 * z) + 30 * Math.sin(31 * x + 17 * z) + 20 * Math.cos(53 * x - 41 * z);
}

/** A plain floor: its patches hold only the photos' noise, so every height and tilt scores about the same. */
function plainFloor(): number {
  return 150;
}

/** Sensor noise: ±`amplitude` grey levels, fixed per pixel and photo (a hash, so the test is repeatable). */
function noise(row: number, col: number, seed: number, amplitude: number): number {
  const h = Math.sin(row * 12.9898 + col * 78.233 + seed * 37.719) * 43758.5453;
  return amplitude * 2 * (h - Math.floor(h) - 0.5);
}

/** A camera at (x, EYE, 0) looking along +z, pitched down by `pitchDeg`; its photo of the ground rendered by ray casting. */
function photographed(x: number, texture = groundTexture, noiseLevels = 0, pitchDeg = 12): GreyPhoto {
  return eyeLevelPhoto(x, EYE, pitchDeg, (centre, ray, row, col) => {
    if (ray[1] >= -1e-6) return undefined; // sky
    const s = -EYE / ray[1];
    return texture(centre[0] + s * ray[0], centre[2] + s * ray[2]) + (noiseLevels ? noise(row, col, x, noiseLevels) : 0);
  });
}

/** A start plane tilted by `tiltDeg` about x, `heightVoxels` too high at the patches' middle (x 0, z 5), and patch centres on it over x ∈ [−1, 1], z ∈ [4, 6]. */
function startPlane(tiltDeg: number, heightVoxels: number) {
  const tilt = (tiltDeg * Math.PI) / 180;
  const normal: [number, number, number] = [0, Math.cos(tilt), -Math.sin(tilt)];
  const start = { normal, d: normal[1] * heightVoxels * VOXEL + normal[2] * 5 };
  const anchors: number[] = [];
  for (let x = -1; x <= 1 + 1e-9; x += 0.1) for (let z = 4; z <= 6 + 1e-9; z += 0.1) anchors.push(x, (start.d - normal[2] * z) / normal[1], z);
  return { start, anchors: Float32Array.from(anchors) };
}

describe("mesh/ground-sweep", () => {
  it("finds the ground's height and tilt from a plane 2.7 voxels too high and 1.3° off", async () => {
    const photos = [-0.6, 0, 0.6].map((x) => photographed(x));
    const { start, anchors } = startPlane(1.3, 2.7);
    const seenBy = Array.from({ length: anchors.length / 3 }, () => [0, 1, 2]);
    const result = await sweepGround(start, anchors, seenBy, photos, VOXEL, GROUND_SWEEP_DEFAULTS);
    expect(result.scoreAfter).toBeGreaterThan(result.scoreBefore + 0.2);
    const n = result.plane.normal;
    expect(Math.acos(n[1]) * (180 / Math.PI)).toBeLessThan(0.3);
    // Height of the found plane under the patches' middle (x 0, z 5), in voxels.
    const heightAtMiddle = (result.plane.d - n[2] * 5) / n[1];
    expect(Math.abs(heightAtMiddle) / VOXEL).toBeLessThan(0.3);
  });

  it("climbs the ridge where height and tilt must change together (patches seen on the near part only)", async () => {
    // Patches are seen only nearer than z = 5.25 while the plane turns about the middle of them all
    // (z = 5): a tilt then moves the seen patches' height, and a search along one axis at a time
    // stops on a tilted plane that fits the near strip almost as well. The joint search is not a
    // global one: with the patches seen nearer than 4.45–4.95 some starts still end 1–1.5° off,
    // on another local top of the stepped grid (scratch runs, 2026-11-30).
    const photos = [-0.6, 0, 0.6].map((x) => photographed(x));
    const { start, anchors } = startPlane(2.5, 2);
    const seenBy = Array.from({ length: anchors.length / 3 }, (_, k) => (anchors[3 * k + 2]! < 5.25 ? [0, 1, 2] : []));
    const found = async (options: typeof GROUND_SWEEP_DEFAULTS) => {
      const { plane } = await sweepGround(start, anchors, seenBy, photos, VOXEL, options);
      const n = plane.normal;
      return { tiltDeg: Math.acos(n[1]) * (180 / Math.PI), heightVoxels: Math.abs((plane.d - n[2] * 5) / n[1]) / VOXEL };
    };
    const alongAxes = await found({ ...GROUND_SWEEP_DEFAULTS, maxJointMoves: 0 });
    expect(alongAxes.tiltDeg).toBeGreaterThan(0.9);
    const joint = await found(GROUND_SWEEP_DEFAULTS);
    expect(joint.tiltDeg).toBeLessThan(0.3);
    expect(joint.heightVoxels).toBeLessThan(0.3);
  });

  it("keeps the points' plane when no other height or tilt is clearly better (a flat score)", async () => {
    const photos = [-0.6, 0, 0.6].map((x) => photographed(x, plainFloor, 6));
    const { start, anchors } = startPlane(1.3, 2.7);
    const seenBy = Array.from({ length: anchors.length / 3 }, () => [0, 1, 2]);
    const anyGain = await sweepGround(start, anchors, seenBy, photos, VOXEL, { ...GROUND_SWEEP_DEFAULTS, minGain: 0 });
    // Some plane scores a little better: without the rule the sweep moves to it.
    expect(anyGain.scoreAfter).toBeGreaterThan(anyGain.scoreBefore);
    expect(Math.abs(anyGain.shiftVoxels) + anyGain.turnDeg).toBeGreaterThan(0.1);
    expect(1 - anyGain.scoreAfter).toBeGreaterThan((1 - GROUND_SWEEP_DEFAULTS.minGain) * (1 - anyGain.scoreBefore));
    const result = await sweepGround(start, anchors, seenBy, photos, VOXEL, GROUND_SWEEP_DEFAULTS);
    expect(result.plane).toEqual(start);
    expect(result.shiftVoxels).toBe(0);
    expect(result.turnDeg).toBe(0);
    expect(result.scoreAfter).toBe(result.scoreBefore);
    // The report still says what the search found, and why it was not kept.
    expect(result.refused).toBe("gain");
    expect(result.found.score).toBe(anyGain.scoreAfter);
    expect(result.found.shiftVoxels).toBeCloseTo(anyGain.shiftVoxels, 9);
    expect(anyGain.refused).toBeNull();
  });

  /** Patch centres on y = `heightVoxels` along the bottom edge of a photo pitched 9° on the ground (over z from `from` to `to` beyond it), all seen by views 0–3. */
  function alongBottomEdge(heightVoxels: number, from: number, to: number) {
    const bottomEdge = EYE / Math.tan((9 * Math.PI) / 180 + Math.atan(HEIGHT / 2 / FOCAL));
    const anchors: number[] = [];
    for (let x = -1; x <= 1 + 1e-9; x += 0.1) for (let z = bottomEdge + from; z <= bottomEdge + to + 1e-9; z += 0.05) anchors.push(x, heightVoxels * VOXEL, z);
    const start = { normal: [0, 1, 0] as [number, number, number], d: heightVoxels * VOXEL };
    return { start, anchors: Float32Array.from(anchors), seenBy: Array.from({ length: anchors.length / 3 }, () => [0, 1, 2, 3]) };
  }

  it("keeps the true ground when a lower plane would push poorly matched patches out of a photo", async () => {
    // A fourth photo, pitched less than the others, shows a different ground (a shadow moved, a
    // car gone): its pairs match poorly. A lower plane carries the patches below its bottom edge;
    // it must not score better for losing them (scoring only the pairs a candidate reads moved the
    // plane 2.5 voxels down). Patches that some reachable plane carries out of a photo are scored
    // without that photo on every plane.
    const shadowed = (x: number, z: number) => groundTexture(x + 0.37, z - 0.21);
    const photos = [...[-0.6, 0, 0.6].map((x) => photographed(x)), photographed(0.3, shadowed, 0, 9)];
    const { start, anchors, seenBy } = alongBottomEdge(0, 0.1, 0.3);
    const result = await sweepGround(start, anchors, seenBy, photos, VOXEL, GROUND_SWEEP_DEFAULTS);
    expect(Math.abs(result.shiftVoxels)).toBeLessThan(0.3);
    expect(result.turnDeg).toBeLessThan(0.3);
  });

  it("finds the true ground when it carries patches out of a photo that read them on the start plane", async () => {
    // The start plane is 3 voxels high, and the patches lie just inside the bottom edges of two
    // photos pitched 9°; on the true ground they fall below those edges. Counting the pairs lost
    // as no agreement held the sweep on the start plane.
    const photos = [...[-0.6, 0.6].map((x) => photographed(x)), ...[0, 0.3].map((x) => photographed(x, groundTexture, 0, 9))];
    const { start, anchors, seenBy } = alongBottomEdge(3, -0.2, 1);
    const result = await sweepGround(start, anchors, seenBy, photos, VOXEL, GROUND_SWEEP_DEFAULTS);
    expect(result.scoreAfter).toBeGreaterThan(result.scoreBefore + 0.1);
    expect(Math.abs(result.shiftVoxels + 3)).toBeLessThan(0.3); // down by 3 voxels
    expect(result.turnDeg).toBeLessThan(0.3);
  });

  it("keeps the points' plane when the photos agree best beyond the tilts it searches", async () => {
    const photos = [-0.6, 0, 0.6].map((x) => photographed(x));
    // The points' plane is 4.5° off: the true ground lies beyond the ±3° searched.
    const { start, anchors } = startPlane(4.5, 0);
    const seenBy = Array.from({ length: anchors.length / 3 }, () => [0, 1, 2]);
    const wider = await sweepGround(start, anchors, seenBy, photos, VOXEL, { ...GROUND_SWEEP_DEFAULTS, tiltDeg: 6 });
    expect(Math.acos(wider.plane.normal[1]) * (180 / Math.PI)).toBeLessThan(0.3);
    const result = await sweepGround(start, anchors, seenBy, photos, VOXEL, GROUND_SWEEP_DEFAULTS);
    expect(result.plane).toEqual(start);
    expect(result.turnDeg).toBe(0);
    expect(result.refused).toBe("edge");
    expect(Math.max(...result.found.tiltDeg.map(Math.abs))).toBeCloseTo(GROUND_SWEEP_DEFAULTS.tiltDeg, 9);
    expect(result.found.score).toBeGreaterThan(result.scoreBefore);
  });

  it("shares each batch of planes with the mesh stage's worker and keeps the same plane to the bit", async () => {
    const photos = [-0.6, 0, 0.6].map((x) => photographed(x, groundTexture, 4));
    const { start, anchors } = startPlane(1.3, 2.7);
    // Patches seen by different views, so the flat lists the worker reads are not all alike.
    const seenBy = Array.from({ length: anchors.length / 3 }, (_, k) => (k % 3 === 0 ? [0, 1, 2] : k % 3 === 1 ? [1, 2] : [2, 0]));
    const alone = await sweepGround(start, anchors, seenBy, photos, VOXEL, GROUND_SWEEP_DEFAULTS);
    const pool = new WorkerPool<MeshTask, MeshResult>(new URL("../../../compute/stages/mesh/worker.ts", import.meta.url), { size: 1 });
    let scoredAway = 0;
    let batches = 0;
    try {
      const helper = { size: 1, run: async (task: GroundSweepTask) => { batches++; const scored = (await pool.run(task)) as number; scoredAway += scored; return scored; } };
      const helped = await sweepGround(start, anchors, seenBy, photos, VOXEL, GROUND_SWEEP_DEFAULTS, helper);
      expect(helped).toEqual(alone);
    } finally {
      await pool.close();
    }
    expect(alone.scoreAfter).toBeGreaterThan(alone.scoreBefore + 0.1);
    // Every batch of two or more planes is shared, and the worker takes a part of them.
    expect(batches).toBeGreaterThan(5);
    expect(scoredAway).toBeGreaterThan(20);
  }, 60_000);

  it("scores on this thread what a failing worker leaves", async () => {
    const photos = [-0.6, 0, 0.6].map((x) => photographed(x, groundTexture, 4));
    const { start, anchors } = startPlane(1.3, 2.7);
    const seenBy = Array.from({ length: anchors.length / 3 }, () => [0, 1, 2]);
    const alone = await sweepGround(start, anchors, seenBy, photos, VOXEL, GROUND_SWEEP_DEFAULTS);
    // A stand-in worker on this thread: it takes and scores every plane of a batch.
    let batches = 0;
    const counting = { size: 1, run: async (task: GroundSweepTask) => { batches++; return scoreSweepTask(task); } };
    expect(await sweepGround(start, anchors, seenBy, photos, VOXEL, GROUND_SWEEP_DEFAULTS, counting)).toEqual(alone);
    // The last batch (the fine height steps, which set the plane's last quarter step) is taken
    // whole by a worker that then dies without scoring it.
    let call = 0;
    const failingLast = { size: 1, run: async (task: GroundSweepTask) => {
      if (++call < batches) return scoreSweepTask(task);
      Atomics.store(task.next, 0, task.planes.length / 4);
      throw new Error("worker lost");
    } };
    expect(await sweepGround(start, anchors, seenBy, photos, VOXEL, GROUND_SWEEP_DEFAULTS, failingLast)).toEqual(alone);
    expect(call).toBe(batches);
    // The fine steps moved the plane off the half-voxel grid of the coarse search.
    expect(Math.abs(alone.shiftVoxels * 2 - Math.round(alone.shiftVoxels * 2))).toBeGreaterThan(0.1);
  }, 60_000);
});
