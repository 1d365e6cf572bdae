/**
 * The dense bench's visibility of points against the true mesh (bench/seen-truth.ts): a floor
 * point in the open is seen, one under a box standing on the floor is not, each point counts the
 * cameras that see it (the truth's samples need two), and the PLY reader
 * reads the datasets' binary meshes (float vertices with colours, polygons as fans).
 */
import { describe, expect, it } from "vitest";
import { readTrueMesh, seenByCameras, type SeeingCamera } from "../../bench/seen-truth.js";

/** A binary little-endian PLY: float x, y, z and uchar r, g, b per vertex; uchar count + int32 indices per face. */
function ply(positions: number[], faces: number[][]): Buffer {
  const header = `ply\nformat binary_little_endian 1.0\nelement vertex ${positions.length / 3}\nproperty float x\nproperty float y\nproperty float z\nproperty uchar red\nproperty uchar green\nproperty uchar blue\nelement face ${faces.length}\nproperty list uchar int vertex_indices\nend_header\n`;
  const body = Buffer.alloc((positions.length / 3) * 15 + faces.reduce((sum, f) => sum + 1 + 4 * f.length, 0));
  let at = 0;
  for (let v = 0; v < positions.length / 3; v++) {
    for (let a = 0; a < 3; a++) { body.writeFloatLE(positions[3 * v + a], at); at += 4; }
    body.writeUInt8(200, at++); body.writeUInt8(200, at++); body.writeUInt8(200, at++);
  }
  for (const f of faces) {
    body.writeUInt8(f.length, at++);
    for (const i of f) { body.writeInt32LE(i, at); at += 4; }
  }
  return Buffer.concat([Buffer.from(header, "latin1"), body]);
}

describe("bench/seen-truth", () => {
  // A floor (z = 0, quads) and a closed box of side 0.4 standing on it at the origin.
  const floor = [-2, -2, 0, 2, -2, 0, 2, 2, 0, -2, 2, 0];
  const box: number[] = [];
  for (const z of [0, 0.4]) for (const [x, y] of [[-0.2, -0.2], [0.2, -0.2], [0.2, 0.2], [-0.2, 0.2]]) box.push(x, y, z);
  const b = (i: number) => 4 + i;
  const faces = [[0, 1, 2, 3], [b(0), b(3), b(2), b(1)], [b(4), b(5), b(6), b(7)], [b(0), b(1), b(5), b(4)], [b(1), b(2), b(6), b(5)], [b(2), b(3), b(7), b(6)], [b(3), b(0), b(4), b(7)]];
  const mesh = readTrueMesh(ply([...floor, ...box], faces));
  // Looking straight down from 3 units above the origin (camera y along world −y, z along world −z).
  const above: SeeingCamera = { K: [[400, 0, 200], [0, 400, 200], [0, 0, 1]], R: Float64Array.of(1, 0, 0, 0, -1, 0, 0, 0, -1), t: Float64Array.of(0, 0, 3), width: 400, height: 400 };

  it("reads the quads as two triangles each", () => {
    expect(mesh.positions.length).toBe(3 * 12);
    expect(mesh.indices.length).toBe(3 * 2 * faces.length);
  });

  it("sees the floor in the open and the box's top, not the floor under the box", () => {
    const points = Float64Array.of(1, 1, 0, 0.05, -0.05, 0, 0, 0, 0.4, 0, 0, 0.39);
    expect(Array.from(seenByCameras(points, mesh, [above], 0.02))).toEqual([1, 0, 1, 1]);
    // A point 0.1 inside the box's top is behind it by more than the tolerance.
    expect(Array.from(seenByCameras(Float64Array.of(0, 0, 0.3), mesh, [above], 0.02))).toEqual([0]);
  });

  it("counts the cameras that see a point: the box hides the floor behind it from a camera at its side", () => {
    // At (−3, 0, 1), looking along +x (camera x along world −y, y along world −z), wide enough to see the floor; the floor is seen at 18–27°, hence the looser tolerance.
    const side: SeeingCamera = { K: [[100, 0, 200], [0, 100, 200], [0, 0, 1]], R: Float64Array.of(0, -1, 0, 0, 0, -1, 1, 0, 0), t: Float64Array.of(0, 1, 3), width: 400, height: 400 };
    // In the open at (1, 1): both cameras. Behind the box from the side (x = 0.5, y = 0): the camera above only.
    const points = Float64Array.of(-1, 1, 0, 0.5, 0, 0);
    expect(Array.from(seenByCameras(points, mesh, [above, side], 0.1))).toEqual([2, 1]);
  });
});
