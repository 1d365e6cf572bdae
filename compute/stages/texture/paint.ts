/**
 * @module Painting one chart into its page: the photo's pixels under the chart's rectangle,
 * plus the levelling correction interpolated across each face (barycentric in the chart's
 * vertices) and spread a few texels past the faces so that the padding matches.
 */
import type { TexturePage } from "../../scene/index.js";
import type { ChartPlacement } from "./atlas-layout.js";

export interface ChartFaces {
  /** Local texel coordinates (x, y per split vertex, in the chart's rectangle; continuous, centres at +0.5). */
  local: Float32Array;
  /** 3 per face, indices into `local` / `corrections` (split vertex ids). */
  triangles: Uint32Array;
  /** Correction per split vertex, 3 per vertex, indexed like `local`. */
  corrections: Float32Array;
}

/** Correction per texel of the rectangle (3 per texel) and whether a face covers it. */
function correctionField(placement: ChartPlacement, chart: ChartFaces, spreadPasses: number): Float32Array {
  const { width, height } = placement;
  const field = new Float32Array(3 * width * height);
  const covered = new Uint8Array(width * height);
  const { local, triangles, corrections } = chart;
  for (let f = 0; f < triangles.length; f += 3) {
    const a = triangles[f], b = triangles[f + 1], c = triangles[f + 2];
    const ax = local[2 * a], ay = local[2 * a + 1], bx = local[2 * b], by = local[2 * b + 1], cx = local[2 * c], cy = local[2 * c + 1];
    const area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
    if (area === 0) continue;
    const x0 = Math.max(0, Math.floor(Math.min(ax, bx, cx))), x1 = Math.min(width - 1, Math.ceil(Math.max(ax, bx, cx)));
    const y0 = Math.max(0, Math.floor(Math.min(ay, by, cy))), y1 = Math.min(height - 1, Math.ceil(Math.max(ay, by, cy)));
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const sx = x + 0.5, sy = y + 0.5;
        const wa = ((bx - sx) * (cy - sy) - (by - sy) * (cx - sx)) / area;
        const wb = ((cx - sx) * (ay - sy) - (cy - sy) * (ax - sx)) / area;
        const wc = 1 - wa - wb;
        // A little slack so texels cut by an edge count as covered.
        if (wa < -0.05 || wb < -0.05 || wc < -0.05) continue;
        const at = y * width + x;
        for (let ch = 0; ch < 3; ch++) field[3 * at + ch] = wa * corrections[3 * a + ch] + wb * corrections[3 * b + ch] + wc * corrections[3 * c + ch];
        covered[at] = 1;
      }
    }
  }
  spreadIntoGaps(field, covered, width, height, spreadPasses);
  return field;
}

/**
 * Uncovered texels within `passes` steps of a face take the correction of the nearest covered
 * texel (breadth-first, so in one pass over the rectangle); the rest the chart's mean.
 */
function spreadIntoGaps(field: Float32Array, covered: Uint8Array, width: number, height: number, passes: number): void {
  const mean = [0, 0, 0];
  let count = 0;
  const queue = new Int32Array(width * height);
  const steps = new Uint16Array(width * height);
  let head = 0, tail = 0;
  for (let i = 0; i < covered.length; i++) {
    if (!covered[i]) continue;
    for (let ch = 0; ch < 3; ch++) mean[ch] += field[3 * i + ch];
    count++;
    queue[tail++] = i;
  }
  for (let ch = 0; ch < 3; ch++) mean[ch] = count > 0 ? mean[ch] / count : 0;
  // The four neighbours in a fixed order, written out: a closure per texel (and the name tsx
  // gives each) was 2 s of CPU in Herz-Jesus-P8's texture stage (a worker CPU profile).
  while (head < tail) {
    const at = queue[head++];
    if (steps[at] >= passes) continue;
    const x = at % width, y = (at - x) / width;
    for (let k = 0; k < 4; k++) {
      let next: number;
      if (k === 0) { if (x === 0) continue; next = at - 1; }
      else if (k === 1) { if (x + 1 >= width) continue; next = at + 1; }
      else if (k === 2) { if (y === 0) continue; next = at - width; }
      else { if (y + 1 >= height) continue; next = at + width; }
      if (covered[next]) continue;
      covered[next] = 1;
      steps[next] = steps[at] + 1;
      field[3 * next] = field[3 * at]; field[3 * next + 1] = field[3 * at + 1]; field[3 * next + 2] = field[3 * at + 2];
      queue[tail++] = next;
    }
  }
  for (let i = 0; i < covered.length; i++) if (!covered[i]) for (let ch = 0; ch < 3; ch++) field[3 * i + ch] = mean[ch];
}

/** Copies the photo under `placement` into the page, corrected. */
export function paintChart(page: TexturePage, photo: { rgb: Uint8Array; width: number; height: number }, placement: ChartPlacement, chart: ChartFaces, spreadPasses: number): void {
  const field = correctionField(placement, chart, spreadPasses);
  const { width, height } = placement;
  for (let y = 0; y < height; y++) {
    const py = Math.min(photo.height - 1, Math.max(0, placement.photoY + y));
    const pageRow = (placement.pageY + y) * page.width;
    for (let x = 0; x < width; x++) {
      const px = Math.min(photo.width - 1, Math.max(0, placement.photoX + x));
      const src = 3 * (py * photo.width + px);
      const dst = 3 * (pageRow + placement.pageX + x);
      const at = 3 * (y * width + x);
      for (let ch = 0; ch < 3; ch++) {
        const value = photo.rgb[src + ch] + field[at + ch];
        page.rgb[dst + ch] = value < 0 ? 0 : value > 255 ? 255 : Math.round(value);
      }
    }
  }
}
