/**
 * @module Bundle adjustment benchmark: `npx tsx bench/ba.ts [cameras] [points]` (defaults 100
 * cameras, 30,000 points, ~5 views per point ≈ 150,000 observations) on a seeded synthetic
 * ring scene perturbed by 1° / 2% / 5% focal; prints size, iterations, wall time and RMSE.
 * Also `run(args)` for bench/index.ts.
 */
import { pathToFileURL } from "node:url";
import { run as runBA } from "../compute/stages/ba/index.js";
import { makeScene, perturbedCopy } from "../test/compute/ba/synthetic-scene.js";
import { cameraErrors } from "../test/compute/ba/alignment.js";

export async function run(args: string[]): Promise<void> {
  const cameras = Number(args[0] ?? 100);
  const points = Number(args[1] ?? 30_000);
  const scene = makeScene({ cameras, points, minViews: 3, maxViews: 7, seed: 7 });
  const problem = perturbedCopy(scene, { seed: 8 });
  const p = scene.truth;
  console.log(`ba bench: ${p.cameraCount} cameras, ${p.pointCount} points, ${p.observationCount} observations, noise ${scene.spec.noisePx} px`);
  for (const loss of ["cauchy", "squared"] as const) {
    const copy = { ...problem, poses: problem.poses.slice(), intrinsics: problem.intrinsics.slice(), points: problem.points.slice() };
    const report = runBA(copy, { loss });
    const errors = cameraErrors(copy, scene.truth);
    const focalErrorPct = (100 * Math.abs(copy.intrinsics[0] - p.intrinsics[0])) / p.intrinsics[0];
    console.log(
      `loss=${loss} solver=${report.linearSolver} iterations=${report.iterations} (accepted ${report.counts.acceptedSteps}) ` +
        `wall=${report.wallMs.toFixed(0)} ms rmse ${report.initialRmsePx.toFixed(3)} -> ${report.finalRmsePx.toFixed(3)} px ` +
        `termination=${report.termination} maxRotErr=${errors.maxRotationDeg.toFixed(4)}° maxCenterErr=${errors.maxCenterError.toExponential(2)} ` +
        `focalErr=${focalErrorPct.toFixed(3)}%`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  run(process.argv.slice(2)).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
