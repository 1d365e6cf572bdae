/**
 * Benchmark of the geometry solvers on synthetic scenes (not part of `npm test`):
 *   npx tsx test/compute/geometry/bench.ts
 * Prints one line per solver: wall time and accuracy against the known ground truth.
 */
import { estimateEssential, fivePoint, recoverPose } from "../../../compute/geometry/essential.js";
import { estimateFundamental } from "../../../compute/geometry/fundamental.js";
import { estimateHomography } from "../../../compute/geometry/homography.js";
import { estimatePnp, p3p } from "../../../compute/geometry/pnp.js";
import { rotationAngleDeg } from "../../../compute/geometry/rotation.js";
import { KdTree } from "../../../compute/math/kdtree.js";
import { createRng } from "../../../compute/math/random.js";
import { angleBetweenDeg, twoViewScene } from "./synthetic.js";

const focal = 1500;
const count = 2000;
const robust = { confidence: 0.9999, maxIterations: 5000 };

function timed<T>(fn: () => T): [T, number] {
  const start = performance.now();
  const value = fn();
  return [value, performance.now() - start];
}

function perCall(label: string, calls: number, fn: (i: number) => unknown): void {
  const [, ms] = timed(() => {
    for (let i = 0; i < calls; i++) fn(i);
  });
  console.log(`${label}: ${((ms * 1000) / calls).toFixed(1)} µs/call`);
}

const scene = twoViewScene(createRng(1), count, { focal, noisePx: 1, outlierRatio: 0.5 });
perCall("fivePoint", 2000, (i) => fivePoint(scene.x1.subarray(2 * (i % 300), 2 * (i % 300) + 10), scene.x2.subarray(2 * (i % 300), 2 * (i % 300) + 10)));
perCall("p3p", 20000, (i) => {
  const k = i % 600;
  const b = new Float64Array(9);
  for (let j = 0; j < 3; j++) {
    const x = scene.x2[2 * (k + j)], y = scene.x2[2 * (k + j) + 1];
    const n = Math.hypot(x, y, 1);
    b.set([x / n, y / n, 1 / n], 3 * j);
  }
  return p3p(b, scene.points3d.subarray(3 * k, 3 * k + 9));
});

const [essential, essentialMs] = timed(() => estimateEssential(scene.x1, scene.x2, count, { ...robust, thresholdPx: 2, focal, rng: createRng(2) })!);
const pose = recoverPose(essential.E, scene.x1, scene.x2, count, essential.inliers);
console.log(`estimateEssential ${count} pts, 1 px noise, 50% outliers: ${essentialMs.toFixed(0)} ms, inliers ${essential.inlierCount}, rotation error ${rotationAngleDeg(pose.R, scene.pose.R).toFixed(3)}°, t error ${angleBetweenDeg(pose.t, scene.pose.t).toFixed(3)}°`);

const pixels = (xy: Float64Array): Float64Array => xy.map((v, i) => focal * v + (i % 2 === 0 ? 960 : 540));
const [fundamental, fundamentalMs] = timed(() => estimateFundamental(pixels(scene.x1), pixels(scene.x2), count, { ...robust, thresholdPx: 2, rng: createRng(3) })!);
console.log(`estimateFundamental ${count} pts: ${fundamentalMs.toFixed(0)} ms, inliers ${fundamental.inlierCount}`);

const planar = twoViewScene(createRng(4), count, { focal, noisePx: 1, outlierRatio: 0.5, planar: true });
const [homography, homographyMs] = timed(() => estimateHomography(pixels(planar.x1), pixels(planar.x2), count, { ...robust, thresholdPx: 3, rng: createRng(5) })!);
console.log(`estimateHomography ${count} pts (planar): ${homographyMs.toFixed(0)} ms, inliers ${homography.inlierCount}`);

const [pnp, pnpMs] = timed(() => estimatePnp(scene.x2, scene.points3d, count, { ...robust, thresholdPx: 4, focal, rng: createRng(6) })!);
console.log(`estimatePnp ${count} pts, 50% outliers: ${pnpMs.toFixed(0)} ms, inliers ${pnp.inlierCount}, rotation error ${rotationAngleDeg(pnp.camFromWorld.R, scene.pose.R).toFixed(4)}°`);

const rng = createRng(7);
const cloud = new Float32Array(3 * 1_000_000).map(() => rng());
const [tree, buildMs] = timed(() => new KdTree(cloud));
const [, nearestMs] = timed(() => {
  for (let i = 0; i < 100_000; i++) tree.nearest(rng(), rng(), rng());
});
const [, radiusMs] = timed(() => {
  for (let i = 0; i < 100_000; i++) tree.radiusSearch(rng(), rng(), rng(), 0.01);
});
console.log(`KdTree 1M points: build ${buildMs.toFixed(0)} ms, 100k nearest ${nearestMs.toFixed(0)} ms, 100k radius(0.01) ${radiusMs.toFixed(0)} ms`);
