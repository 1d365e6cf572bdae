/**
 * @module The mesh seen straight down, one strip of raster rows at a time: a scanline
 * rasteriser with a z-buffer that keeps the highest surface at every pixel centre. This is what
 * makes the orthophoto "true": each pixel takes the colour of the top surface above its own
 * ground position, so a roof lies on its footprint and does not lean, and walls (vertical faces,
 * of no area seen from above) never show.
 *
 * In an orthographic view the height is an affine function of the pixel position over a
 * triangle, so each face's plane is solved once and evaluated along each span; no perspective
 * correction is needed.
 */
import type { TopViewVertices } from "./raster-grid.js";

/** The z-buffer of one strip: rows × width pixels, row-major, row 0 = the strip's first raster row. */
export interface TopStrip {
  width: number;
  /** Raster row of the strip's first row. */
  row0: number;
  rows: number;
  /** Highest model-frame height per pixel; −Infinity where no face covers the pixel centre. */
  top: Float64Array;
  /** Face whose surface `top` is; −1 where none. */
  face: Int32Array;
}

export function allocateStrip(width: number, maxRows: number): TopStrip {
  return { width, row0: 0, rows: 0, top: new Float64Array(width * maxRows), face: new Int32Array(width * maxRows) };
}

/** Faces with their projected extent, computed once for all strips. */
export interface FaceSpans {
  /** First and last raster rows whose pixel centre row may cross the face. */
  rowMin: Int32Array;
  rowMax: Int32Array;
}

/**
 * Row extents of every face; faces of (almost) no area seen from above (walls) get an empty
 * range and are never drawn.
 */
export function faceSpans(indices: Uint32Array, faceCount: number, vertices: TopViewVertices): FaceSpans {
  const { px, py } = vertices;
  const rowMin = new Int32Array(faceCount), rowMax = new Int32Array(faceCount);
  for (let f = 0; f < faceCount; f++) {
    const a = indices[3 * f], b = indices[3 * f + 1], c = indices[3 * f + 2];
    const area = (px[b] - px[a]) * (py[c] - py[a]) - (px[c] - px[a]) * (py[b] - py[a]);
    if (Math.abs(area) < 1e-12) {
      rowMin[f] = 1;
      rowMax[f] = 0;
      continue;
    }
    // Row r's centres are at r + 0.5: the rows whose centre line lies within [min y, max y].
    rowMin[f] = Math.ceil(Math.min(py[a], py[b], py[c]) - 0.5);
    rowMax[f] = Math.floor(Math.max(py[a], py[b], py[c]) - 0.5);
  }
  return { rowMin, rowMax };
}

/**
 * Rasterises every face crossing rows [row0, row0 + rows) into `strip` (reset first). A pixel
 * whose centre lies on a shared edge is drawn by both faces; the z-test keeps the higher, and
 * the first drawn of equal heights.
 */
export function rasteriseStrip(indices: Uint32Array, vertices: TopViewVertices, spans: FaceSpans, row0: number, rows: number, strip: TopStrip): void {
  const { px, py, up } = vertices;
  const { width, top, face } = strip;
  strip.row0 = row0;
  strip.rows = rows;
  top.fill(-Infinity, 0, rows * width);
  face.fill(-1, 0, rows * width);
  const rowEnd = row0 + rows - 1;
  const { rowMin, rowMax } = spans;
  for (let f = 0; f < rowMin.length; f++) {
    const r0 = Math.max(rowMin[f], row0), r1 = Math.min(rowMax[f], rowEnd);
    if (r0 > r1) continue;
    const a = indices[3 * f], b = indices[3 * f + 1], c = indices[3 * f + 2];
    const ax = px[a], ay = py[a], bx = px[b], by = py[b], cx = px[c], cy = py[c];
    const ha = up[a], hb = up[b], hc = up[c];
    const area = (bx - ax) * (cy - ay) - (cx - ax) * (by - ay);
    // The face's plane h = ha + dhdx·(x − ax) + dhdy·(y − ay), from Cramer's rule on the two edges.
    const dhdx = ((hb - ha) * (cy - ay) - (hc - ha) * (by - ay)) / area;
    const dhdy = ((hc - ha) * (bx - ax) - (hb - ha) * (cx - ax)) / area;
    // Clamp to the face's own heights: at a span's end a sliver face would otherwise extrapolate.
    const hMin = Math.min(ha, hb, hc), hMax = Math.max(ha, hb, hc);
    for (let r = r0; r <= r1; r++) {
      const sy = r + 0.5;
      // The span of the centre line y = sy inside the triangle: where it crosses the edges.
      span[0] = Infinity;
      span[1] = -Infinity;
      if ((ay <= sy && sy <= by) || (by <= sy && sy <= ay)) widen(ax, ay, bx, by, sy);
      if ((by <= sy && sy <= cy) || (cy <= sy && sy <= by)) widen(bx, by, cx, cy, sy);
      if ((cy <= sy && sy <= ay) || (ay <= sy && sy <= cy)) widen(cx, cy, ax, ay, sy);
      const c0 = Math.max(0, Math.ceil(span[0] - 0.5)), c1 = Math.min(width - 1, Math.floor(span[1] - 0.5));
      if (c0 > c1) continue;
      const rowAt = (r - row0) * width;
      const hRow = ha + dhdy * (sy - ay);
      for (let col = c0; col <= c1; col++) {
        let h = hRow + dhdx * (col + 0.5 - ax);
        h = h < hMin ? hMin : h > hMax ? hMax : h;
        const at = rowAt + col;
        if (h > top[at]) {
          top[at] = h;
          face[at] = f;
        }
      }
    }
  }
}

/** The current row's span [left, right] in pixel x, widened edge by edge (scratch, 2 values). */
const span = new Float64Array(2);

/** Widens `span` by the x where the edge (x0, y0)–(x1, y1) meets y = sy (a horizontal edge: both ends). */
function widen(x0: number, y0: number, x1: number, y1: number, sy: number): void {
  const xa = y0 === y1 ? Math.min(x0, x1) : x0 + ((sy - y0) * (x1 - x0)) / (y1 - y0);
  const xb = y0 === y1 ? Math.max(x0, x1) : xa;
  if (xa < span[0]) span[0] = xa;
  if (xb > span[1]) span[1] = xb;
}
