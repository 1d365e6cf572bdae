/**
 * @module Binary little-endian PLY of the dense point cloud (Turk, "The PLY Polygon File
 * Format", 1994): x y z nx ny nz as float32, red green blue as uchar, 27 bytes per vertex.
 */
import type { PointCloud } from "../../scene/index.js";

/** Bytes of one vertex record: 6 float32 + 3 uchar. */
const RECORD_BYTES = 27;

export function plyHeader(count: number): string {
  return [
    "ply",
    "format binary_little_endian 1.0",
    "comment photogrammetry-service dense point cloud; right-handed, +Y up, model units",
    `element vertex ${count}`,
    "property float x",
    "property float y",
    "property float z",
    "property float nx",
    "property float ny",
    "property float nz",
    "property uchar red",
    "property uchar green",
    "property uchar blue",
    "end_header",
    "",
  ].join("\n");
}

export function writePly(cloud: PointCloud): Uint8Array {
  const header = new TextEncoder().encode(plyHeader(cloud.count));
  const out = new Uint8Array(header.length + RECORD_BYTES * cloud.count);
  out.set(header, 0);
  // Records are 27 bytes, so float fields are unaligned: a DataView, not a Float32Array view.
  const view = new DataView(out.buffer, header.length);
  const { positions, normals, colors } = cloud;
  for (let i = 0; i < cloud.count; i++) {
    const at = i * RECORD_BYTES;
    view.setFloat32(at, positions[3 * i], true);
    view.setFloat32(at + 4, positions[3 * i + 1], true);
    view.setFloat32(at + 8, positions[3 * i + 2], true);
    view.setFloat32(at + 12, normals[3 * i], true);
    view.setFloat32(at + 16, normals[3 * i + 1], true);
    view.setFloat32(at + 20, normals[3 * i + 2], true);
    view.setUint8(at + 24, colors[3 * i]);
    view.setUint8(at + 25, colors[3 * i + 1]);
    view.setUint8(at + 26, colors[3 * i + 2]);
  }
  return out;
}
