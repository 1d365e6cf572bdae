/**
 * @module Binary little-endian PLY of the dense point cloud (Turk, "The PLY Polygon File
 * Format", 1994): x y z nx ny nz as float32, red green blue as uchar, 27 bytes per vertex.
 */
import type { PointCloud } from "../../scene/index.js";
import { joinChunks, recordsPerChunk } from "./chunks.js";

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

/** The vertex records of points [first, end) in one buffer. */
function plyRecords(cloud: PointCloud, first: number, end: number): Uint8Array {
  const out = new Uint8Array(RECORD_BYTES * (end - first));
  // Records are 27 bytes, so float fields are unaligned: a DataView, not a Float32Array view.
  const view = new DataView(out.buffer);
  const { positions, normals, colors } = cloud;
  for (let i = first; i < end; i++) {
    const at = (i - first) * RECORD_BYTES;
    view.setFloat32(at, positions[3 * i], true);
    view.setFloat32(at + 4, positions[3 * i + 1], true);
    view.setFloat32(at + 8, positions[3 * i + 2], true);
    view.setFloat32(at + 12, normals[3 * i], true);
    view.setFloat32(at + 16, normals[3 * i + 1], true);
    view.setFloat32(at + 20, normals[3 * i + 2], true);
    out[at + 24] = colors[3 * i];
    out[at + 25] = colors[3 * i + 1];
    out[at + 26] = colors[3 * i + 2];
  }
  return out;
}

/** The PLY as chunks: the header, then the vertex records a chunk at a time. */
export function* plyChunks(cloud: PointCloud, chunkRecords = recordsPerChunk(RECORD_BYTES)): Generator<Uint8Array> {
  yield new TextEncoder().encode(plyHeader(cloud.count));
  for (let first = 0; first < cloud.count; first += chunkRecords) yield plyRecords(cloud, first, Math.min(cloud.count, first + chunkRecords));
}

export function writePly(cloud: PointCloud): Uint8Array {
  return joinChunks(plyChunks(cloud));
}
