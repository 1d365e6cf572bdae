/**
 * The views bench's background mask (bench/views-mask.ts): a studio's black backdrop joined to the
 * photo's border is background up to the silhouette, including the band the smoothness window
 * straddles; a dark plain region enclosed by the object and the object itself stay surface.
 */
import { describe, expect, it } from "vitest";
import { backgroundMask } from "../../bench/views-mask.js";

const WIDTH = 120;
const HEIGHT = 90;

/** Black cloth (luma 10, a little noise under the smoothness bound) around a bright textured block with a dark plain window in it. */
function studioPhoto(): Uint8Array {
  const rgb = new Uint8Array(WIDTH * HEIGHT * 3);
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const inBlock = x >= 30 && x < 90 && y >= 20 && y < 70;
      const inWindow = x >= 50 && x < 70 && y >= 35 && y < 55;
      // The block: a bright stone texture (a checker of 180 and 220); the window and the cloth: near-black, almost flat.
      const value = inBlock && !inWindow ? ((x >> 2) + (y >> 2)) % 2 === 0 ? 180 : 220 : 10 + ((x * 7 + y * 13) % 3);
      rgb.fill(value, 3 * (y * WIDTH + x), 3 * (y * WIDTH + x) + 3);
    }
  }
  return rgb;
}

describe("views bench background mask", () => {
  const mask = backgroundMask(studioPhoto(), WIDTH, HEIGHT);
  const at = (x: number, y: number) => mask[y * WIDTH + x];

  it("masks the backdrop right up to the silhouette, the band the 7 × 7 window straddles too", () => {
    for (let y = 0; y < HEIGHT; y++) {
      for (let x = 0; x < WIDTH; x++) {
        const outside = x < 30 || x >= 90 || y < 20 || y >= 70;
        if (outside) expect(at(x, y), `backdrop pixel ${x},${y}`).toBe(1);
      }
    }
  });

  it("keeps the object and a dark plain region it encloses as surface", () => {
    for (let y = 20; y < 70; y++) for (let x = 30; x < 90; x++) expect(at(x, y), `object pixel ${x},${y}`).toBe(0);
  });
});
