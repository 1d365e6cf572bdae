import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { jpegOptions } from "../../../compute/util/jpeg.js";

/** A photo-like RGB image: smooth gradients, a sharp-edged square and grain. */
function photoLike(width: number, height: number): Uint8Array {
  const rgb = new Uint8Array(width * height * 3);
  let seed = 12345;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      const grain = (seed >>> 24) % 17 - 8;
      const inSquare = x > width / 3 && x < (2 * width) / 3 && y > height / 3 && y < (2 * height) / 3;
      const i = 3 * (y * width + x);
      rgb[i] = Math.max(0, Math.min(255, (inSquare ? 220 : (255 * x) / width) + grain));
      rgb[i + 1] = Math.max(0, Math.min(255, (inSquare ? 30 : (255 * y) / height) + grain));
      rgb[i + 2] = Math.max(0, Math.min(255, 128 + grain));
    }
  }
  return rgb;
}

async function decoded(jpeg: Buffer): Promise<Buffer> {
  return sharp(jpeg).raw().toBuffer();
}

describe("util/jpeg", () => {
  it("writes the pixels sharp's optimised coding writes, in a file not much larger", async () => {
    const width = 640;
    const height = 480;
    const source = () => sharp(Buffer.from(photoLike(width, height)), { raw: { width, height, channels: 3 } });
    for (const quality of [90, 95]) {
      const ours = await source().jpeg(jpegOptions(quality)).toBuffer();
      const optimised = await source().jpeg({ quality, chromaSubsampling: "4:4:4", optimiseCoding: true }).toBuffer();
      // The choice must change only the Huffman tables: every stage after ingest reads these pixels.
      expect((await decoded(ours)).equals(await decoded(optimised))).toBe(true);
      // 2–4 % larger on photos (util/jpeg.ts); this small image's grain costs the standard tables ~11 %.
      expect(ours.byteLength).toBeLessThan(1.2 * optimised.byteLength);
      // 4:4:4: the sampling factors of all three components are 1×1 (JPEG SOF0, ITU T.81 B.2.2).
      const meta = await sharp(ours).metadata();
      expect(meta.chromaSubsampling).toBe("4:4:4");
    }
  });
});
