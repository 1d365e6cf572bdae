import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../../compute/stages/ingest/index.js";
import { PipelineError } from "../../../compute/scene/report.js";
import { djiXmp, encodeHeic, encodeJpeg, encodePng, quadrantImage, withXmp } from "../../support/fixtures.js";

const RED: [number, number, number] = [220, 20, 20];
const GREEN: [number, number, number] = [20, 200, 20];
const BLUE: [number, number, number] = [20, 20, 220];
const WHITE: [number, number, number] = [240, 240, 240];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ingest-test-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function put(name: string, bytes: Uint8Array): Promise<{ path: string; name: string }> {
  const path = join(dir, name);
  await writeFile(path, bytes);
  return { path, name };
}

async function pixel(path: string, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(path).raw().toBuffer({ resolveWithObject: true });
  const o = (y * info.width + x) * info.channels;
  return [data[o], data[o + 1], data[o + 2]];
}

function near(actual: number[], expected: number[], tolerance = 20): boolean {
  return actual.every((v, i) => Math.abs(v - expected[i]) <= tolerance);
}

describe("stages/ingest stills", () => {
  it("applies EXIF orientation 6 (90° clockwise): size swapped, top-left corner moves to top-right", async () => {
    const raw = quadrantImage(120, 80, [RED, GREEN, BLUE, WHITE]);
    const rotated = await put("rotated.jpg", await encodeJpeg(raw, 120, 80, { orientation: 6 }));
    const plain = await put("plain.png", await encodePng(raw, 120, 80));
    const { images, skipped } = await run({ files: [rotated, plain], workDir: join(dir, "out-orient") });
    expect(skipped).toEqual([]);
    expect([images[0].width, images[0].height]).toEqual([80, 120]);
    expect(near(await pixel(images[0].path, 75, 5), RED)).toBe(true); // top-right: stored top-left
    expect(near(await pixel(images[0].path, 5, 5), BLUE)).toBe(true); // top-left: stored bottom-left
    expect(near(await pixel(images[0].path, 75, 115), GREEN)).toBe(true);
    expect([images[1].width, images[1].height]).toEqual([120, 80]);
    expect(near(await pixel(images[1].path, 5, 5), RED)).toBe(true);
    expect(images.map((i) => i.index)).toEqual([0, 1]);
  });

  it("keeps a drone photo's gimbal pitch for an upright stored image only", async () => {
    const raw = quadrantImage(120, 80, [RED, GREEN, BLUE, WHITE]);
    const pitch = djiXmp({ GimbalPitchDegree: "-90.00" });
    const upright = await put("nadir.jpg", withXmp(await encodeJpeg(raw, 120, 80), pitch));
    const turned = await put("nadir-turned.jpg", withXmp(await encodeJpeg(raw, 120, 80, { orientation: 6 }), pitch));
    const { images } = await run({ files: [upright, turned], workDir: join(dir, "out-pitch") });
    expect(images[0].gimbalPitchDeg).toBe(-90);
    // Turned upright by ingest, the image's axes are no longer the gimbal's.
    expect(images[1].gimbalPitchDeg).toBeUndefined();
  });

  it("derives the focal prior from FocalLengthIn35mmFilm and scales it with downscaling", async () => {
    const raw = quadrantImage(300, 200, [RED, GREEN, BLUE, WHITE]);
    const a = await put("f50.jpg", await encodeJpeg(raw, 300, 200, { focalLength35mm: 50, make: "Test", model: "Cam" }));
    const b = await put("noexif.png", await encodePng(raw, 300, 200));
    const full = await run({ files: [a, b], workDir: join(dir, "out-focal") });
    // 3:2 frame: the diagonal rule equals f35/36 · long side.
    expect(full.images[0].focalPrior).toBeCloseTo((50 / 36) * 300, 6);
    expect(full.images[0].focalPriorSource).toBe("exif35mm");
    expect(full.images[1].focalPrior).toBeCloseTo(1.2 * 300, 6);
    expect(full.images[1].focalPriorSource).toBe("default");
    const small = await run({ files: [a, b], workDir: join(dir, "out-small") }, { maxImageSide: 150 });
    expect([small.images[0].width, small.images[0].height]).toEqual([150, 100]);
    expect(small.images[0].focalPrior).toBeCloseTo((50 / 36) * 150, 6);
    expect((await sharp(small.images[0].path).metadata()).width).toBe(150);
  });

  it("skips a truncated JPEG, a PDF renamed .jpg and a HEIC that does not decode, with reasons", async () => {
    const raw = quadrantImage(120, 80, [RED, GREEN, BLUE, WHITE]);
    const jpeg = await encodeJpeg(raw, 120, 80);
    const good1 = await put("good1.jpg", jpeg);
    const good2 = await put("good2.png", await encodePng(raw, 120, 80));
    const truncated = await put("broken.jpg", jpeg.subarray(0, Math.floor(jpeg.length / 2)));
    const pdf = await put("document.jpg", Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n"));
    const heicHeader = Buffer.alloc(64);
    heicHeader.writeUInt32BE(24, 0);
    heicHeader.write("ftypheic", 4, "latin1");
    heicHeader.write("mif1heic", 16, "latin1");
    const heic = await put("photo.heic", heicHeader);
    const { images, skipped, report } = await run({ files: [good1, truncated, pdf, good2, heic], workDir: join(dir, "out-skip") });
    expect(images.map((i) => i.name)).toEqual(["good1.jpg", "good2.png"]);
    const reasons = Object.fromEntries(skipped.map((s) => [s.name, s.reason]));
    expect(Object.keys(reasons).sort()).toEqual(["broken.jpg", "document.jpg", "photo.heic"]);
    expect(reasons["document.jpg"]).toMatch(/PDF document/);
    expect(reasons["broken.jpg"]).toMatch(/premature|truncat|corrupt|VipsJpeg|end of/i);
    expect(reasons["photo.heic"]).not.toMatch(/not a supported/); // sniffed as HEIC, failed in the decoder
    expect(report.counts.skipped).toBe(3);
    expect(report.warnings).toHaveLength(3);
    // Files are ingested two at a time; the outcomes keep the files' order whichever finished first.
    expect(skipped.map((s) => s.name)).toEqual(["broken.jpg", "document.jpg", "photo.heic"]);
    expect(report.perImage?.map((p) => p.name)).toEqual(["broken.jpg", "document.jpg", "photo.heic", "good1.jpg", "good2.png"]);
    expect(images.map((i) => i.index)).toEqual([0, 1]);
  });

  it("decodes HEIC (sniffed from bytes, not the name) and applies its irot rotation once", async () => {
    const raw = quadrantImage(128, 96, [RED, GREEN, BLUE, WHITE]);
    const plain = await put("phone.jpg", await encodeHeic(raw, 128, 96)); // misnamed: bytes decide
    const turned = await put("turned.heic", await encodeHeic(raw, 128, 96, 1, { make: "Apple", model: "iPhone", focalLength35mm: 26, orientation: 6 })); // irot 90° anticlockwise; EXIF Orientation as iPhones also write it
    const { images, skipped, report } = await run({ files: [plain, turned], workDir: join(dir, "out-heic") });
    expect(skipped).toEqual([]);
    expect(report.perImage?.map((p) => p.kind)).toEqual(["heic", "heic"]);
    expect([images[0].width, images[0].height]).toEqual([128, 96]);
    expect(near(await pixel(images[0].path, 5, 5), RED, 30)).toBe(true);
    expect(near(await pixel(images[0].path, 120, 5), GREEN, 30)).toBe(true);
    expect([images[1].width, images[1].height]).toEqual([96, 128]);
    expect(near(await pixel(images[1].path, 5, 120), RED, 30)).toBe(true); // top-left went to bottom-left
    expect(near(await pixel(images[1].path, 5, 5), GREEN, 30)).toBe(true);
    expect(images[0].focalPriorSource).toBe("default");
    // EXIF read from the HEIC's Exif item (exifreader): 26 mm equivalent on a 4:3 frame.
    expect(images[1].focalPriorSource).toBe("exif35mm");
    expect(images[1].focalPrior).toBeCloseTo((26 * Math.hypot(128, 96)) / Math.hypot(36, 24), 6);
  });

  it("stores 16-bit and RGBA inputs as 8-bit 3-channel sRGB", async () => {
    const deep = await sharp(Buffer.alloc(100 * 80 * 3 * 2, 200), { raw: { width: 100, height: 80, channels: 3 } }).png().toColourspace("rgb16").toBuffer();
    const rgba = await sharp({ create: { width: 100, height: 80, channels: 4, background: { r: 10, g: 200, b: 30, alpha: 0.5 } } }).png().toBuffer();
    const { images } = await run({ files: [await put("deep.png", deep), await put("rgba.png", rgba)], workDir: join(dir, "out-formats") });
    for (const image of images) {
      const meta = await sharp(image.path).metadata();
      expect([meta.channels, meta.depth, meta.space]).toEqual([3, "uchar", "srgb"]);
    }
  });

  it("throws no_usable_images naming the skipped files when fewer than two images remain", async () => {
    const raw = quadrantImage(120, 80, [RED, GREEN, BLUE, WHITE]);
    const good = await put("only.jpg", await encodeJpeg(raw, 120, 80));
    const pdf = await put("notes.png", Buffer.from("%PDF-1.7\n"));
    const error = await run({ files: [good, pdf], workDir: join(dir, "out-none") }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PipelineError);
    expect((error as PipelineError).code).toBe("no_usable_images");
    expect((error as PipelineError).message).toMatch(/notes\.png: .*PDF document/);
  });
});
