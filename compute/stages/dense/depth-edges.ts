/**
 * @module Which pixels' windows straddle a depth edge of a level's seeded planes
 * (PatchMatchParams.texturedWindow.edge): there the narrow window is taken from a lower grey
 * spread, where elsewhere the wide window's many samples hold a plain pixel's match better.
 */

/** The 8 directions (x, y pairs) in which a pixel looks for a depth edge. */
const DIRECTIONS = new Int8Array([1, 0, -1, 0, 0, 1, 0, -1, 1, 1, -1, -1, 1, -1, -1, 1]);

/** A level's planes: depth along z and unit normal per pixel, in the camera of focal and principal point (cx, cy). */
export interface PlaneMap {
  width: number;
  height: number;
  focal: number;
  cx: number;
  cy: number;
  depth: Float32Array;
  normal: Float32Array;
}

/**
 * 1 for each pixel a neighbour of which, `reach` pixels away in one of 8 directions, lies off the
 * pixel's plane by more than `relative` of its depth, measured along the plane's normal. Along
 * the normal, so a floor seen at a grazing angle, whose depth changes fast across the image, is not
 * an edge, nor is the noise of its depths (a depth error along a grazing ray moves the point
 * mostly within the plane). Pixels within `margin` of the border are not marked, and neighbours
 * beyond it are clamped inside.
 */
export function depthEdgeMask(map: PlaneMap, reach: number, relative: number, margin: number): Uint8Array {
  const { width, height, focal, cx, cy, depth, normal } = map;
  const nearEdge = new Uint8Array(width * height);
  for (let row = margin; row < height - margin; row++) {
    const ry = (row + 0.5 - cy) / focal;
    for (let col = margin; col < width - margin; col++) {
      const p = row * width + col;
      const nx = normal[3 * p];
      const ny = normal[3 * p + 1];
      const nz = normal[3 * p + 2];
      // The plane n·X = ρ through this pixel's point.
      const rho = depth[p] * (nx * ((col + 0.5 - cx) / focal) + ny * ry + nz);
      for (let k = 0; k < 8; k++) {
        const qc = Math.min(width - margin - 1, Math.max(margin, col + reach * DIRECTIONS[2 * k]));
        const qr = Math.min(height - margin - 1, Math.max(margin, row + reach * DIRECTIONS[2 * k + 1]));
        const q = qr * width + qc;
        // The neighbour's point X_q = depth·(x, y, 1) lies |n·X_q − ρ| off the plane (n is a unit vector).
        const offPlane = depth[q] * (nx * ((qc + 0.5 - cx) / focal) + ny * ((qr + 0.5 - cy) / focal) + nz) - rho;
        if (Math.abs(offPlane) > relative * depth[q]) {
          nearEdge[p] = 1;
          break;
        }
      }
    }
  }
  return nearEdge;
}

/**
 * 1 for each pixel whose plane faces the camera: the cosine between its normal and the pixel's
 * ray is at least `minCosine`. A plane seen at a grazing angle (ground at a photo's feet, a
 * street seen along) is left out: its window's grey spread comes from texture foreshortened
 * many times over, which a narrow window matches no better than a wide one.
 */
export function frontalPlaneMask(map: PlaneMap, minCosine: number, margin: number): Uint8Array {
  const { width, height, focal, cx, cy, normal } = map;
  const frontal = new Uint8Array(width * height);
  for (let row = margin; row < height - margin; row++) {
    const ry = (row + 0.5 - cy) / focal;
    for (let col = margin; col < width - margin; col++) {
      const p = row * width + col;
      const rx = (col + 0.5 - cx) / focal;
      const along = normal[3 * p] * rx + normal[3 * p + 1] * ry + normal[3 * p + 2];
      if (Math.abs(along) >= minCosine * Math.sqrt(rx * rx + ry * ry + 1)) frontal[p] = 1;
    }
  }
  return frontal;
}
