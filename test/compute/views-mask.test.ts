/**
 * The views bench's background mask (bench/views-mask.ts): a studio's black backdrop joined to the
 * photo's border is background up to the silhouette, including the band the smoothness window
 * straddles, and so is the backdrop seen through an opening in the object; outdoors, under a sky,
 * a dark plain region the object encloses (a shadowed porch) stays surface, as the object does.
 */
import { describe, expect, it } from "vitest";
import { backgroundMask } from "../../bench/views-mask.js";

const WIDTH = 120;
const HEIGHT = 90;

/**
 * A bright textured block with a dark plain window (26 × 26 px) in it, on `surround`: near-black
 * cloth (luma 10, a little noise under the smoothness bound) or a plain pale-blue sky.
 */
function photo(surround: "cloth" | "sky"): Uint8Array {
  const rgb = new Uint8Array(WIDTH * HEIGHT * 3);
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const inBlock = x >= 30 && x < 90 && y >= 20 && y < 70;
      const inWindow = x >= 47 && x < 73 && y >= 32 && y < 58;
      const at = 3 * (y * WIDTH + x);
      if (inBlock && !inWindow) {
        // A bright stone texture: a checker of 180 and 220.
        rgb.fill(((x >> 2) + (y >> 2)) % 2 === 0 ? 180 : 220, at, at + 3);
      } else if (inWindow || surround === "cloth") {
        rgb.fill(10 + ((x * 7 + y * 13) % 3), at, at + 3);
      } else {
        rgb.set([170, 200, 235], at);
      }
    }
  }
  return rgb;
}

const inWindow = (x: number, y: number) => x >= 47 && x < 73 && y >= 32 && y < 58;

describe("views bench background mask", () => {
  const studio = backgroundMask(photo("cloth"), WIDTH, HEIGHT);
  const outdoors = backgroundMask(photo("sky"), WIDTH, HEIGHT);
  const at = (mask: Uint8Array, x: number, y: number) => mask[y * WIDTH + x];

  it("masks a studio's backdrop right up to the silhouette, the band the 7 × 7 window straddles too", () => {
    for (let y = 0; y < HEIGHT; y++) {
      for (let x = 0; x < WIDTH; x++) {
        const outside = x < 30 || x >= 90 || y < 20 || y >= 70;
        if (outside) expect(at(studio, x, y), `backdrop pixel ${x},${y}`).toBe(1);
      }
    }
  });

  it("masks the studio's backdrop seen through an opening in the object, and keeps the object", () => {
    for (let y = 20; y < 70; y++) {
      for (let x = 30; x < 90; x++) expect(at(studio, x, y), `${inWindow(x, y) ? "opening" : "object"} pixel ${x},${y}`).toBe(inWindow(x, y) ? 1 : 0);
    }
  });

  it("keeps a dark plain region the object encloses as surface under a sky, and masks the sky", () => {
    for (let y = 0; y < HEIGHT; y++) {
      for (let x = 0; x < WIDTH; x++) {
        const outside = x < 30 || x >= 90 || y < 20 || y >= 70;
        // Sky within the 7 × 7 window's reach of the block is not smooth, and only a dark backdrop grows into that band.
        const clearSky = x < 27 || x >= 93 || y < 17 || y >= 73;
        if (outside && !clearSky) continue;
        expect(at(outdoors, x, y), `${outside ? "sky" : "object"} pixel ${x},${y}`).toBe(outside ? 1 : 0);
      }
    }
  });
});
