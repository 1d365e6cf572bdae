import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, describe, expect, it } from "vitest";
import type { ImageRef, PointCloud, RegisteredView } from "../../../compute/scene/index.js";
import { cameraCenter } from "../../../compute/scene/index.js";
import { startLateWorkers } from "../../../compute/pipeline/late-pool.js";
import { run } from "../../../compute/stages/mesh/index.js";
import { lookAtView } from "../export/fixtures.js";
import { colorAt, spherePoints } from "./fixtures.js";

interface Ball { centre: number[]; radius: number; color: (p: number[]) => [number, number, number] }

const BIG: Ball = { centre: [0, 0, 0], radius: 1, color: (p) => colorAt(p[0], p[1], p[2]) };
/** A red ball between camera 0 and the big one: it must not stain what it hides. */
const OCCLUDER: Ball = { centre: [0, 0.1, 2.2], radius: 0.3, color: () => [255, 0, 0] };
const WIDTH = 320, HEIGHT = 240, FOCAL = 300;

/** Ray-casts the two balls into an RGB image (black background), pixel centres at +0.5. */
function render(view: RegisteredView): Uint8Array {
  const rgb = new Uint8Array(3 * WIDTH * HEIGHT);
  const { R } = view.camFromWorld;
  const origin = Array.from(cameraCenter(view.camFromWorld));
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const dc = [(x + 0.5 - WIDTH / 2) / FOCAL, (y + 0.5 - HEIGHT / 2) / FOCAL, 1];
      // World direction Rᵀ·d, normalised.
      const d = [0, 1, 2].map((a) => R[a] * dc[0] + R[3 + a] * dc[1] + R[6 + a] * dc[2]);
      const len = Math.hypot(d[0], d[1], d[2]);
      let best = Infinity;
      let hit: [number, number, number] = [0, 0, 0];
      for (const ball of [BIG, OCCLUDER]) {
        const oc = origin.map((o, a) => o - ball.centre[a]);
        const b = (oc[0] * d[0] + oc[1] * d[1] + oc[2] * d[2]) / len;
        const disc = b * b - (oc[0] ** 2 + oc[1] ** 2 + oc[2] ** 2 - ball.radius ** 2);
        if (disc < 0) continue;
        const s = -b - Math.sqrt(disc);
        if (s > 0 && s < best) {
          best = s;
          hit = ball.color(origin.map((o, a) => o + (s * d[a]) / len));
        }
      }
      rgb.set(hit, 3 * (y * WIDTH + x));
    }
  }
  return rgb;
}

function mergeClouds(a: PointCloud, b: PointCloud): PointCloud {
  const cat = <T extends Float32Array | Uint8Array>(x: T, y: T, make: (n: number) => T): T => {
    const out = make(x.length + y.length);
    out.set(x);
    out.set(y, x.length);
    return out;
  };
  return {
    count: a.count + b.count,
    positions: cat(a.positions, b.positions, (n) => new Float32Array(n)),
    normals: cat(a.normals, b.normals, (n) => new Float32Array(n)),
    colors: cat(a.colors, b.colors, (n) => new Uint8Array(n)).fill(128),
  };
}

describe("mesh/vertex colours from the photos", () => {
  let dir = "";
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("samples the visible photos (z-buffered): big ball true colours, occluder red, nothing stained through it", async () => {
    dir = await mkdtemp(path.join(tmpdir(), "mesh-colors-"));
    const centres: Array<[number, number, number]> = [[0, 0.5, 5], [4.3, 0.5, 2.5], [-4.3, 0.5, 2.5], [0, 4.5, 2], [2.5, -1, -4.2], [-2.5, -1, -4.2]];
    const views: RegisteredView[] = [];
    const images: ImageRef[] = [];
    for (const [i, centre] of centres.entries()) {
      const view = { ...lookAtView(`view${i}.png`, centre, WIDTH, HEIGHT, FOCAL), imageIndex: i };
      const file = path.join(dir, view.name);
      await sharp(Buffer.from(render(view)), { raw: { width: WIDTH, height: HEIGHT, channels: 3 } }).png().toFile(file);
      views.push(view);
      images.push({ index: i, name: view.name, path: file, width: WIDTH, height: HEIGHT, focalPrior: FOCAL, focalPriorSource: "default" });
    }
    const cloud = mergeClouds(spherePoints(12_000, 1, BIG.centre, 0.002, 4), spherePoints(2_000, 0.3, OCCLUDER.centre, 0.001, 5));
    const { mesh, report } = await run({ cloud, views, images }, { faceBudget: 20_000, threads: 2, minHelperPoints: 0 });
    // Only the bottom cap and the occluder's far side are seen by no camera.
    expect(report.counts.verticesColoredFromImages).toBeGreaterThan(0.85 * mesh.vertexCount);

    let bigVertices = 0, bigMatching = 0, stained = 0, occluderRed = 0, occluderVertices = 0;
    for (let v = 0; v < mesh.vertexCount; v++) {
      const p = [0, 1, 2].map((a) => mesh.positions[3 * v + a]);
      const c = [0, 1, 2].map((a) => mesh.colors[3 * v + a]);
      const red = c[0] > 200 && c[1] < 60 && c[2] < 60;
      if (Math.hypot(p[0] - OCCLUDER.centre[0], p[1] - OCCLUDER.centre[1], p[2] - OCCLUDER.centre[2]) < 0.5) {
        // Its cap facing camera 0 (+z, within 60° of it) is in plain view.
        if (p[2] > OCCLUDER.centre[2] + 0.5 * OCCLUDER.radius) {
          occluderVertices++;
          if (red) occluderRed++;
        }
        continue;
      }
      bigVertices++;
      if (red) stained++;
      const expected = BIG.color(p);
      if (c.every((value, a) => Math.abs(value - expected[a]) <= 12)) bigMatching++;
    }
    expect(occluderVertices).toBeGreaterThan(100);
    expect(occluderRed).toBeGreaterThan(0.95 * occluderVertices);
    expect(stained).toBe(0);
    expect(bigMatching).toBeGreaterThan(0.9 * bigVertices);
    // Half of the views were summed on the stage's worker: on one thread, the same mesh to the bit.
    const single = await run({ cloud, views, images }, { faceBudget: 20_000, threads: 1 });
    expect(single.mesh.positions).toEqual(mesh.positions);
    expect(single.mesh.colors).toEqual(mesh.colors);
    // On the pipeline's late threads (shared with the texture stage), the same again.
    // (A helper that fails is made up for on this thread, so the answers it gave are counted.)
    const late = startLateWorkers(2);
    try {
      let answered = 0;
      const counted: typeof late.mesh = { size: 1, run: (task, transfer, onProgress) => late.mesh.run(task, transfer, onProgress).then((r) => (answered++, r)) };
      const shared = await run({ cloud, views, images }, { faceBudget: 20_000, threads: 2, minHelperPoints: 0 }, undefined, counted);
      expect(answered).toBeGreaterThanOrEqual(2);
      expect(shared.mesh.positions).toEqual(mesh.positions);
      expect(shared.mesh.colors).toEqual(mesh.colors);
    } finally {
      await late.close();
    }
  });

  it("skips a photo it cannot read, with a warning, and still colours from the others", async () => {
    const view = { ...lookAtView("gone.png", [0, 0.5, 5], WIDTH, HEIGHT, FOCAL), imageIndex: 0 };
    const missing: ImageRef = { index: 0, name: "gone.png", path: path.join(tmpdir(), "no-such-dir", "gone.png"), width: WIDTH, height: HEIGHT, focalPrior: FOCAL, focalPriorSource: "default" };
    const { mesh, report } = await run({ cloud: spherePoints(4000, 1, BIG.centre, 0.002, 4), views: [view], images: [missing] }, { faceBudget: 5000 });
    expect(mesh.faceCount).toBeGreaterThan(1000);
    expect(report.counts.verticesColoredFromImages).toBe(0);
    expect(report.warnings.join(" ")).toMatch(/could not read gone\.png/);
  });
});
