import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { ImageRef, RegisteredView, TexturedMesh } from "../../../compute/scene/index.js";
import { run } from "../../../compute/stages/texture/index.js";
import { renderScene, type RenderedScene, type RenderedView } from "../../support/render.js";
import { imagesOf, meshFromDepth, psnrOverCovered, registered, renderTextured } from "./fixture.js";

/**
 * A facade seen by 8 cameras along a line; the mesh is the true surface that camera 3 sees
 * (its rendered depth), so these tests measure the texture stage alone.
 */
const HELD_BACK = 4;
const USED = [0, 1, 2, 3, 5, 6, 7];
let scene: RenderedScene;

beforeAll(() => {
  scene = renderScene({ scene: "facade", views: 8, width: 320, height: 240, seed: 5 });
});

async function texture(views: RenderedView[], options: Parameters<typeof run>[1] = {}): Promise<{ textured: TexturedMesh; counts: Record<string, number> }> {
  const images: ImageRef[] = await imagesOf(views);
  const mesh = meshFromDepth(scene.views[3], 2);
  const out = await run({ mesh, views: USED.map((i) => registered(views[i], i)), images }, options);
  expect(out.textured).not.toBeNull();
  return { textured: out.textured!, counts: out.report.counts };
}

/** The view with its colours scaled by `gain` (an exposure difference). */
function exposed(view: RenderedView, gain: number): RenderedView {
  return { ...view, rgb: view.rgb.map((v) => Math.min(255, Math.round(v * gain))) };
}

/**
 * Mean |colour difference| across the seams between a darkened photo and a normal one: the
 * two copies of a mesh vertex in charts of an even and an odd view, sampled in the pages.
 */
function seamJump(textured: TexturedMesh): number {
  const { mesh, uvs, pages, facePage, faceView } = textured;
  const pageOfVertex = new Int32Array(mesh.vertexCount).fill(-1);
  const viewOfVertex = new Int32Array(mesh.vertexCount).fill(-1);
  for (let f = 0; f < mesh.faceCount; f++) for (let k = 0; k < 3; k++) { pageOfVertex[mesh.indices[3 * f + k]] = facePage[f]; viewOfVertex[mesh.indices[3 * f + k]] = faceView[f]; }
  const byPosition = new Map<string, number[]>();
  for (let v = 0; v < mesh.vertexCount; v++) {
    if (pageOfVertex[v] < 0 || pageOfVertex[v] >= pages.length) continue;
    const key = `${mesh.positions[3 * v]},${mesh.positions[3 * v + 1]},${mesh.positions[3 * v + 2]}`;
    const list = byPosition.get(key);
    if (list) list.push(v); else byPosition.set(key, [v]);
  }
  const colourAt = (v: number): number[] => {
    const page = pages[pageOfVertex[v]];
    const x = Math.floor(uvs[2 * v] * page.width), y = Math.floor(uvs[2 * v + 1] * page.height);
    const sum = [0, 0, 0];
    for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) for (let ch = 0; ch < 3; ch++) sum[ch] += page.rgb[3 * ((y + dy) * page.width + x + dx) + ch] / 9;
    return sum;
  };
  let total = 0, n = 0;
  for (const copies of byPosition.values()) {
    const even = copies.find((v) => USED[viewOfVertex[v]] % 2 === 0), odd = copies.find((v) => USED[viewOfVertex[v]] % 2 === 1);
    if (even === undefined || odd === undefined) continue;
    const a = colourAt(even), b = colourAt(odd);
    total += (Math.abs(a[0] - b[0]) + Math.abs(a[1] - b[1]) + Math.abs(a[2] - b[2])) / 3;
    n++;
  }
  expect(n).toBeGreaterThan(50);
  return total / n;
}

/** Pixels of a saturated red that no surface of the scene has, in the model seen from camera 3. */
function redPixels(textured: TexturedMesh): number {
  const { rgb, covered } = renderTextured(textured, registered(scene.views[3], 3));
  let count = 0;
  for (let i = 0; i < covered.length; i++) if (covered[i] && rgb[3 * i] > 110 && rgb[3 * i + 1] < 50 && rgb[3 * i + 2] < 50) count++;
  return count;
}

describe("texture stage", () => {
  it("renders the held-back view of a facade at ≥ 30 dB over the ≥ 85 % of it the mesh covers", async () => {
    const { textured, counts } = await texture(scene.views);
    const held: RegisteredView = registered(scene.views[HELD_BACK], HELD_BACK);
    const { psnr, coverage } = psnrOverCovered(renderTextured(textured, held), scene.views[HELD_BACK].rgb);
    // Measured 34.9 dB over 91 % when written; the mesh is the true surface, so the loss is
    // the photos' noise, resampling and the levelling's corrections.
    expect(coverage).toBeGreaterThan(0.85);
    expect(psnr).toBeGreaterThan(30);
    expect(counts.charts).toBeLessThan(200);
    expect(counts.untexturedFaces).toBeLessThan(0.02 * counts.faces);
    // Texels keep the photos' resolution: one texel per photo pixel when the pages allow.
    expect(counts.texelScale).toBe(1);
  }, 60_000);

  it("levels the seams between photos of different exposure", async () => {
    // Every other photo a stop darker (×0.6): without levelling each seam between the two
    // groups is a visible step.
    const mixed = scene.views.map((view, i) => (i % 2 === 0 ? exposed(view, 0.6) : view));
    const levelled = seamJump((await texture(mixed)).textured);
    const raw = seamJump((await texture(mixed, { levelling: false })).textured);
    // Measured when written: 30.5 grey levels without levelling, 2.0 with it.
    expect(raw).toBeGreaterThan(15);
    expect(levelled).toBeLessThan(0.25 * raw);
  }, 90_000);

  it("pulls a photo's own exposure toward the colour the photos agree on", async () => {
    // The photo that sees the facade best (3) is a quarter brighter than the others, close enough
    // that the photo-consistency check keeps it, and its sharper contrast wins it more faces. Seams
    // alone level its charts only toward their neighbours at their edges; the views' consensus
    // colour of each face says what the surface looks like in most photos.
    const views = scene.views.map((view, i) => (i === 3 ? exposed(view, 1.25) : view));
    const held: RegisteredView = registered(scene.views[HELD_BACK], HELD_BACK);
    const score = async (targetWeight: number) => {
      const { textured, counts } = await texture(views, { levellingTargetWeight: targetWeight });
      expect(counts.levellingIterations).toBeGreaterThan(0);
      return psnrOverCovered(renderTextured(textured, held), scene.views[HELD_BACK].rgb).psnr;
    };
    const pulled = await score(0.02);
    const seamsOnly = await score(0);
    // Measured when written: 34.44 dB pulled, 24.97 dB with the seams alone.
    expect(pulled, `pulled ${pulled.toFixed(2)} dB, seams only ${seamsOnly.toFixed(2)} dB`).toBeGreaterThan(seamsOnly + 1);
  }, 120_000);

  it("makes the same atlas on worker threads as on the calling thread", async () => {
    const pooled = await texture(scene.views, { workers: 2 });
    const inline = await texture(scene.views, { workers: 1 });
    expect(pooled.textured.pages.length).toBe(inline.textured.pages.length);
    pooled.textured.pages.forEach((page, k) => expect(Buffer.from(page.rgb).equals(Buffer.from(inline.textured.pages[k].rgb)), `page ${k}`).toBe(true));
    expect(Array.from(pooled.textured.uvs)).toEqual(Array.from(inline.textured.uvs));
    expect(Array.from(pooled.textured.faceView)).toEqual(Array.from(inline.textured.faceView));
  }, 90_000);

  it("leaves out a photo it cannot read, with a warning, and textures from the others", async () => {
    const images: ImageRef[] = await imagesOf(scene.views);
    const gone = images.findIndex((image) => image.index === 3);
    images[gone] = { ...images[gone], path: path.join(tmpdir(), "no-such-dir", images[gone].name) };
    const out = await run({ mesh: meshFromDepth(scene.views[3], 2), views: USED.map((i) => registered(scene.views[i], i)), images });
    expect(out.report.warnings.join(" ")).toMatch(new RegExp(`could not read ${scene.views[3].name}`));
    const held: RegisteredView = registered(scene.views[HELD_BACK], HELD_BACK);
    const { psnr, coverage } = psnrOverCovered(renderTextured(out.textured!, held), scene.views[HELD_BACK].rgb);
    expect(coverage).toBeGreaterThan(0.85);
    expect(psnr).toBeGreaterThan(28);
  }, 60_000);

  it("keeps a transient object seen in one photo out of the texture", async () => {
    // A striped red "passer-by" in front of the facade in photo 3, the photo that sees the mesh
    // best (stripes: sharp, so the data term alone would pick this photo there).
    const dirty = { ...scene.views[3], rgb: scene.views[3].rgb.slice() };
    for (let y = 70; y < 170; y++) for (let x = 120; x < 200; x++) dirty.rgb.set((x >> 1) % 2 === 0 ? [230, 20, 20] : [130, 0, 0], 3 * (y * dirty.width + x));
    const views = scene.views.map((v, i) => (i === 3 ? dirty : v));
    const area = 100 * 80;
    // The check can fail: without the photo-consistency test the red reaches the texture.
    const unchecked = redPixels((await texture(views, { consistencyRadius: 1e9 })).textured);
    expect(unchecked).toBeGreaterThan(0.2 * area);
    const checked = redPixels((await texture(views)).textured);
    // Measured when written: 7,676 red pixels unchecked, 13 checked.
    expect(checked).toBeLessThan(0.01 * area);
  }, 90_000);
});
