/** @module Detection scale of an image: downscaled when large, upsampled 2× when small. */

/**
 * Scale from image to detection pixels. Large images are downscaled to maxImageSide. Small
 * ones (long side ≤ upsampleMaxSide) are upsampled 2×, as Lowe's SIFT does with its octave −1
 * (IJCV 2004, §3.3: doubling the image roughly quadruples the stable keypoints): AKAZE's
 * finest scale then reaches structures of one or two pixels, which are most of the texture a
 * 640-px photo has. This holds for every preset: a doubled 640×480 costs about what the
 * preview's 1200-px detection of a large photo costs, and with upsampleMaxSide ≤ 1200 the
 * copy stays inside OpenCV.js's heap limit (~2400 px, docs/DESIGN.md).
 */
export function detectionFactor(width: number, height: number, maxImageSide: number, upsampleMaxSide: number): number {
  const longSide = Math.max(width, height);
  if (longSide <= upsampleMaxSide) return 2;
  return Math.min(1, maxImageSide / longSide);
}

/**
 * 2× bilinear upsampling of an 8-bit grey image with pixel centres aligned (Lowe's octave −1
 * uses linear interpolation too). Destination pixel i has its centre at source coordinate
 * (i + 0.5) / 2, i.e. 0.25 px before or after source pixel ⌊i/2⌋'s centre, so its value is
 * ¾ of that pixel and ¼ of the neighbour on that side (edges clamped). Done here rather than
 * by sharp: libvips aligns the corners of the two grids when enlarging, which shifted every
 * keypoint by a quarter pixel.
 */
export function upsample2x(src: Uint8Array, width: number, height: number): Uint8Array {
  const w2 = 2 * width;
  // Horizontal pass, kept ×4 (3a + b) in 16 bits so the vertical pass rounds only once.
  const rows = new Uint16Array(w2 * height);
  for (let y = 0; y < height; y++) {
    const s = y * width;
    const d = y * w2;
    for (let x = 0; x < width; x++) {
      const centre = 3 * src[s + x];
      rows[d + 2 * x] = centre + src[s + Math.max(0, x - 1)];
      rows[d + 2 * x + 1] = centre + src[s + Math.min(width - 1, x + 1)];
    }
  }
  const out = new Uint8Array(w2 * 2 * height);
  for (let y = 0; y < height; y++) {
    const above = Math.max(0, y - 1) * w2;
    const below = Math.min(height - 1, y + 1) * w2;
    const row = y * w2;
    const top = 2 * y * w2;
    const bottom = top + w2;
    for (let x = 0; x < w2; x++) {
      const centre = 3 * rows[row + x];
      out[top + x] = (centre + rows[above + x] + 8) >> 4;
      out[bottom + x] = (centre + rows[below + x] + 8) >> 4;
    }
  }
  return out;
}
