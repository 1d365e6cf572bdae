/**
 * @module Looks at a glb: splats its first mesh's vertices (with their COLOR_0, z-buffered) as
 * seen from one of its camera nodes into a PNG, so a person can check a reconstruction without
 * a 3D viewer. `npx tsx bench/look.ts <model.glb> [camera index] <out.png>`; the dense
 * benchmark calls `renderGlbView` for every set it runs.
 */
import { pathToFileURL } from "node:url";
import { NodeIO } from "@gltf-transform/core";
import { KHRMaterialsUnlit } from "@gltf-transform/extensions";
import { linearToSrgb } from "../compute/stages/export/colour-space.js";
import sharp from "sharp";

/** Renders `glbPath` from its camera node `cameraIndex` into a PNG of `width` pixels; returns the vertex count drawn. */
export async function renderGlbView(glbPath: string, cameraIndex: number, outPath: string, width = 800): Promise<number> {
  const root = (await new NodeIO().registerExtensions([KHRMaterialsUnlit]).read(glbPath)).getRoot();
  const primitive = root.listMeshes()[0]?.listPrimitives()[0];
  const positions = primitive?.getAttribute("POSITION")?.getArray();
  const colourAccessor = primitive?.getAttribute("COLOR_0");
  const cameraNode = root.listNodes().filter((n) => n.getCamera())[cameraIndex];
  if (!positions || !colourAccessor || !cameraNode) throw new Error(`look: ${glbPath} has no coloured mesh or no camera ${cameraIndex}`);
  const camera = cameraNode.getCamera()!;
  const height = Math.round(width / (camera.getAspectRatio() ?? 1.5));
  const focalPx = height / 2 / Math.tan(camera.getYFov() / 2);
  // Column-major worldFromCam; a glTF camera looks down its local −Z with +Y up.
  const m = cameraNode.getWorldMatrix();
  const colours = colourAccessor.getArray()!;
  const colourSize = colourAccessor.getElementSize();
  // COLOR_0 is linear (glTF 2.0): unsigned bytes, unsigned shorts (both normalized) or floats
  // in [0, 1], encoded to sRGB for the PNG.
  const toUnit = colours instanceof Uint8Array ? 1 / 255 : colours instanceof Uint16Array ? 1 / 65535 : 1;
  const image = new Uint8Array(width * height * 3).fill(255);
  const nearest = new Float32Array(width * height).fill(Infinity);
  let drawn = 0;
  for (let i = 0; i < positions.length / 3; i++) {
    const dx = positions[3 * i] - m[12], dy = positions[3 * i + 1] - m[13], dz = positions[3 * i + 2] - m[14];
    // camFromWorld rotation = transpose of worldFromCam's rotation columns.
    const x = dx * m[0] + dy * m[1] + dz * m[2];
    const y = dx * m[4] + dy * m[5] + dz * m[6];
    const depth = -(dx * m[8] + dy * m[9] + dz * m[10]);
    if (depth <= 1e-6) continue;
    const u = Math.round(width / 2 + (focalPx * x) / depth);
    const v = Math.round(height / 2 - (focalPx * y) / depth);
    if (u < 0 || v < 0 || u >= width || v >= height || depth >= nearest[v * width + u]) continue;
    nearest[v * width + u] = depth;
    for (let a = 0; a < 3; a++) image[3 * (v * width + u) + a] = Math.round(255 * linearToSrgb(colours[colourSize * i + a] * toUnit));
    drawn++;
  }
  await sharp(Buffer.from(image), { raw: { width, height, channels: 3 } }).png().toFile(outPath);
  return drawn;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const [file, cameraArg, outPath] = process.argv.length > 4 ? process.argv.slice(2) : [process.argv[2], "0", process.argv[3]];
  const drawn = await renderGlbView(file, Number(cameraArg), outPath);
  console.log(`look: ${drawn} vertices drawn into ${outPath}`);
}
