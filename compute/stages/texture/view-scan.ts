/**
 * @module What each photo can give each face: the faces a view sees (z-buffered against the
 * mesh itself), a data term measuring how well it sees them, and the face's mean colour there.
 *
 * The data term is Waechter, Moehrle and Goesele's gradient magnitude integral ("Let There Be
 * Color!", ECCV 2014, §4.1): the sum of the image's gradient magnitude over the face's
 * projection. It grows with the face's projected size (close, frontal views) and with the
 * photo's sharpness there (a blurred or downscaled view has weaker gradients). We approximate
 * the integral by projected area × the mean gradient magnitude at the corners and centroid,
 * plus a small floor so that a textureless face still prefers its largest projection, and
 * weigh it by |cos θ|² between the face's normal and the ray (Options.frontalPower): the integral
 * alone barely falls as a surface turns away from a view, because foreshortening packs its texture
 * into fewer pixels and raises their gradients by about 1 / cos θ while the area shrinks by cos θ.
 * One cos θ undoes that rise; the other turns the projected area (σ_max·σ_min of the face's
 * projection) into σ_min², the resolution along the face's worst direction, which is what a view
 * from elsewhere sees of it (docs/decisions.md, "The texture's data term prefers frontal views").
 */
import type { Mesh, RegisteredView } from "../../scene/index.js";
import { projectVertices, rasterizeDepth, sampleRgb, type VertexProjection } from "../../geometry/mesh-raster.js";

/** One view's observations of the faces it sees. */
export interface ViewObservations {
  /** Index into the views array. */
  view: number;
  faces: Uint32Array;
  /** Data term per seen face (larger is better). */
  quality: Float32Array;
  /** Mean RGB (0–255, sRGB) of the face in this photo, 3 per seen face. */
  colours: Float32Array;
  /**
   * Per seen face, why this view is only a fallback for it (0 when it is not): GRAZING, seen more
   * obliquely than minCosine, and/or PARTIAL, a corner outside the frame. A fallback is kept only
   * for faces that no view sees better: whole and at minCosine, then whole (dropFallbacks).
   */
  fallback: Uint8Array;
}

export interface ScanOptions {
  /** A face is seen when its corners and centroid lie within this depth of the z-buffer, in model units. */
  depthTolerance: number;
  /** Faces seen more obliquely than this |cosine| are not textured from this view… */
  minCosine: number;
  /** …unless no view sees them better: then views down to this |cosine| may (ground seen from eye height). */
  grazingMinCosine: number;
  /** Pixels kept clear of the image border (bilinear taps and padding stay inside). */
  borderPixels: number;
  /** The data term is multiplied by |cos θ| to this power (the texture stage's Options.frontalPower). */
  frontalPower: number;
}

/** Per-face unit normal (unnormalised winding ignored: |cos| is used) and centroid. */
export function faceGeometry(mesh: Mesh): { normals: Float32Array; centroids: Float32Array } {
  const normals = new Float32Array(3 * mesh.faceCount);
  const centroids = new Float32Array(3 * mesh.faceCount);
  const p = mesh.positions;
  for (let f = 0; f < mesh.faceCount; f++) {
    const a = 3 * mesh.indices[3 * f], b = 3 * mesh.indices[3 * f + 1], c = 3 * mesh.indices[3 * f + 2];
    const ux = p[b] - p[a], uy = p[b + 1] - p[a + 1], uz = p[b + 2] - p[a + 2];
    const vx = p[c] - p[a], vy = p[c + 1] - p[a + 1], vz = p[c + 2] - p[a + 2];
    const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    const len = Math.hypot(nx, ny, nz) || 1;
    normals[3 * f] = nx / len; normals[3 * f + 1] = ny / len; normals[3 * f + 2] = nz / len;
    for (let k = 0; k < 3; k++) centroids[3 * f + k] = (p[a + k] + p[b + k] + p[c + k]) / 3;
  }
  return { normals, centroids };
}

/** Luma of pixel i of an RGB image (0–255), as a float32. */
function lumaAt(rgb: Uint8Array, i: number): number {
  return Math.fround(0.299 * rgb[3 * i] + 0.587 * rgb[3 * i + 1] + 0.114 * rgb[3 * i + 2]);
}

/**
 * Gradient magnitude (central differences on luma, 0–255 scale) at pixel (x, y) of an RGB image,
 * 0 on the image's border, as a float32. Read where the scan samples it (four points per face)
 * rather than made for every pixel: a map of a 6-MP photo cost two fresh 25-MB arrays and a
 * pass over every pixel per view, for some 800,000 reads at 200,000 faces.
 */
export function gradientAt(rgb: Uint8Array, width: number, height: number, x: number, y: number): number {
  if (x < 1 || y < 1 || x >= width - 1 || y >= height - 1) return 0;
  const i = y * width + x;
  const gx = (lumaAt(rgb, i + 1) - lumaAt(rgb, i - 1)) / 2, gy = (lumaAt(rgb, i + width) - lumaAt(rgb, i - width)) / 2;
  return Math.fround(Math.hypot(gx, gy));
}

/** A photo decoded at the texture stage's working scale. */
export interface LoadedPhoto {
  rgb: Uint8Array;
  width: number;
  height: number;
  /** Image pixels per pixel of the view's intrinsics. */
  scale: number;
}

/** Gradient floor (luma units) so a face on a flat wall still ranks views by projected area. */
const GRADIENT_FLOOR = 2;

/** Fallback reasons (ViewObservations.fallback), as bits. */
export const GRAZING = 1;
export const PARTIAL = 2;

/**
 * How far past the frame a PARTIAL face's corners may reach, as a share of the photo's long side.
 * A chart's rectangle in the atlas spans its faces' projections, so a corner near the camera's plane
 * (thousands of pixels out) would claim atlas space, and the atlas's scale, for texels that only
 * repeat the frame's edge.
 */
export const PARTIAL_REACH = 0.125;

function insideFrame(x: number, y: number, width: number, height: number, border: number): boolean {
  return x >= border && y >= border && x <= width - border && y <= height - border;
}

function inside(proj: VertexProjection, v: number, width: number, height: number, border: number): boolean {
  return proj.depth[v] > 0 && insideFrame(proj.px[v], proj.py[v], width, height, border);
}

/** Observations of every face by one view, from its photo. */
export function scanView(mesh: Pick<Mesh, "positions" | "indices" | "faceCount">, faces: { normals: Float32Array; centroids: Float32Array }, view: RegisteredView, viewIndex: number, photo: LoadedPhoto, options: ScanOptions): ViewObservations {
  const { width, height, rgb } = photo;
  const proj = projectVertices(mesh.positions, view.camFromWorld, view.intrinsics, photo.scale);
  const zbuf = rasterizeDepth(mesh.indices, proj, width, height);
  const { R, t } = view.camFromWorld;
  const centre = [-(R[0] * t[0] + R[3] * t[1] + R[6] * t[2]), -(R[1] * t[0] + R[4] * t[1] + R[7] * t[2]), -(R[2] * t[0] + R[5] * t[1] + R[8] * t[2])];
  // Typed scratch of the largest possible size, trimmed at the end: per candidate 20 bytes
  // instead of the 40 of plain number arrays (a capture of many photos has millions).
  const seen = new Uint32Array(mesh.faceCount);
  const quality = new Float32Array(mesh.faceCount);
  const colours = new Float32Array(3 * mesh.faceCount);
  const fallback = new Uint8Array(mesh.faceCount);
  let count = 0;
  const texel = new Float64Array(3);
  const border = options.borderPixels;
  const visibleAt = (x: number, y: number, z: number): boolean => z <= zbuf[Math.min(height - 1, Math.floor(y)) * width + Math.min(width - 1, Math.floor(x))] + options.depthTolerance;
  // A corner outside the frame is not looked up: the z-buffer holds nothing there.
  const cornerVisible = (v: number): boolean => !insideFrame(proj.px[v], proj.py[v], width, height, border) || visibleAt(proj.px[v], proj.py[v], proj.depth[v]);
  const at = (x: number, y: number): number => gradientAt(rgb, width, height, Math.floor(x), Math.floor(y));
  const reach = -PARTIAL_REACH * Math.max(width, height);
  const withinReach = (v: number): boolean => insideFrame(proj.px[v], proj.py[v], width, height, reach);
  for (let f = 0; f < mesh.faceCount; f++) {
    const a = mesh.indices[3 * f], b = mesh.indices[3 * f + 1], c = mesh.indices[3 * f + 2];
    if (!(proj.depth[a] > 0 && proj.depth[b] > 0 && proj.depth[c] > 0)) continue;
    const gx = (proj.px[a] + proj.px[b] + proj.px[c]) / 3, gy = (proj.py[a] + proj.py[b] + proj.py[c]) / 3;
    // A face whose centroid is in the frame but a corner is not is a fallback (PARTIAL): its texels
    // past the edge repeat the edge's pixels (paint.ts clamps), which beats no texture where no
    // photo frames the face whole, e.g. ground at the frames' bottom edges.
    const whole = inside(proj, a, width, height, border) && inside(proj, b, width, height, border) && inside(proj, c, width, height, border);
    if (!whole && (!insideFrame(gx, gy, width, height, border) || !withinReach(a) || !withinReach(b) || !withinReach(c))) continue;
    const dx = centre[0] - faces.centroids[3 * f], dy = centre[1] - faces.centroids[3 * f + 1], dz = centre[2] - faces.centroids[3 * f + 2];
    const cosine = Math.abs(faces.normals[3 * f] * dx + faces.normals[3 * f + 1] * dy + faces.normals[3 * f + 2] * dz) / Math.hypot(dx, dy, dz);
    if (cosine < Math.min(options.minCosine, options.grazingMinCosine)) continue;
    const gz = 3 / (1 / proj.depth[a] + 1 / proj.depth[b] + 1 / proj.depth[c]);
    if (!visibleAt(gx, gy, gz) || !cornerVisible(a) || !cornerVisible(b) || !cornerVisible(c)) continue;
    const area = Math.abs((proj.px[b] - proj.px[a]) * (proj.py[c] - proj.py[a]) - (proj.py[b] - proj.py[a]) * (proj.px[c] - proj.px[a])) / 2;
    const sharpness = (at(gx, gy) + at(proj.px[a], proj.py[a]) + at(proj.px[b], proj.py[b]) + at(proj.px[c], proj.py[c])) / 4;
    seen[count] = f;
    fallback[count] = (cosine < options.minCosine ? GRAZING : 0) | (whole ? 0 : PARTIAL);
    quality[count] = Math.max(area, 0.25) * (sharpness + GRADIENT_FLOOR) * cosine ** options.frontalPower;
    // Mean colour: centroid and the three points halfway to the corners.
    sampleRgb(rgb, width, height, gx, gy, texel);
    let r = texel[0], g = texel[1], bl = texel[2];
    for (let k = 0; k < 3; k++) {
      const v = k === 0 ? a : k === 1 ? b : c;
      sampleRgb(rgb, width, height, (gx + proj.px[v]) / 2, (gy + proj.py[v]) / 2, texel);
      r += texel[0]; g += texel[1]; bl += texel[2];
    }
    colours[3 * count] = r / 4; colours[3 * count + 1] = g / 4; colours[3 * count + 2] = bl / 4;
    count++;
  }
  return { view: viewIndex, faces: seen.slice(0, count), quality: quality.slice(0, count), colours: colours.slice(0, 3 * count), fallback: fallback.slice(0, count) };
}

/**
 * Drops every fallback observation (grazing, or partly outside the frame) of a face that some view
 * sees whole and at minCosine or better, and every partial one of a face that some view sees whole
 * at all, so fallbacks only texture what nothing else shows: a grazing view's whole face before a
 * frontal view's face cut by its frame, whose texels past the edge repeat the edge's pixels (on
 * SceauxCastle's held-back view, 0.07 dB less when both were fallbacks of one rank). Returns how
 * many fallback observations were kept.
 */
export function dropFallbacks(observations: ViewObservations[], faceCount: number): { observations: ViewObservations[]; kept: number } {
  // Per face, the best rank any view gives it: 2 whole and well, 1 whole but grazing, 0 neither.
  const best = new Uint8Array(faceCount);
  const rank = (flags: number): number => (flags & PARTIAL ? 0 : flags & GRAZING ? 1 : 2);
  for (const o of observations) for (let k = 0; k < o.faces.length; k++) best[o.faces[k]] = Math.max(best[o.faces[k]], rank(o.fallback[k]));
  let kept = 0;
  const out = observations.map((o) => {
    const keeps = (k: number): boolean => !o.fallback[k] || rank(o.fallback[k]) >= best[o.faces[k]];
    let count = 0;
    for (let k = 0; k < o.faces.length; k++) {
      if (!keeps(k)) continue;
      count++;
      if (o.fallback[k]) kept++;
    }
    if (count === o.faces.length) return o;
    // Typed copies in one pass (a subarray per kept face cost ~0.5 s on 200k faces × 7 photos).
    const faces = new Uint32Array(count), quality = new Float32Array(count), colours = new Float32Array(3 * count), fallback = new Uint8Array(count);
    for (let k = 0, i = 0; k < o.faces.length; k++) {
      if (!keeps(k)) continue;
      faces[i] = o.faces[k];
      quality[i] = o.quality[k];
      colours[3 * i] = o.colours[3 * k];
      colours[3 * i + 1] = o.colours[3 * k + 1];
      colours[3 * i + 2] = o.colours[3 * k + 2];
      fallback[i] = o.fallback[k];
      i++;
    }
    return { view: o.view, faces, quality, colours, fallback };
  });
  return { observations: out, kept };
}
