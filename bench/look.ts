/**
 * @module Looks at a glb: splats its mesh vertices (with their colours, z-buffered) as seen from
 * one of its camera nodes into a PNG, so a person can check a reconstruction without a viewer.
 * `npx tsx bench/look.ts <model.glb> [camera index] <out.png>`
 */
import { NodeIO } from "@gltf-transform/core";
import sharp from "sharp";
const io = new NodeIO();
const [file, cameraArg, outPath] = process.argv.length > 4 ? process.argv.slice(2) : [process.argv[2], "0", process.argv[3]];
const doc = await io.read(file);
const root = doc.getRoot();
const prim = root.listMeshes()[0].listPrimitives()[0];
const pos = prim.getAttribute("POSITION")!.getArray()!;
const col = prim.getAttribute("COLOR_0")!;
const camNodes = root.listNodes().filter((n) => n.getCamera());
const node = camNodes[Number(cameraArg)];
const m = node.getWorldMatrix(); // column-major worldFromCam (glTF camera: -Z forward, +Y up)
const W = 800, H = Math.round(800 / (node.getCamera()!.getAspectRatio() ?? 1.5));
const f = (H / 2) / Math.tan(node.getCamera()!.getYFov() / 2);
const img = new Uint8Array(W * H * 3).fill(255); const zb = new Float32Array(W * H).fill(Infinity);
const c = [m[12], m[13], m[14]];
const colours = col.getArray()!;
const colourSize = col.getElementSize();
// COLOR_0 may be unsigned bytes, unsigned shorts (both normalized) or floats in [0, 1].
const toByte = colours instanceof Uint8Array ? 1 : colours instanceof Uint16Array ? 1 / 257 : 255;
for (let i = 0; i < pos.length / 3; i++) {
  const d = [pos[3*i]-c[0], pos[3*i+1]-c[1], pos[3*i+2]-c[2]];
  // cam coords: x = R^T d where R columns are m[0..2], m[4..6], m[8..10]
  const x = d[0]*m[0]+d[1]*m[1]+d[2]*m[2], y = d[0]*m[4]+d[1]*m[5]+d[2]*m[6], z = d[0]*m[8]+d[1]*m[9]+d[2]*m[10];
  if (z >= -1e-6) continue;
  const u = Math.round(W/2 + f * x / -z), v = Math.round(H/2 - f * y / -z);
  if (u < 0 || v < 0 || u >= W || v >= H) continue;
  if (-z < zb[v*W+u]) { zb[v*W+u] = -z; for (let a = 0; a < 3; a++) img[3 * (v * W + u) + a] = Math.round(colours[colourSize * i + a] * toByte); }
}
await sharp(Buffer.from(img), { raw: { width: W, height: H, channels: 3 } }).png().toFile(outPath);
console.log(camNodes.length, "cameras;", pos.length / 3, "vertices; wrote", process.argv[4]);
