/**
 * @module Front-of-pipeline benchmark: wall time of ingest, features and matching on one
 * dataset (default ../shared/datasets/real/fountain-P11, 11 images 3072×2048), with keypoint,
 * pair, inlier and track counts. `npx tsx bench/front.ts [set or file] [--max-side N] [--features N]`
 * (e.g. `synthetic/orbit-video/orbit.mp4`),
 * or `npm run bench -- front`.
 */
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as features from "../compute/stages/features/index.js";
import * as ingest from "../compute/stages/ingest/index.js";
import * as matching from "../compute/stages/matching/index.js";

const repoRoot = resolve(fileURLToPath(import.meta.url), "../..");
const datasets = resolve(repoRoot, "../shared/datasets");

function flag(args: string[], name: string): number | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : undefined;
}

export async function run(args: string[]): Promise<void> {
  const set = args.find((a) => !a.startsWith("--") && !/^\d+$/.test(a)) ?? "real/fountain-P11";
  // A set is a folder (its images/ subfolder when there is one) or a single file such as a video.
  const target = join(datasets, set);
  const isFile = (await stat(target)).isFile();
  const folder = isFile ? dirname(target) : (await stat(join(target, "images")).catch(() => null)) ? join(target, "images") : target;
  const names = isFile ? [basename(target)] : (await readdir(folder)).filter((n) => /\.(jpe?g|png|heic|mp4|mov)$/i.test(n)).sort();
  const workDir = await mkdtemp(join(tmpdir(), "bench-front-"));
  try {
    // CPU seconds (all threads of this process) as well as wall time: the machine may be shared.
    const cpu = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1e3;
    };
    const c0 = cpu();
    const t0 = performance.now();
    const ingested = await ingest.run({ files: names.map((name) => ({ path: join(folder, name), name })), workDir });
    const t1 = performance.now();
    const c1 = cpu();
    const detected = await features.run({ images: ingested.images }, { maxImageSide: flag(args, "--max-side") ?? features.DEFAULTS.maxImageSide, maxFeatures: flag(args, "--features") ?? features.DEFAULTS.maxFeatures });
    const t2 = performance.now();
    const c2 = cpu();
    const matched = await matching.run({ images: ingested.images, features: detected.features });
    const t3 = performance.now();
    const c3 = cpu();
    const s = (ms: number) => (ms / 1000).toFixed(2);
    console.log(`set ${set}: ${ingested.images.length} images (${ingested.images[0]?.width}×${ingested.images[0]?.height})`);
    if (ingested.images[0]?.video) console.log(`keyframes ${ingested.images.map((im) => im.video?.frame).join(" ")}`);
    console.log(`ingest   wall ${s(t1 - t0)} s  cpu ${s(c1 - c0)} s`);
    console.log(`features wall ${s(t2 - t1)} s  cpu ${s(c2 - c1)} s  keypoints/image ${detected.report.counts.meanKeypoints.toFixed(0)}  workers ${detected.report.counts.workers}`);
    console.log(`matching wall ${s(t3 - t2)} s  cpu ${s(c3 - c2)} s  ${JSON.stringify(matched.report.counts)}`);
    console.log(`features+matching wall ${s(t3 - t1)} s  cpu ${s(c3 - c1)} s  (load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores)`);
    for (const w of matched.report.warnings) console.log(`warning: ${w}`);
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  run(process.argv.slice(2)).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
