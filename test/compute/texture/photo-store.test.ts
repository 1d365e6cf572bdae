/**
 * Photos decoded ahead for the texture stage (compute/stages/texture/photo-store.ts): the same
 * pixels as a task's own decode, in shared memory, within the byte budget, and a texture that is
 * the same to the byte with or without them.
 */
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { ImageRef, RegisteredView } from "../../../compute/scene/index.js";
import { decodePhotosAhead, run } from "../../../compute/stages/texture/index.js";
import { loadPhoto } from "../../../compute/stages/texture/photo.js";
import { renderScene, type RenderedScene } from "../../support/render.js";
import { imagesOf, meshFromDepth, registered } from "./fixture.js";

let scene: RenderedScene;
let images: ImageRef[];
let views: RegisteredView[];

beforeAll(async () => {
  scene = renderScene({ scene: "facade", views: 4, width: 240, height: 180, seed: 3 });
  images = await imagesOf(scene.views);
  views = scene.views.map((view, i) => registered(view, i));
});

describe("texture/photo-store", () => {
  it("holds each photo at the scan's size with the pixels a task would decode, in shared memory", async () => {
    const store = decodePhotosAhead(views, images, { photoMaxSide: 120 });
    try {
      expect(store.photos).toBe(4);
      for (const [i, view] of views.entries()) {
        const held = await store.get(images[i].path, 120, 90);
        expect(held).not.toBeNull();
        expect(held!.rgb.buffer).toBeInstanceOf(SharedArrayBuffer);
        const own = await loadPhoto(images[i].path, view.intrinsics, 0.5);
        expect({ width: held!.width, height: held!.height, scale: held!.scale }).toEqual({ width: own.width, height: own.height, scale: own.scale });
        expect(Buffer.from(held!.rgb).equals(Buffer.from(own.rgb))).toBe(true);
      }
      // Another size is decoded by the task that needs it.
      expect(await store.get(images[0].path, 240, 180)).toBeNull();
    } finally {
      store.close();
    }
  });

  it("stops at its byte budget, and gives nothing for a photo it cannot read", async () => {
    const photoBytes = 3 * 240 * 180;
    const dir = await mkdtemp(path.join(tmpdir(), "photo-store-"));
    const broken = path.join(dir, "broken.jpg");
    await writeFile(broken, Buffer.from("not a jpeg at all"));
    const withBroken = [{ ...images[0], path: broken }, ...images.slice(1)];
    const store = decodePhotosAhead(views, withBroken, { decodeAheadBytes: 2.5 * photoBytes });
    try {
      expect(store.photos).toBe(2);
      expect(store.bytes).toBe(2 * photoBytes);
      expect(await store.get(broken, 240, 180)).toBeNull();
      expect(await store.get(images[1].path, 240, 180)).not.toBeNull();
      expect(await store.get(images[2].path, 240, 180)).toBeNull();
    } finally {
      store.close();
    }
  });

  it("gives the same texture to the byte as photos decoded by each task", async () => {
    const mesh = meshFromDepth(scene.views[1], 3);
    const textured = (decodeAheadBytes: number) => run({ mesh, views, images }, { decodeAheadBytes, workers: 2 });
    const ahead = await textured(64 * 2 ** 20);
    const each = await textured(0);
    // Every scan, and the samples and paint of the photos that texture a chart.
    expect(ahead.report.counts.photoReadsDecodedAhead).toBeGreaterThan(views.length);
    expect(each.report.counts.photoReadsDecodedAhead).toBe(0);
    expect(ahead.textured!.pages.length).toBe(each.textured!.pages.length);
    ahead.textured!.pages.forEach((page, p) => expect(Buffer.from(page.rgb).equals(Buffer.from(each.textured!.pages[p].rgb))).toBe(true));
    expect(Buffer.from(ahead.textured!.uvs.buffer).equals(Buffer.from(each.textured!.uvs.buffer))).toBe(true);
  }, 60_000);
});
