/**
 * The views bench's photo at render size (bench/photo-resize.ts): an enlarged photo keeps its
 * content where the size ratio puts it, as a render of the same camera at that size does.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enlarge, photoAtSize } from "../../bench/photo-resize.js";

const WIDTH = 640, HEIGHT = 40;
/** A Gaussian blob at x0, y0 (continuous coordinates, pixel centres at +0.5). */
const X0 = 236.8, Y0 = 17.3, SIGMA = 4;

function blobImage(): Uint8Array {
  const rgb = new Uint8Array(3 * WIDTH * HEIGHT);
  for (let y = 0; y < HEIGHT; y++) for (let x = 0; x < WIDTH; x++) {
    const value = Math.round(250 * Math.exp(-((x + 0.5 - X0) ** 2 + (y + 0.5 - Y0) ** 2) / (2 * SIGMA * SIGMA)));
    rgb.fill(value, 3 * (y * WIDTH + x), 3 * (y * WIDTH + x) + 3);
  }
  return rgb;
}

function centroid(rgb: Uint8Array, width: number, height: number): [number, number] {
  let sum = 0, sx = 0, sy = 0;
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) {
    const v = rgb[3 * (y * width + x)];
    sum += v; sx += v * (x + 0.5); sy += v * (y + 0.5);
  }
  return [sx / sum, sy / sum];
}

describe("bench/photo-resize", () => {
  let dir = "";
  let file = "";
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "photo-resize-"));
    file = path.join(dir, "blob.png");
    await sharp(Buffer.from(blobImage()), { raw: { width: WIDTH, height: HEIGHT, channels: 3 } }).png().toFile(file);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("enlarges 640 to 768 px with the blob at 1.2× its position, where libvips puts it half a pixel off", async () => {
    const outWidth = 768, outHeight = Math.round((HEIGHT * outWidth) / WIDTH);
    const ours = centroid(await photoAtSize(file, outWidth, outHeight), outWidth, outHeight);
    expect(Math.abs(ours[0] - 1.2 * X0)).toBeLessThan(0.03);
    expect(Math.abs(ours[1] - 1.2 * Y0)).toBeLessThan(0.03);
    // What the bench did before: sharp's enlargement, half a pixel right and below.
    const vips = new Uint8Array(await sharp(file).removeAlpha().resize(outWidth, outHeight, { fit: "fill" }).raw().toBuffer());
    const theirs = centroid(vips, outWidth, outHeight);
    expect(theirs[0] - 1.2 * X0).toBeGreaterThan(0.4);
    expect(theirs[1] - 1.2 * Y0).toBeGreaterThan(0.4);
  });

  it("reduces with the blob at the ratio's position and copies 1:1 exactly", async () => {
    const outWidth = 512, outHeight = Math.round((HEIGHT * outWidth) / WIDTH);
    const reduced = centroid(await photoAtSize(file, outWidth, outHeight), outWidth, outHeight);
    expect(Math.abs(reduced[0] - 0.8 * X0)).toBeLessThan(0.05);
    expect(Math.abs(reduced[1] - (outHeight / HEIGHT) * Y0)).toBeLessThan(0.05);
    const image = blobImage();
    expect(enlarge(image, WIDTH, HEIGHT, 3, WIDTH, HEIGHT)).toEqual(image);
  });
});
