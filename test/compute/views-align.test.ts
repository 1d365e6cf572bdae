/**
 * The views bench's alignment (bench/views-align.ts): the model's sparse points against their
 * tracks triangulated through the reference cameras give back the similarity between the two
 * frames, with the reference's principal point given in either pixel convention.
 */
import { zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { structureAlignment } from "../../bench/views-align.js";
import type { TrueCamera } from "../../bench/views-reference.js";

/** Rotation about the unit axis by angle (radians), row-major. */
function rotation(axis: number[], angle: number): number[] {
  const [x, y, z] = axis.map((a) => a / Math.hypot(...axis));
  const c = Math.cos(angle), s = Math.sin(angle), C = 1 - c;
  return [c + x * x * C, x * y * C - z * s, x * z * C + y * s, y * x * C + z * s, c + y * y * C, y * z * C - x * s, z * x * C - y * s, z * y * C + x * s, c + z * z * C];
}
const mul = (A: number[], v: number[]) => [0, 1, 2].map((r) => A[3 * r] * v[0] + A[3 * r + 1] * v[1] + A[3 * r + 2] * v[2]);
const mulMat = (A: number[], B: number[]) => [0, 1, 2].flatMap((r) => [0, 1, 2].map((c) => A[3 * r] * B[c] + A[3 * r + 1] * B[3 + c] + A[3 * r + 2] * B[6 + c]));
const transpose = (A: number[]) => [A[0], A[3], A[6], A[1], A[4], A[7], A[2], A[5], A[8]];

/** COLMAP's (w, x, y, z) of a rotation (trace > 0 here). */
function quaternion(R: number[]): number[] {
  const w = Math.sqrt(1 + R[0] + R[4] + R[8]) / 2;
  return [w, (R[7] - R[5]) / (4 * w), (R[2] - R[6]) / (4 * w), (R[3] - R[1]) / (4 * w)];
}

describe("bench/views-align", () => {
  it("recovers the similarity from the model's tracks, the reference's pixels in OpenCV's convention", () => {
    const width = 800, height = 600, focal = 700;
    // Reference cameras on an arc looking at the origin from −z.
    const reference: TrueCamera[] = [-0.3, -0.1, 0.1, 0.3].map((yaw, k) => {
      const R = rotation([0, 1, 0], yaw);
      const C = mul(transpose(R), [0, 0, -5]);
      return { file: `p${k}.jpg`, width, height, K: [[focal, 0, width / 2 - 0.5], [0, focal, height / 2 - 0.5], [0, 0, 1]], R, t: mul(R, C).map((v) => -v) };
    });
    // The model's frame: x_model = s·Rs·x_ref + ts.
    const Rs = rotation([1, 2, 0.5], 0.7), s = 2.5, ts = [1, -2, 0.5];
    let state = 11;
    const random = () => ((state = (state * 1103515245 + 12345) >>> 0) / 4294967296) * 2 - 1;
    const points = Array.from({ length: 300 }, () => [random(), random(), random()]);
    const observations: number[][][] = reference.map(() => []);
    const pointLines = points.map((X, p) => {
      const track: number[] = [];
      reference.forEach((cam, i) => {
        const x = mul(cam.R, X).map((v, a) => v + cam.t[a]);
        // Corner-origin pixels (the project's and COLMAP's convention): OpenCV's + ½.
        observations[i].push([focal * x[0] / x[2] + width / 2, focal * x[1] / x[2] + height / 2, p]);
        track.push(i + 1, observations[i].length - 1);
      });
      const Xm = mul(Rs, X).map((v, a) => s * v + ts[a]);
      return `${p} ${Xm.join(" ")} 128 128 128 0.5 ${track.join(" ")}`;
    });
    const imageLines = reference.flatMap((cam, i) => {
      const Rm = mulMat(cam.R, transpose(Rs));
      const Cm = mul(Rs, mul(transpose(cam.R), cam.t).map((v) => -v)).map((v, a) => s * v + ts[a]);
      const tm = mul(Rm, Cm).map((v) => -v);
      return [`${i + 1} ${[...quaternion(Rm), ...tm].join(" ")} 1 ${cam.file}`, observations[i].map((o) => o.join(" ")).join(" ")];
    });
    const enc = (t: string) => new TextEncoder().encode(t);
    const colmap = (modelWidth: number, images: string[]) => zipSync({
      "cameras.txt": enc(`# cameras\n1 PINHOLE ${modelWidth} ${(modelWidth * height) / width} 1 1 1 1\n`),
      "images.txt": enc(`# images\n${images.join("\n")}\n`),
      "points3D.txt": enc(`# points\n${pointLines.join("\n")}\n`),
    });
    const expectRecovered = (aligned: ReturnType<typeof structureAlignment>) => {
      expect(aligned?.points).toBe(300);
      expect(aligned!.s).toBeCloseTo(s, 6);
      aligned!.t.forEach((v, a) => expect(v).toBeCloseTo(ts[a], 5));
      Array.from(aligned!.R).forEach((v, k) => expect(v).toBeCloseTo(Rs[k], 6));
    };
    expectRecovered(structureAlignment(colmap(width, imageLines), reference, 0.5));
    // A model whose photos were read at half the size: its keypoints are scaled to the reference's pixels.
    const halved = imageLines.map((line, k) => (k % 2 === 1 ? line.split(" ").map((v, j) => (j % 3 === 2 ? v : String(Number(v) / 2))).join(" ") : line));
    expectRecovered(structureAlignment(colmap(width / 2, halved), reference, 0.5));
    // Read without the half-pixel offset, every reference ray turns by half a pixel: the fit moves.
    const turned = structureAlignment(colmap(width, imageLines), reference, 0)!;
    expect(Math.hypot(...Array.from(turned.t).map((v, a) => v - ts[a]))).toBeGreaterThan(1e-3);
  });
});
