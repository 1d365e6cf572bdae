/**
 * @module `npm run bench -- stress [scene...] [--width=W] [--optimum]`: the camera stress scenes
 * of test/compute/sfm/stress.test.ts, with every camera's error printed, each recorded scene
 * checked against the suite's bounds (test/support/stress-verdict.ts; the test runs only some
 * scenes), and exit code 1 when one breaks them. Writes the rendered photos to
 * bench-out/stress/<scene>/ for a look. `--optimum` also adjusts the model's observations from
 * the true cameras (optimum.ts) and prints how far that optimum is from the truth and our model
 * from the optimum: the photos' share of the error and the pipeline's.
 */
import path from "node:path";
import { renderStressScene, STRESS_SCENES, type StressSceneName } from "../test/support/stress-scenes.js";
import { runSfmOnViews } from "../test/support/sfm-run.js";
import { writeViewsAsImages } from "../test/support/render.js";
import { STRESS_RECORDED, STRESS_WIDTH, stressVerdict, type StressRecord } from "../test/support/stress-verdict.js";
import { observationsOptimum } from "./optimum.js";
import type { CameraAccuracy } from "../compute/stages/sfm/accuracy.js";

function figures(a: CameraAccuracy): string {
  return `rotation median ${a.medianRotationErrorDeg.toFixed(3)}° max ${a.maxRotationErrorDeg.toFixed(3)}°, centre median ${a.medianCenterErrorPercent.toFixed(3)} % max ${a.maxCenterErrorPercent.toFixed(3)} %`;
}

function verdictLine(record: StressRecord | undefined, broken: string[]): string {
  if (!record) return "no recorded bounds at this size";
  if (broken.length > 0) return `BREAKS the suite's bounds: ${broken.join("; ")}`;
  const recorded = record.registered === 0 ? "refused" : `≥ ${record.registered} registered`;
  const rotation = record.maxRotationDeg === undefined ? "" : `, within ${record.maxRotationDeg}°`;
  return `holds the suite's bounds (${recorded}${rotation}, ${record.inTests ? "also in npm test" : "bench only"})`;
}

export async function run(args: string[]): Promise<void> {
  const asked = args.find((a) => a.startsWith("--width="));
  const picked = args.filter((a) => (STRESS_SCENES as readonly string[]).includes(a)) as StressSceneName[];
  for (const name of picked.length > 0 ? picked : STRESS_SCENES) {
    // Without --width each scene runs at the size its bounds were recorded at (the courtyard at 640).
    const width = asked ? Number(asked.slice(8)) : (STRESS_RECORDED.find((r) => r.scene === name)?.width ?? STRESS_WIDTH);
    const started = performance.now();
    const scene = renderStressScene(name, { width, height: Math.round((width * 3) / 4), seed: 5 });
    await writeViewsAsImages(scene.views, path.join("bench-out", "stress", name));
    const renderS = (performance.now() - started) / 1000;
    const outcome = await runSfmOnViews(scene.views, scene.truthNames, scene.sceneRadius).catch((err: unknown) => err as Error);
    // The bounds hold at their recorded size only; at another --width the figures are printed alone.
    const record = STRESS_RECORDED.find((r) => r.scene === name && (r.width ?? STRESS_WIDTH) === width);
    const broken = record ? stressVerdict(record, outcome) : [];
    const verdict = verdictLine(record, broken);
    if (broken.length > 0) process.exitCode = 1;
    if (outcome instanceof Error) {
      console.log(`\n${name}: refused or failed in ${((performance.now() - started) / 1000).toFixed(1)} s: ${outcome.message}\n  ${verdict}`);
      continue;
    }
    const { result, accuracy, registeredWithoutTruth } = outcome;
    const a = accuracy;
    console.log(`\n${name}: ${result.model.views.length}/${scene.views.length} registered (render ${renderS.toFixed(1)} s, total ${((performance.now() - started) / 1000).toFixed(1)} s); rotation median ${a.medianRotationErrorDeg.toFixed(3)}° max ${a.maxRotationErrorDeg.toFixed(3)}°, centre median ${a.medianCenterErrorPercent.toFixed(3)} % max ${a.maxCenterErrorPercent.toFixed(3)} %`);
    if (registeredWithoutTruth.length > 0) console.log(`  registered photos of another scene: ${registeredWithoutTruth.join(", ")}`);
    console.log(`  ${verdict}`);
    for (const c of a.perCamera) console.log(`  ${c.name.padEnd(16)} rot ${c.rotationErrorDeg.toFixed(3)}°  centre ${c.centerErrorPercent.toFixed(3)} %`);
    for (const img of result.report.perImage ?? []) {
      const r = img as { name: string; registered: boolean; reason?: string; focalPx?: number; registeredBy?: string; reprojectionRmsPx?: number };
      console.log(r.registered ? `  ${r.name.padEnd(16)} by ${r.registeredBy} f=${r.focalPx?.toFixed(1)} rms=${r.reprojectionRmsPx?.toFixed(3)}` : `  ${r.name.padEnd(16)} unregistered: ${r.reason}`);
    }
    console.log(`  warnings: ${result.report.warnings.join(" | ") || "none"}; final BA ${JSON.stringify(result.report.finalBundleAdjustment)}`);
    if (args.includes("--optimum")) {
      const truth = scene.views.filter((v) => scene.truthNames.has(v.name)).map((v) => ({ name: `${v.name}.jpg`, camFromWorld: { R: v.R, t: v.t }, focal: v.K[0], cx: v.K[2], cy: v.K[5] }));
      const optimum = observationsOptimum(result.model, outcome.features, truth, scene.sceneRadius);
      if (optimum === null) console.log("  optimum: not measured (fewer than 3 cameras, or a registered photo without a true camera)");
      else {
        console.log(`  optimum of the observations from the true cameras: RMS ${optimum.truthRmsPx.toFixed(3)} px at the truth → ${optimum.optimumRmsPx.toFixed(3)} px; against the truth ${figures(optimum.optimumVsTruth)}`);
        console.log(`  our model against that optimum: ${figures(optimum.modelVsOptimum)}`);
      }
    }
  }
}
