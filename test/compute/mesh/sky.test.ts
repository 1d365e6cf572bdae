/**
 * A clear sky as free space (compute/stages/mesh/sky.ts, sky-carve.ts): which pixels of a photo
 * read as sky, a wall whose plane is no longer carried past its end where the photos show the sky
 * beyond it, and a fattened rim above a wall's top cut where the photos show the sky through it. The photos are ray cast from the test's cameras and written as PNG
 * files, so the masks are read the way the stage reads them.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImageRef, RegisteredView } from "../../../compute/scene/index.js";
import { DEFAULTS } from "../../../compute/stages/mesh/index.js";
import { completePlanes } from "../../../compute/stages/mesh/plane-completion.js";
import { SKY_DEFAULTS, skyMasks, skyOf, unionMasks } from "../../../compute/stages/mesh/sky.js";
import { carveSky, eroded, SKY_CARVE_DEFAULTS } from "../../../compute/stages/mesh/sky-carve.js";
import { cloudDepthImages, depthImageShape, depthPixelOf } from "../../../compute/stages/mesh/see-through.js";
import { markBackdrop, maskPixelOf } from "../../../compute/stages/mesh/backdrop.js";

const SPACING = 0.01;
const VOXEL = 0.02;
/** The wall's end (y), past which the photos show the sky. */
const WALL_END = 0.5;

/** A camera at (-0.5, y, 0.5) looking along +x at the wall x = 1 (focal 500 px on 800 × 800). */
function facingWall(y: number, imageIndex: number): RegisteredView {
  return {
    imageIndex,
    name: `wall-${y}.png`,
    intrinsics: { width: 800, height: 800, focal: 500, cx: 400, cy: 400, k1: 0, k2: 0 },
    camFromWorld: { R: new Float64Array([0, -1, 0, 0, 0, -1, 1, 0, 0]), t: new Float64Array([y, 0.5, 0.5]) },
  };
}

/** RGB bytes: sky blue (lighter toward the horizon) over a brown wall, as each row's pixel shows. */
function skyOverWall(width: number, height: number, isWall: (u: number, v: number) => boolean): Uint8Array {
  const rgb = new Uint8Array(3 * width * height);
  for (let v = 0; v < height; v++) for (let u = 0; u < width; u++) {
    const p = 3 * (v * width + u);
    if (isWall(u, v)) {
      // A brown wall with a fine texture (redder than blue: no sky).
      const grain = (u * 7 + v * 13) % 9;
      rgb.set([150 + grain, 110 + grain, 80 + grain], p);
    } else {
      const lift = Math.round((40 * v) / height);
      rgb.set([90 + lift, 130 + lift, 200 + lift], p);
    }
  }
  return rgb;
}

describe("sky as free space", () => {
  it("reads as sky only clear-sky pixels joined to the top border", () => {
    const width = 40, height = 20;
    // Sky above row 8; below it a wall, with a blue-painted patch inside it (not joined to the
    // top) and, at the top right, a white overcast patch.
    const rgb = skyOverWall(width, height, (u, v) => v >= 8);
    for (let v = 12; v < 16; v++) for (let u = 5; u < 10; u++) rgb.set([90, 130, 200], 3 * (v * width + u));
    for (let v = 0; v < 5; v++) for (let u = 30; u < 40; u++) rgb.set([225, 225, 228], 3 * (v * width + u));
    const mask = skyOf(rgb, width, height, SKY_DEFAULTS)!;
    const at = (u: number, v: number) => mask[v * width + u];
    expect(at(10, 2)).toBe(1);
    expect(at(10, 6)).toBe(1);
    expect(at(20, 12)).toBe(0); // the wall
    expect(at(7, 14)).toBe(0); // blue, but enclosed by the wall
    expect(at(35, 2)).toBe(0); // white: an overcast sky looks like a white wall
    // A photo whose top is a plain white wall has no sky at all.
    const white = new Uint8Array(3 * width * height).fill(228);
    expect(skyOf(white, width, height, SKY_DEFAULTS)).toBeNull();
  });

  describe("a wall's plane at its end", () => {
    let dir = "";
    const views = [facingWall(-0.3, 0), facingWall(0.2, 1)];
    const refs: ImageRef[] = [];

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "sky-test-"));
      for (const [i, view] of views.entries()) {
        const { width, height, focal, cx, cy } = view.intrinsics;
        const cameraY = view.camFromWorld.t[0]!;
        // The ray through (u, v) meets x = 1 at y = cameraY − 1.5 (u − cx) / f, z = 0.5 − 1.5 (v − cy) / f.
        const isWall = (u: number, v: number) => {
          const y = cameraY - (1.5 * (u + 0.5 - cx)) / focal, z = 0.5 - (1.5 * (v + 0.5 - cy)) / focal;
          return y >= -1 && y <= WALL_END && z >= 0 && z <= 1;
        };
        const path = join(dir, `wall-${i}.png`);
        await sharp(Buffer.from(skyOverWall(width, height, isWall)), { raw: { width, height, channels: 3 } }).png().toFile(path);
        refs.push({ index: i, name: view.name, path, width, height, focalPrior: focal, focalPriorSource: "default" });
      }
    });
    afterAll(async () => {
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    /**
     * The wall x = 1 over y in [-1, 0.5], z in [0, 1], without the plain band y in (-0.6, -0.45)
     * (a hole that the photos show as wall), and a fattened fringe: a column of stray depths at
     * y = 0.64, as window-based stereo leaves beside a silhouette against the sky.
     */
    function wallCloud() {
      const positions: number[] = [];
      for (let z = 0; z <= 1 + 1e-9; z += SPACING) {
        for (let y = -1; y <= WALL_END + 1e-9; y += SPACING) if (!(y > -0.6 && y < -0.45)) positions.push(1, y, z);
        positions.push(1, 0.64, z);
      }
      const count = positions.length / 3;
      const normals = new Float32Array(3 * count);
      for (let i = 0; i < count; i++) normals[3 * i] = -1;
      return { positions: new Float32Array(positions), normals, colors: new Uint8Array(3 * count).fill(140), count };
    }
    const added = (points: Float32Array, test: (y: number, z: number) => boolean) => {
      let n = 0;
      for (let i = 0; i < points.length; i += 3) if (Math.abs(points[i]! - 1) < 1e-3 && test(points[i + 1]!, points[i + 2]!)) n++;
      return n;
    };
    const pastEnd = (y: number, z: number) => y > WALL_END + 0.03 && y < 0.62 && z > 0.1 && z < 0.9;
    const inHole = (y: number, z: number) => y > -0.58 && y < -0.47 && z > 0.1 && z < 0.9;

    it("is not carried past the wall's end where the photos show the sky beyond it", async () => {
      const masks = await skyMasks(views, refs, SKY_DEFAULTS);
      expect(masks.every((mask) => mask !== null)).toBe(true);
      const without = await completePlanes(wallCloud(), views, VOXEL, SPACING, DEFAULTS.planeCompletion);
      const withSky = await completePlanes(wallCloud(), views, VOXEL, SPACING, DEFAULTS.planeCompletion, null, unionMasks(null, masks));
      // Without the sky the closing joins the stray column to the wall: a fin of wall in the sky.
      expect(added(without.points.positions, pastEnd)).toBeGreaterThan(100);
      expect(withSky.report.backdropPixels).toBeGreaterThan(0);
      expect(added(withSky.points.positions, pastEnd)).toBe(0);
      // The hole inside the wall, which the photos show as wall, is filled either way.
      expect(added(without.points.positions, inHole)).toBeGreaterThan(100);
      expect(added(withSky.points.positions, inHole)).toBe(added(without.points.positions, inHole));
    });
  });
});

describe("surface the photos show the sky through", () => {
  /** A grid on the plane x = 1 over y in [-0.5, 0.5], z in [0, top], every 0.02, two faces per cell. */
  function wallMesh(top: number) {
    const step = 0.02, cols = Math.round(1 / step) + 1, rows = Math.round(top / step) + 1;
    const positions = new Float32Array(3 * cols * rows);
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) positions.set([1, -0.5 + c * step, r * step], 3 * (r * cols + c));
    const indices: number[] = [];
    for (let r = 0; r + 1 < rows; r++) for (let c = 0; c + 1 < cols; c++) {
      const a = r * cols + c;
      indices.push(a, a + 1, a + cols + 1, a, a + cols + 1, a + cols);
    }
    return { positions, indices: Uint32Array.from(indices) };
  }
  const views = [facingWall(-0.3, 0), facingWall(0.2, 1), facingWall(0.6, 2)];
  /** The sky where each camera's ray passes above the wall's top (z = 1) or beside its ends, at 1024 px. */
  const masks = views.map((view) => {
    const { width, height, scale } = depthImageShape(view, SKY_CARVE_DEFAULTS.imageSize);
    const { focal, cx, cy } = view.intrinsics;
    const cameraY = view.camFromWorld.t[0]!;
    const mask = new Uint8Array(width * height);
    for (let v = 0; v < height; v++) for (let u = 0; u < width; u++) {
      const y = cameraY - (1.5 * ((u + 0.5) * scale - cx)) / focal, z = 0.5 - (1.5 * ((v + 0.5) * scale - cy)) / focal;
      if (z > 1 || (z >= 0 && Math.abs(y) > 0.5)) mask[v * width + u] = 1;
    }
    return mask;
  });
  const facesWhere = (mesh: { positions: Float32Array; indices: Uint32Array }, test: (z: number) => boolean) => {
    let n = 0;
    for (let f = 0; f < mesh.indices.length; f += 3) {
      let z = 0;
      for (let k = 0; k < 3; k++) z += mesh.positions[3 * mesh.indices[f + k]! + 2]! / 3;
      if (test(z)) n++;
    }
    return n;
  };

  it("cuts a fattened rim above a wall's top and keeps the wall to its edge", () => {
    // The wall stands to z = 1; its surface runs on to z = 1.1 (the band stereo leaves against the sky).
    const mesh = wallMesh(1.1);
    const { mesh: carved, report } = carveSky(mesh, views, masks, SKY_CARVE_DEFAULTS);
    expect(facesWhere(mesh, (z) => z > 1.03)).toBeGreaterThan(300);
    expect(facesWhere(carved, (z) => z > 1.03)).toBe(0);
    expect(facesWhere(carved, (z) => z < 0.99)).toBe(facesWhere(mesh, (z) => z < 0.99));
    expect(report.carvedFaces).toBeGreaterThan(0);
    // One photo's sky alone cuts nothing (minViews 2).
    const oneView = carveSky(mesh, views, [masks[0]!, null, null], SKY_CARVE_DEFAULTS);
    expect(oneView.report.carvedFaces).toBe(0);
  });

  it("erodes the sky by whole pixels", () => {
    const width = 7, height = 5;
    const mask = new Uint8Array(width * height).fill(1);
    mask[2 * width + 3] = 0;
    const out = eroded(mask, width, height, 1);
    expect(out[2 * width + 3]).toBe(0);
    expect(out[1 * width + 2]).toBe(0); // a diagonal neighbour of the hole
    expect(out[2 * width + 5]).toBe(1); // two pixels away
    expect(out[0]).toBe(1); // the image border does not erode
  });
});

describe("the sky's marks through the lens", () => {
  it("fall on the rays the photo shows as sky, not on the pixel of the same index", () => {
    // A barrel lens (k1 −0.25) at focal 500 on 800 × 800: the photo shows the ray at y/z = −0.6
    // (above the middle) at row 400 − 500 · 0.6 · (1 − 0.25 · 0.36) = 127, the pinhole frame at row 100.
    const barrel: RegisteredView = { ...facingWall(0, 0), intrinsics: { width: 800, height: 800, focal: 500, cx: 400, cy: 400, k1: -0.25, k2: 0 }, camFromWorld: { R: new Float64Array([1, 0, 0, 0, 1, 0, 0, 0, 1]), t: new Float64Array(3) } };
    const [image] = cloudDepthImages(new Float32Array(0), 0, [barrel]);
    const { width, height, scale } = image!;
    // The photo shows sky above row 127 (in full-size pixels) and nothing else.
    const mask = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) if ((y + 0.5) * scale < 127) mask.fill(1, y * width, (y + 1) * width);
    const lookup = maskPixelOf(image!)!;
    expect(lookup).not.toBeNull();
    markBackdrop([image!], [mask]);
    const marked = (ny: number) => image!.depth[depthPixelOf(image!, 0, ny, 1)!.index] === Infinity;
    // The ray at −0.62 is sky in the photo; the one at −0.58 is not, though its pinhole row (110) is above 127.
    expect(marked(-0.62)).toBe(true);
    expect(marked(-0.58)).toBe(false);
    // A lens without distortion reads the mask at the same index.
    expect(maskPixelOf({ ...image!, view: { ...barrel, intrinsics: { ...barrel.intrinsics, k1: 0 } } })).toBeNull();
  });
});

