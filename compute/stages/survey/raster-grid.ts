/**
 * @module The survey's raster grid: north-up, square pixels of the ground sampling distance,
 * covering the mesh's footprint, with its corner on a multiple of the pixel size so that
 * rasters of one site from different jobs line up pixel for pixel.
 *
 * The model frame of a georeferenced job (what the pipeline hands the stage): x = easting −
 * offset[0], y = height − offset[2], z = −(northing − offset[1]), metres; +Y up, x east, z south.
 * Raster rows go north to south (row 0 at the largest northing), columns west to east, and
 * pixel (col, row) covers [originX + col·s, originX + (col+1)·s] × [originY − (row+1)·s,
 * originY − row·s] (GeoTIFF PixelIsArea), its centre at +0.5 as everywhere in this codebase.
 */
import type { Mesh } from "../../scene/index.js";

/** Easting, northing and height of the model frame's origin, in CRS units (metres). */
export type GeoOffset = readonly [number, number, number];

export interface SurveyGrid {
  /** Easting and northing of the top-left corner of the top-left pixel. */
  originX: number;
  originY: number;
  /** Pixel side, metres. */
  pixelSize: number;
  width: number;
  height: number;
}

export interface GridChoice {
  grid: SurveyGrid;
  /** The pixel size had to grow beyond the one asked for to keep the raster within maxSide. */
  coarsened: boolean;
}

/** Easting/northing extent of the mesh's vertices that belong to a face. */
function footprint(mesh: Mesh, offset: GeoOffset): { minE: number; maxE: number; minN: number; maxN: number } {
  let minX = Infinity, maxX = -Infinity, minZ = Infinity, maxZ = -Infinity;
  const { positions, indices } = mesh;
  for (let i = 0; i < 3 * mesh.faceCount; i++) {
    const v = indices[i];
    const x = positions[3 * v], z = positions[3 * v + 2];
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (z < minZ) minZ = z;
    if (z > maxZ) maxZ = z;
  }
  return { minE: minX + offset[0], maxE: maxX + offset[0], minN: offset[1] - maxZ, maxN: offset[1] - minZ };
}

/**
 * The grid of `mesh` at `pixelSize` metres, no side over `maxSide` pixels (the pixel size is
 * raised to fit, and `coarsened` says so). Throws on a mesh without faces: there is nothing to map.
 */
export function chooseGrid(mesh: Mesh, offset: GeoOffset, pixelSize: number, maxSide: number): GridChoice {
  if (!(pixelSize > 0) || !Number.isFinite(pixelSize)) throw new Error(`survey: pixel size ${pixelSize} m`);
  if (mesh.faceCount === 0) throw new Error("survey: the mesh has no faces");
  const { minE, maxE, minN, maxN } = footprint(mesh, offset);
  if (![minE, maxE, minN, maxN].every(Number.isFinite)) throw new Error("survey: the mesh has non-finite positions");
  let size = pixelSize;
  const longest = Math.max(maxE - minE, maxN - minN);
  // One pixel of margin for the snapping of the corner to the pixel grid.
  const coarsened = longest / size + 1 > maxSide;
  if (coarsened) size = longest / (maxSide - 1);
  // A footprint edge within a millionth of a pixel of a grid line counts as on it: 500010 / 0.1
  // is not exactly 5000100 in floating point, and the grid should not grow a column for that.
  const originX = Math.floor(minE / size + 1e-6) * size;
  const originY = Math.ceil(maxN / size - 1e-6) * size;
  const width = Math.max(1, Math.ceil((maxE - originX) / size - 1e-6));
  const height = Math.max(1, Math.ceil((originY - minN) / size - 1e-6));
  return { grid: { originX, originY, pixelSize: size, width, height }, coarsened };
}

/**
 * Each vertex in raster pixel coordinates (x east, y south; centres at +0.5) and its height in
 * the model frame. The CRS offsets are subtracted in float64 before the division, so a vertex
 * near (500 000, 5 200 000) keeps the precision of its local model coordinates.
 */
export interface TopViewVertices {
  px: Float64Array;
  py: Float64Array;
  /** Model-frame height (y), metres. */
  up: Float64Array;
}

export function projectTopView(mesh: Mesh, offset: GeoOffset, grid: SurveyGrid): TopViewVertices {
  const n = mesh.vertexCount;
  const px = new Float64Array(n), py = new Float64Array(n), up = new Float64Array(n);
  const shiftX = offset[0] - grid.originX; // easting of the model origin from the raster corner
  const shiftY = grid.originY - offset[1]; // northing of the raster corner from the model origin
  const inv = 1 / grid.pixelSize;
  const { positions } = mesh;
  for (let v = 0; v < n; v++) {
    px[v] = (positions[3 * v] + shiftX) * inv;
    // northing = offset[1] − z, and rows count down from originY: (originY − northing) / s.
    py[v] = (positions[3 * v + 2] + shiftY) * inv;
    up[v] = positions[3 * v + 1];
  }
  return { px, py, up };
}
