/**
 * @module The texture scan's z-buffer against native code (`npm run bench -- kernels`, its second
 * part; issue 42, "hot loops at the machine's speed"). A wavy ground and a wavy wall standing on
 * it, simplified to the 200,000 faces the standard preset delivers, seen obliquely by
 * a 3,072 × 2,048 camera (the size the texture stage reads a 6-MP photo at), rasterised by
 * compute/geometry/mesh-raster.ts's TypeScript row spans (rasterizeDepthSpans), by its whole-box
 * reference, by its rasterizeDepth (the stages' choice: the addon of compute/geometry/native where
 * it was built), and by bench/native/raster.c (the addon's code, gcc -O3 -march=native). The
 * buffers must agree to the bit.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { buildNative, NATIVE_OUT_DIR } from "./native/build.js";
import { projectVertices, rasterizeDepth, rasterizeDepthReference, rasterizeDepthSpans, type VertexProjection } from "../compute/geometry/mesh-raster.js";
import { nativeRaster } from "../compute/geometry/native-raster.js";
import { simplifyToBudget } from "../compute/stages/mesh/simplify.js";
import { createRng } from "../compute/math/random.js";

const WIDTH = 3072;
const HEIGHT = 2048;
/** Grid vertices per side of each of the two surfaces: 2 × 2 × 447² ≈ 799,000 faces, simplified to FACES. */
const SIDE = 448;
/** The standard preset's face budget. */
const FACES = 200_000;

/**
 * The ground (z = 0, x ∈ [−5, 5], y ∈ [2, 12]) and a wall at y = 9 up to z = 4, both wavy and
 * jittered, simplified as the mesh stage simplifies (meshoptimizer): long thin faces where the
 * surface is flat, as on a delivered mesh's walls and ground.
 */
async function scene(): Promise<{ positions: Float32Array; indices: Uint32Array }> {
  const next = createRng(3);
  const step = 10 / (SIDE - 1);
  const positions = new Float32Array(2 * SIDE * SIDE * 3);
  for (let surface = 0; surface < 2; surface++) for (let i = 0; i < SIDE; i++) for (let j = 0; j < SIDE; j++) {
    const u = -5 + (j + 0.4 * (next() - 0.5)) * step, w = (i + 0.4 * (next() - 0.5)) * step;
    const bump = 0.05 * Math.sin(3 * u) * Math.cos(2 * w);
    const at = 3 * ((surface * SIDE + i) * SIDE + j);
    if (surface === 0) positions.set([u, 2 + w, bump], at);
    else positions.set([u, 9 + bump, 0.4 * w], at);
  }
  const indices = new Uint32Array(2 * 2 * (SIDE - 1) * (SIDE - 1) * 3);
  let k = 0;
  for (let surface = 0; surface < 2; surface++) for (let i = 0; i + 1 < SIDE; i++) for (let j = 0; j + 1 < SIDE; j++) {
    const v = (surface * SIDE + i) * SIDE + j;
    indices.set([v, v + 1, v + SIDE, v + 1, v + SIDE + 1, v + SIDE], k);
    k += 6;
  }
  return (await simplifyToBudget({ positions, indices }, FACES)).mesh;
}

/** Eye height 1.7 at y = 0, looking along +y pitched 12° down (OpenCV axes: x right, y down, z forward). */
function project(positions: Float32Array): VertexProjection {
  const pitch = (12 * Math.PI) / 180;
  const forward = [0, Math.cos(pitch), -Math.sin(pitch)];
  const down = [0, -Math.sin(pitch), -Math.cos(pitch)];
  const R = Float64Array.of(1, 0, 0, down[0]!, down[1]!, down[2]!, forward[0]!, forward[1]!, forward[2]!);
  const centre = [0, 0, 1.7];
  const t = Float64Array.of(-(R[0]! * centre[0]! + R[1]! * centre[1]! + R[2]! * centre[2]!), -(R[3]! * centre[0]! + R[4]! * centre[1]! + R[5]! * centre[2]!), -(R[6]! * centre[0]! + R[7]! * centre[1]! + R[8]! * centre[2]!));
  return projectVertices(positions, { R, t }, { focal: 2400, cx: WIDTH / 2, cy: HEIGHT / 2, k1: 0, k2: 0 }, 1);
}

function bestOf(rounds: number, fn: () => Float32Array): { ms: number; zbuf: Float32Array } {
  let ms = Infinity;
  let zbuf: Float32Array = new Float32Array(0);
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    zbuf = fn();
    ms = Math.min(ms, performance.now() - t0);
  }
  return { ms, zbuf };
}

/** Pixels whose depths differ in any bit. */
function differing(a: Float32Array, b: Float32Array): number {
  const ua = new Uint32Array(a.buffer, a.byteOffset, a.length), ub = new Uint32Array(b.buffer, b.byteOffset, b.length);
  let count = 0;
  for (let i = 0; i < ua.length; i++) if (ua[i] !== ub[i]) count++;
  return count;
}

function runNative(proj: VertexProjection, indices: Uint32Array, rounds: number): { ms: number; zbuf: Float32Array } | string {
  const built = buildNative("raster");
  if ("error" in built) return built.error;
  const { binary } = built;
  const n = proj.px.length;
  const input = Buffer.alloc(16 + 12 * n + 4 * indices.length);
  input.writeUInt32LE(WIDTH, 0);
  input.writeUInt32LE(HEIGHT, 4);
  input.writeUInt32LE(n, 8);
  input.writeUInt32LE(indices.length / 3, 12);
  Buffer.from(proj.px.buffer, proj.px.byteOffset, 4 * n).copy(input, 16);
  Buffer.from(proj.py.buffer, proj.py.byteOffset, 4 * n).copy(input, 16 + 4 * n);
  Buffer.from(proj.depth.buffer, proj.depth.byteOffset, 4 * n).copy(input, 16 + 8 * n);
  Buffer.from(indices.buffer, indices.byteOffset, 4 * indices.length).copy(input, 16 + 12 * n);
  const inputFile = path.join(NATIVE_OUT_DIR, "raster-input.bin");
  const zbufFile = path.join(NATIVE_OUT_DIR, "raster-zbuf.bin");
  writeFileSync(inputFile, input);
  const ms = Number(execFileSync(binary, [inputFile, String(rounds), zbufFile], { encoding: "utf8" }).trim());
  const bytes = readFileSync(zbufFile);
  return { ms, zbuf: new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4) };
}

/** Prints the rasterisers' times and agreement. */
export async function runRasterKernel(rounds: number): Promise<void> {
  const { positions, indices } = await scene();
  const proj = project(positions);
  let covered = 0;
  const ours = bestOf(rounds, () => rasterizeDepthSpans(indices, proj, WIDTH, HEIGHT));
  for (const z of ours.zbuf) if (z !== Infinity) covered++;
  const reference = bestOf(rounds, () => rasterizeDepthReference(indices, proj, WIDTH, HEIGHT));
  const addon = nativeRaster() ? bestOf(rounds, () => rasterizeDepth(indices, proj, WIDTH, HEIGHT)) : null;
  const native = runNative(proj, indices, rounds);
  console.log(`\nthe texture scan's z-buffer: ${(indices.length / 3).toLocaleString("en")} faces (a wavy ground and a wall on it, simplified) at ${WIDTH}×${HEIGHT}, ${(covered / 1e6).toFixed(2)} M pixels covered; ${rounds} rounds, best kept`);
  console.log("| rasteriser | ms | × native | pixels differing from the TypeScript row spans |");
  console.log("|---|---|---|---|");
  const base = typeof native === "string" ? NaN : native.ms;
  const row = (name: string, ms: number, diff: string) => console.log(`| ${name} | ${ms.toFixed(1)} | ${Number.isNaN(base) ? "n/a" : (ms / base).toFixed(2)} | ${diff} |`);
  row("rasterizeDepthSpans (row spans, TypeScript)", ours.ms, "—");
  row("whole-box reference (TypeScript)", reference.ms, String(differing(reference.zbuf, ours.zbuf)));
  if (addon) row("rasterizeDepth, the stages' (the addon, compute/geometry/native/raster.c)", addon.ms, String(differing(addon.zbuf, ours.zbuf)));
  else console.log("addon row: n/a, compute/geometry/native/build/raster.node was not built");
  if (typeof native === "string") console.log(`native row: n/a, ${native}`);
  else row("bench/native/raster.c (row spans, gcc -O3 -march=native)", native.ms, String(differing(native.zbuf, ours.zbuf)));
}
