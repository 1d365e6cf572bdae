import { describe, expect, it } from "vitest";
import { jpegSize, pngSize, sniffKind } from "../../edge/uploads/sniff.js";
import { estimateCompletion, inputSeconds, KEYFRAMES_PER_VIDEO_MIB, MAX_KEYFRAMES, SECONDS_PER_IMAGE, SECONDS_PER_STORED_MEGAPIXEL, START_UP_SECONDS } from "../../edge/scheduling/estimate.js";
import { heic, isoBmff, jpeg, mov, mp4, pdf, png } from "./upload-fixtures.js";

describe("sniffKind", () => {
  it.each([
    ["jpeg", jpeg(4, 3)],
    ["png", png(4, 3)],
    ["heic", heic()],
    ["heic", isoBmff("mif1", ["mif1", "heix"])],
    ["mp4", mp4()],
    ["mp4", isoBmff("mp42", ["mp42", "isom"])],
    ["mp4", isoBmff("M4V ", ["M4V ", "mp42"])],
    ["mov", mov()],
    ["mov", new Uint8Array([0, 0, 0, 16, ...new TextEncoder().encode("moov"), 0, 0, 0, 8, 0x6d, 0x76, 0x68, 0x64])],
  ])("recognises %s", (kind, bytes) => {
    expect(sniffKind(bytes.subarray(0, 64))).toBe(kind);
  });

  it.each([
    ["a PDF", pdf()],
    ["a truncated JPEG header (FF D8)", new Uint8Array([0xff, 0xd8])],
    ["FF D8 followed by a non-marker byte", new Uint8Array([0xff, 0xd8, 0x00, 0x00, 1, 2, 3, 4, 5, 6, 7, 8])],
    ["a PNG signature cut short", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a])],
    ["AVIF (generic HEIF brand without HEVC)", isoBmff("avif", ["mif1", "avif"])],
    ["mif1 + avif only", isoBmff("mif1", ["mif1", "avif", "miaf"])],
    ["an audio-only M4A", isoBmff("M4A ", ["M4A ", "mp42", "isom"])],
    ["text", new TextEncoder().encode("hello world, this is plain text")],
    ["nothing", new Uint8Array(0)],
  ])("refuses %s", (_label, bytes) => {
    expect(sniffKind(bytes.subarray(0, 64))).toBeUndefined();
  });
});

describe("image dimensions from header bytes", () => {
  it("reads JPEG SOF0 width and height after an APP0 segment", () => {
    expect(jpegSize(jpeg(4032, 3024))).toEqual({ width: 4032, height: 3024 });
  });
  it("gives up when SOF lies beyond the prefix", () => {
    expect(jpegSize(jpeg(4032, 3024).subarray(0, 22))).toBeUndefined();
  });
  it("reads PNG IHDR", () => {
    expect(pngSize(png(640, 480))).toEqual({ width: 640, height: 480 });
  });
});

describe("estimate", () => {
  it("costs a photo per photo and per megapixel as stored, capped by the preset's side", () => {
    const small = { kind: "jpeg" as const, size: 1000, pixels: 640 * 480 };
    const twelve = { kind: "jpeg" as const, size: 1000, pixels: 12e6 };
    const fortyEight = { kind: "jpeg" as const, size: 1000, pixels: 48e6 };
    expect(inputSeconds(small)).toBeCloseTo(SECONDS_PER_IMAGE + 0.3072 * SECONDS_PER_STORED_MEGAPIXEL);
    // 12 MP (4:3) is stored at 2400 × 1800 at standard: 4.32 MP; 48 MP the same.
    expect(inputSeconds(twelve)).toBeCloseTo(SECONDS_PER_IMAGE + 4.32 * SECONDS_PER_STORED_MEGAPIXEL);
    expect(inputSeconds(fortyEight)).toBeCloseTo(inputSeconds(twelve));
    expect(inputSeconds(twelve, "high")).toBeGreaterThan(inputSeconds(twelve));
    // Without a header size, a JPEG's pixels follow its bytes.
    expect(inputSeconds({ kind: "jpeg", size: 0.35 * 640 * 480 })).toBeCloseTo(inputSeconds(small));
  });

  it("costs a video by the keyframes its size suggests, up to the preset's cap", () => {
    const tenMiB = { kind: "mp4" as const, size: 10 * 1024 * 1024 };
    const huge = { kind: "mov" as const, size: 20 * 1024 ** 3 };
    const frame = inputSeconds({ kind: "png", size: 1, pixels: 1920 * 1080 });
    expect(inputSeconds(tenMiB)).toBeCloseTo(10 * KEYFRAMES_PER_VIDEO_MIB * frame);
    expect(inputSeconds(huge)).toBeCloseTo(MAX_KEYFRAMES.standard * frame);
    expect(inputSeconds(huge, "preview")).toBeLessThan(inputSeconds(huge));
  });

  it("is start-up plus the inputs' seconds, scaled by quality", () => {
    const image = { kind: "jpeg" as const, size: 1000, pixels: 12e6 };
    const video = { kind: "mp4" as const, size: 10 * 1024 * 1024 };
    const at = Date.UTC(2026, 0, 1);
    const standard = estimateCompletion([image, video], "standard", at).getTime() - at;
    const preview = estimateCompletion([image, video], "preview", at).getTime() - at;
    expect(standard).toBe(Math.ceil((START_UP_SECONDS + inputSeconds(image) + inputSeconds(video)) * 1000));
    expect(preview).toBeLessThan(standard);
    // 200 small survey photos: about the 14 minutes the eta bench measured, not the former model's 2.
    const survey = estimateCompletion(Array.from({ length: 200 }, () => ({ kind: "jpeg" as const, size: 1, pixels: 640 * 480 })), "standard", at).getTime() - at;
    expect(survey / 60_000).toBeGreaterThan(12);
    expect(survey / 60_000).toBeLessThan(20);
  });
});
