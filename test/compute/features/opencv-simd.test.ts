/**
 * The SIMD build of OpenCV.js committed in compute/stages/features/opencv-simd (selected by
 * OPENCV_SIMD=1) against npm's @techstark/opencv-js, which the pipeline uses by default: AKAZE on
 * the same textured image must give the same keypoints, in the same order, within a hundredth of
 * a pixel, and all but at most 1 % of them the same orientation (within a hundredth of a degree)
 * and a bit-identical descriptor (its README's figures).
 */
import { describe, expect, it } from "vitest";
import { createRng } from "../../../compute/math/random.js";
import { loadNpmBuild, loadSimdBuild, type CV } from "../../../compute/stages/features/opencv.js";

/** A 640 × 480 grey image of random blobs and edges, the same for both builds. */
function texture(): Uint8Array {
  const width = 640, height = 480;
  const grey = new Uint8Array(width * height).fill(128);
  const rng = createRng(7);
  for (let k = 0; k < 400; k++) {
    const cx = rng() * width, cy = rng() * height, r = 3 + rng() * 14, value = Math.floor(rng() * 256);
    for (let y = Math.max(0, Math.floor(cy - r)); y < Math.min(height, cy + r); y++) {
      for (let x = Math.max(0, Math.floor(cx - r)); x < Math.min(width, cx + r); x++) if ((x - cx) ** 2 + (y - cy) ** 2 <= r * r) grey[y * width + x] = value;
    }
  }
  return grey;
}

function detect(cv: CV, grey: Uint8Array): { points: number[][]; descriptors: Uint8Array } {
  const image = new cv.Mat(480, 640, cv.CV_8UC1);
  image.data.set(grey);
  const akaze = new cv.AKAZE();
  akaze.setThreshold(0.001);
  akaze.setNOctaveLayers(4);
  const keypoints = new cv.KeyPointVector(), descriptors = new cv.Mat(), mask = new cv.Mat();
  try {
    akaze.detectAndCompute(image, mask, keypoints, descriptors);
    const points = [];
    for (let i = 0; i < keypoints.size(); i++) {
      const k = keypoints.get(i);
      points.push([k.pt.x, k.pt.y, k.size, k.angle]);
    }
    return { points, descriptors: Uint8Array.from(descriptors.data) };
  } finally {
    for (const obj of [image, akaze, keypoints, descriptors, mask]) obj.delete();
  }
}

describe("the SIMD build of OpenCV.js", () => {
  it("detects npm's build's AKAZE keypoints with the same descriptors", async () => {
    const grey = texture();
    const expected = detect((await loadNpmBuild()).cv, grey);
    const simd = detect((await loadSimdBuild()).cv, grey);
    expect(expected.points.length).toBeGreaterThan(200);
    expect(simd.points.length).toBe(expected.points.length);
    let turned = 0;
    simd.points.forEach((p, i) => {
      const q = expected.points[i];
      expect(Math.hypot(p[0] - q[0], p[1] - q[1])).toBeLessThan(0.01);
      expect(Math.abs(p[2] - q[2])).toBeLessThan(0.01);
      if (Math.abs(((p[3] - q[3] + 540) % 360) - 180) > 0.01) turned++;
    });
    // A rare keypoint's orientation differs by a fraction of a degree (one of 200–1,500 on this
    // image and on real photos), and its descriptor, sampled along it, with it.
    const rowBytes = simd.descriptors.length / simd.points.length;
    let differentRows = 0;
    for (let i = 0; i < simd.points.length; i++) {
      if (!Buffer.from(simd.descriptors.subarray(i * rowBytes, (i + 1) * rowBytes)).equals(Buffer.from(expected.descriptors.subarray(i * rowBytes, (i + 1) * rowBytes)))) differentRows++;
    }
    console.log(`opencv-simd: ${simd.points.length} keypoints, ${turned} turned by more than 0.01°, ${differentRows} descriptors differ`);
    expect(turned).toBeLessThanOrEqual(0.01 * simd.points.length);
    expect(differentRows).toBeLessThanOrEqual(0.01 * simd.points.length);
  }, 120_000);
});
