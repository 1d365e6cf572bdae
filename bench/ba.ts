/**
 * @module Bundle adjustment benchmark: `npx tsx bench/ba.ts [cameras] [points] [--pcg|--dense] [--cauchy]`
 * (defaults 100 cameras, 30,000 points, ~5 views per point ≈ 150,000 observations) on a
 * seeded synthetic ring scene perturbed by 1° / 2% / 5% focal / k1 = 0; prints size,
 * iterations, wall and CPU time (they differ when other processes share the cores), RMSE
 * and pose errors. `--pcg` / `--dense` force the reduced solver (else the default
 * threshold picks), `--cauchy` skips the squared-loss run, `--threads=1,2` runs each loss on
 * each of those thread counts (solvers/bundle-adjustment/team.ts; 0 = every core; default 1).
 * Also `run(args)` for bench/index.ts.
 */
import { pathToFileURL } from "node:url";
import { run as runBA } from "../compute/solvers/bundle-adjustment/index.js";
import { makeScene, perturbedCopy } from "../test/compute/solvers/bundle-adjustment/synthetic-scene.js";
import { cameraErrors } from "../test/compute/solvers/bundle-adjustment/alignment.js";

export async function run(args: string[]): Promise<void> {
  const positional = args.filter((a) => !a.startsWith("--"));
  const cameras = Number(positional[0] ?? 100);
  const points = Number(positional[1] ?? 30_000);
  const solverOverride = args.includes("--pcg") ? { denseSchurMaxCameras: 0, bandedDenseMaxCost: 0 } : args.includes("--dense") ? { denseSchurMaxCameras: Infinity } : {};
  const losses = args.includes("--cauchy") ? (["cauchy"] as const) : (["cauchy", "squared"] as const);
  const threadCounts = (args.find((a) => a.startsWith("--threads="))?.slice("--threads=".length) ?? "1").split(",").map(Number);
  const scene = makeScene({ cameras, points, minViews: 3, maxViews: 7, seed: 7 });
  const problem = perturbedCopy(scene, { seed: 8 });
  const p = scene.truth;
  console.log(`ba bench: ${p.cameraCount} cameras, ${p.pointCount} points, ${p.observationCount} observations, noise ${scene.spec.noisePx} px`);
  for (const loss of losses) for (const threads of threadCounts) {
    const copy = { ...problem, poses: problem.poses.slice(), intrinsics: problem.intrinsics.slice(), points: problem.points.slice() };
    const cpuBefore = process.cpuUsage();
    const report = runBA(copy, { loss, threads, ...solverOverride });
    const cpu = process.cpuUsage(cpuBefore);
    const errors = cameraErrors(copy, scene.truth);
    const focalErrorPct = (100 * Math.abs(copy.intrinsics[0] - p.intrinsics[0])) / p.intrinsics[0];
    console.log(
      `loss=${loss} threads=${report.counts.threads} solver=${report.linearSolver} iterations=${report.iterations} (accepted ${report.counts.acceptedSteps}) ` +
        `wall=${report.wallMs.toFixed(0)} ms cpu=${((cpu.user + cpu.system) / 1000).toFixed(0)} ms ` +
        `pcgIterations=${report.counts.pcgIterations} rmse ${report.initialRmsePx.toFixed(3)} -> ${report.finalRmsePx.toFixed(3)} px ` +
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
