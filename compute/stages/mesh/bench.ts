/**
 * @module Benchmark of the mesh stage on the synthetic sets' ground-truth surface samples
 * (200,000 points with normals each, ../shared/datasets beside the checkout):
 * `npx tsx compute/stages/mesh/bench.ts [faceBudget] [set...]`. Prints wall time, face count,
 * accuracy (distance from face centroids to the true surface samples) and completeness
 * (share of true samples within τ = 1% of the scene radius of the mesh surface, sampled at
 * about 8 points per τ² of face area).
 * The set's true cameras and photos are passed in, so the timing includes colouring the
 * vertices from the photos; colours are not judged (the samples have none).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ImageRef, PointCloud, RegisteredView } from "../../scene/index.js";
import { PointGrid } from "./point-grid.js";
import { run } from "./index.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const datasets = path.resolve(repoRoot, "../shared/datasets");

/** Reads the datasets' binary PLY of x y z nx ny nz float32 vertices. */
async function readSurfacePly(file: string): Promise<PointCloud> {
  const bytes = await readFile(file);
  const end = bytes.indexOf("end_header\n");
  const header = bytes.subarray(0, end).toString("latin1");
  const count = Number(/element vertex (\d+)/.exec(header)?.[1] ?? 0);
  if (!header.includes("binary_little_endian") || (header.match(/property float/g) ?? []).length !== 6) {
    throw new Error(`mesh bench: ${file} is not x y z nx ny nz float32 binary PLY`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset + end + "end_header\n".length, 24 * count);
  const cloud: PointCloud = { count, positions: new Float32Array(3 * count), normals: new Float32Array(3 * count), colors: new Uint8Array(3 * count) };
  for (let i = 0; i < count; i++) {
    for (let a = 0; a < 3; a++) {
      cloud.positions[3 * i + a] = view.getFloat32(24 * i + 4 * a, true);
      cloud.normals[3 * i + a] = view.getFloat32(24 * i + 12 + 4 * a, true);
    }
  }
  return cloud;
}

function percentile(values: Float64Array, q: number): number {
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

interface TrueCameras {
  scene: { radius: number };
  images: Array<{ file: string; width: number; height: number; K: number[][]; R: number[][]; t: number[] }>;
}

function trueViews(cameras: TrueCameras, imageDir: string): { views: RegisteredView[]; images: ImageRef[] } {
  const views: RegisteredView[] = [];
  const images: ImageRef[] = [];
  cameras.images.forEach((camera, index) => {
    const intrinsics = { width: camera.width, height: camera.height, focal: camera.K[0][0], cx: camera.K[0][2], cy: camera.K[1][2], k1: 0, k2: 0 };
    views.push({ imageIndex: index, name: camera.file, intrinsics, camFromWorld: { R: new Float64Array(camera.R.flat()), t: new Float64Array(camera.t) } });
    images.push({ index, name: camera.file, path: path.join(imageDir, camera.file), width: camera.width, height: camera.height, focalPrior: intrinsics.focal, focalPriorSource: "default" });
  });
  return { views, images };
}

/** Points on the faces, about one per `areaPerSample`, on a barycentric lattice per face. */
function sampleSurface(p: Float32Array, indices: Uint32Array, areaPerSample: number): Float32Array {
  const out: number[] = [];
  for (let f = 0; f < indices.length; f += 3) {
    const [a, b, c] = [3 * indices[f], 3 * indices[f + 1], 3 * indices[f + 2]];
    const ab = [0, 1, 2].map((k) => p[b + k] - p[a + k]);
    const ac = [0, 1, 2].map((k) => p[c + k] - p[a + k]);
    const area = 0.5 * Math.hypot(ab[1] * ac[2] - ab[2] * ac[1], ab[2] * ac[0] - ab[0] * ac[2], ab[0] * ac[1] - ab[1] * ac[0]);
    // m(m+1)/2 lattice points for m levels; m² ≈ 2·area/areaPerSample.
    const m = Math.max(1, Math.ceil(Math.sqrt((2 * area) / areaPerSample)));
    for (let u = 0; u <= m; u++) {
      for (let v = 0; u + v <= m; v++) {
        for (let k = 0; k < 3; k++) out.push(p[a + k] + (u / m) * ab[k] + (v / m) * ac[k]);
      }
    }
  }
  return Float32Array.from(out);
}

async function benchSet(name: string, faceBudget: number): Promise<void> {
  const gt = path.join(datasets, "synthetic", name, "gt");
  const cloud = await readSurfacePly(path.join(gt, "surface.ply"));
  const scene = JSON.parse(await readFile(path.join(gt, "cameras.json"), "utf8")) as TrueCameras;
  const tau = 0.01 * scene.scene.radius;
  const { views, images } = trueViews(scene, path.join(datasets, "synthetic", name, "images"));
  const started = performance.now();
  const { mesh, report } = await run({ cloud, views, images }, { faceBudget });
  const wallMs = performance.now() - started;
  const truth = new PointGrid(cloud.positions, cloud.count, tau);
  const distances = new Float64Array(mesh.faceCount);
  for (let f = 0; f < mesh.faceCount; f++) {
    const c = [0, 1, 2].map((a) => (mesh.positions[3 * mesh.indices[3 * f] + a] + mesh.positions[3 * mesh.indices[3 * f + 1] + a] + mesh.positions[3 * mesh.indices[3 * f + 2] + a]) / 3);
    distances[f] = Math.sqrt(truth.nearestDistance2(c[0], c[1], c[2], 10 * tau));
  }
  const samples = sampleSurface(mesh.positions, mesh.indices, tau * tau / 8);
  const vertices = new PointGrid(samples, samples.length / 3, tau);
  let covered = 0;
  for (let i = 0; i < cloud.count; i++) {
    if (vertices.hasPointWithin(cloud.positions[3 * i], cloud.positions[3 * i + 1], cloud.positions[3 * i + 2], tau)) covered++;
  }
  console.log(JSON.stringify({
    set: name, faceBudget, wallMs: Math.round(wallMs), faces: mesh.faceCount, vertices: mesh.vertexCount,
    voxelSize: report.counts.voxelSize, tau, coloredFromPhotos: report.counts.verticesColoredFromImages, normalsFlipped: report.counts.normalsFlipped,
    accuracyMedianOverTau: percentile(distances, 0.5) / tau, accuracyP95OverTau: percentile(distances, 0.95) / tau,
    completeness: covered / cloud.count,
    phasesMs: Object.fromEntries(Object.entries(report.counts).filter(([k]) => k.startsWith("ms_"))), rssMiB: Math.round(process.memoryUsage().rss / 2 ** 20),
  }));
}

async function main(): Promise<void> {
  const budget = Number(process.argv[2] ?? 200_000);
  const sets = process.argv.slice(3);
  for (const name of sets.length > 0 ? sets : ["object-ring", "facade"]) await benchSet(name, budget);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
