/** @module A dense-stage fixture: rendered views written to disk, with the TRUE cameras as a SparseModel. */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ImageRef, SparseModel } from "../../../compute/scene/index.js";
import { renderScene, writeViewsAsImages, type RenderedScene, type RenderOptions } from "../../support/render.js";

export interface DenseFixture {
  scene: RenderedScene;
  images: ImageRef[];
  model: SparseModel;
}

export async function denseFixture(options: RenderOptions): Promise<DenseFixture> {
  const scene = renderScene(options);
  const dir = await mkdtemp(path.join(tmpdir(), "dense-"));
  const files = await writeViewsAsImages(scene.views, dir, "png");
  const images: ImageRef[] = scene.views.map((v, index) => ({ index, name: v.name, path: files[index], width: v.width, height: v.height, focalPrior: v.K[0], focalPriorSource: "default" }));
  return { scene, images, model: trueModel(scene) };
}

/** Sparse points from the true depth of a coarse pixel grid of each view, observed wherever they are visible. */
export function trueModel(scene: RenderedScene): SparseModel {
  const xyz: number[] = [];
  const offsets: number[] = [0];
  const obsViews: number[] = [];
  const step = 16;
  scene.views.forEach((view) => {
    for (let row = step / 2; row < view.height; row += step) {
      for (let col = step / 2; col < view.width; col += step) {
        const d = view.depth[row * view.width + col];
        if (!(d > 0)) continue;
        const X = worldPoint(view.R, view.t, view.K, col + 0.5, row + 0.5, d);
        xyz.push(...X);
        scene.views.forEach((other, j) => {
          if (seesPoint(other, X)) obsViews.push(j);
        });
        offsets.push(obsViews.length);
      }
    }
  });
  const count = xyz.length / 3;
  return {
    views: scene.views.map((v, i) => ({
      imageIndex: i,
      name: v.name,
      intrinsics: { width: v.width, height: v.height, focal: v.K[0], cx: v.K[2], cy: v.K[5], k1: 0, k2: 0 },
      camFromWorld: { R: v.R, t: v.t },
    })),
    unregistered: [],
    points: { count, xyz: new Float64Array(xyz), rgb: new Uint8Array(3 * count), error: new Float32Array(count), obsOffsets: new Uint32Array(offsets), obsViews: new Uint32Array(obsViews), obsKeypoints: new Uint32Array(obsViews.length) },
    otherModelSizes: [],
  };
}

function worldPoint(R: Float64Array, t: Float64Array, K: Float64Array, u: number, v: number, d: number): [number, number, number] {
  const xc = (d * (u - K[2])) / K[0] - t[0];
  const yc = (d * (v - K[5])) / K[4] - t[1];
  const zc = d - t[2];
  return [R[0] * xc + R[3] * yc + R[6] * zc, R[1] * xc + R[4] * yc + R[7] * zc, R[2] * xc + R[5] * yc + R[8] * zc];
}

function seesPoint(view: RenderedScene["views"][number], X: number[]): boolean {
  const { R, t, K } = view;
  const z = R[6] * X[0] + R[7] * X[1] + R[8] * X[2] + t[2];
  if (z <= 0) return false;
  const col = Math.floor((K[0] * (R[0] * X[0] + R[1] * X[1] + R[2] * X[2] + t[0])) / z + K[2]);
  const row = Math.floor((K[4] * (R[3] * X[0] + R[4] * X[1] + R[5] * X[2] + t[1])) / z + K[5]);
  if (col < 0 || row < 0 || col >= view.width || row >= view.height) return false;
  const d = view.depth[row * view.width + col];
  return d > 0 && Math.abs(d - z) < 0.01 * z;
}
