/**
 * @module The digital surface model's rows from a strip of the top view: the height of the
 * highest surface above each pixel centre, in the CRS's vertical units (model height + the
 * offset's height), nodata where no face covers the centre.
 */
import type { TopStrip } from "./top-view.js";

/**
 * Writes the strip's heights into `out` (rows · width float32) and returns how many pixels
 * have one. The sum is taken in float64 before the float32 store: at 400 m a float32 keeps
 * 30 µm, at 9 000 m 0.5 mm.
 */
export function dsmRows(strip: TopStrip, heightOffset: number, nodata: number, out: Float32Array): number {
  const n = strip.rows * strip.width;
  const { top } = strip;
  let covered = 0;
  for (let i = 0; i < n; i++) {
    const h = top[i];
    if (h === -Infinity) {
      out[i] = nodata;
    } else {
      out[i] = h + heightOffset;
      covered++;
    }
  }
  return covered;
}
