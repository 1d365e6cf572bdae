/** @module Dense outputs: depth maps, point clouds, meshes. */

export interface DepthMap {
  viewIndex: number;
  width: number;
  height: number;
  /** Depth along the camera z axis per pixel (0 = unknown), row-major. */
  depth: Float32Array;
  /** Unit normal per pixel in the camera frame (length 3·w·h). */
  normal: Float32Array;
  /** Photometric confidence per pixel in [0, 1]. */
  confidence: Float32Array;
  /** Intrinsics of this (undistorted, possibly downscaled) map. */
  focal: number;
  cx: number;
  cy: number;
}

/**
 * A view's own filtered depth, coarse: the nearest depth per cell of a grid `scale` photo pixels
 * square over the photo, in the registered view's pinhole frame (its focal, cx, cy, without
 * distortion), 0 where the view measured none. What the view itself saw, where the fused cloud
 * also holds what other views saw behind a surface this one could not measure.
 */
export interface ViewDepth {
  viewIndex: number;
  width: number;
  height: number;
  /** Photo pixels per cell. */
  scale: number;
  depth: Float32Array;
}

export interface PointCloud {
  count: number;
  positions: Float32Array; // 3·count
  colors: Uint8Array; // 3·count RGB
  normals: Float32Array; // 3·count, unit
}

export interface Mesh {
  vertexCount: number;
  faceCount: number;
  positions: Float32Array; // 3·vertexCount
  colors: Uint8Array; // 3·vertexCount RGB
  normals: Float32Array; // 3·vertexCount, unit
  indices: Uint32Array; // 3·faceCount, counter-clockwise seen from outside
}

/** One texture page: 8-bit sRGB RGB texels, row-major, top row first (glTF's UV origin). */
export interface TexturePage {
  width: number;
  height: number;
  rgb: Uint8Array;
}

/**
 * A mesh with a photo texture atlas. Vertices are split where a chart boundary runs, so each
 * vertex has one UV and belongs to the faces of one page. Faces that no photo sees belong to
 * no page (`facePage` = pages.length) and carry only their vertex colours; the vertex colours
 * of textured faces are the photos' colours too, for formats and readers without textures.
 */
export interface TexturedMesh {
  mesh: Mesh;
  /** u, v per vertex in [0, 1]; v = 0 is the page's top row (glTF convention). */
  uvs: Float32Array;
  /** Which page each face samples; `pages.length` for untextured faces. */
  facePage: Uint16Array;
  /** Which registered view (index into the views) textures each face; −1 for untextured faces. */
  faceView: Int32Array;
  pages: TexturePage[];
}
