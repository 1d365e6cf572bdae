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
