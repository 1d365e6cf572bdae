/** @module Independent readers for the downloadable files (what a client's tools would use). */
import { parse } from "@loaders.gl/core";
import { LAZRsLoader } from "@loaders.gl/las";
import { OBJLoader } from "@loaders.gl/obj";
import { unzipSync } from "fflate";
import { PLYLoader } from "@loaders.gl/ply";
import { withFileFetch } from "../support/file-fetch.js";
import validator from "gltf-validator";

export interface FileCheck {
  format: string;
  ok: boolean;
  detail: string;
  count: number;
}

type LoadedMesh = { header?: { vertexCount?: number }; attributes: Record<string, { value: ArrayLike<number> }> };

export async function checkFile(format: string, bytes: Uint8Array): Promise<FileCheck> {
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  switch (format) {
    case "glb":
    case "gltf": {
      const report = (await validator.validateBytes(bytes, { maxIssues: 100 })) as { issues: { numErrors: number; messages: Array<{ code: string; message: string; severity: number }> } };
      const errors = report.issues.messages.filter((m) => m.severity === 0);
      return { format, ok: report.issues.numErrors === 0, detail: errors.slice(0, 3).map((m) => `${m.code}: ${m.message}`).join("; "), count: report.issues.numErrors };
    }
    case "ply": {
      const mesh = (await parse(buffer, PLYLoader)) as unknown as LoadedMesh;
      const n = mesh.attributes.POSITION.value.length / 3;
      return { format, ok: n > 0 && allFinite(mesh.attributes.POSITION.value), detail: `${n} points`, count: n };
    }
    case "las": {
      // LAZRsLoader reads LAS 1.4 (LASLoader stops at 1.3); it fetches its wasm by file: URL.
      const mesh = (await withFileFetch(() => parse(buffer, LAZRsLoader, { worker: false, las: { fp64: true } } as never))) as unknown as LoadedMesh;
      const n = mesh.attributes.POSITION.value.length / 3;
      return { format, ok: n > 0 && allFinite(mesh.attributes.POSITION.value), detail: `${n} points`, count: n };
    }
    case "obj": {
      // The OBJ download is a zip: model.obj, model.mtl and the texture pages.
      const files = unzipSync(bytes);
      if (!files["model.obj"] || !files["model.mtl"]) return { format, ok: false, detail: `zip holds ${Object.keys(files).join(", ")}`, count: 0 };
      const objBytes = files["model.obj"];
      const mesh = (await parse(objBytes.buffer.slice(objBytes.byteOffset, objBytes.byteOffset + objBytes.byteLength) as ArrayBuffer, OBJLoader)) as unknown as LoadedMesh;
      const n = mesh.attributes.POSITION.value.length / 3;
      return { format, ok: n > 0 && allFinite(mesh.attributes.POSITION.value), detail: `${n} vertices`, count: n };
    }
    case "stl":
      return checkStl(bytes);
    case "colmap":
      return checkColmap(bytes);
    case "transforms":
      return checkTransforms(bytes);
    default:
      return { format, ok: false, detail: "unknown format", count: 0 };
  }
}


/** Binary STL: 80-byte header, uint32 triangle count, 50 bytes per triangle. */
function checkStl(bytes: Uint8Array): FileCheck {
  if (bytes.byteLength < 84) return { format: "stl", ok: false, detail: "shorter than the header", count: 0 };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.getUint32(80, true);
  if (bytes.byteLength !== 84 + 50 * count) return { format: "stl", ok: false, detail: `size ${bytes.byteLength} does not match ${count} triangles`, count };
  for (let i = 0; i < count; i++) {
    for (let k = 0; k < 12; k++) if (!Number.isFinite(view.getFloat32(84 + 50 * i + 4 * k, true))) return { format: "stl", ok: false, detail: `non-finite value in triangle ${i}`, count };
  }
  return { format: "stl", ok: count > 0, detail: `${count} triangles`, count };
}

/** COLMAP text model: the three files, one image line pair per image, every number finite. */
function checkColmap(bytes: Uint8Array): FileCheck {
  const files = unzipSync(bytes);
  const names = Object.keys(files).sort().join(", ");
  if (names !== "cameras.txt, images.txt, points3D.txt") return { format: "colmap", ok: false, detail: `zip holds ${names}`, count: 0 };
  const data = (name: string) => new TextDecoder().decode(files[name]).split("\n").filter((l) => !l.startsWith("#"));
  const imageLines = data("images.txt");
  const cameras = data("cameras.txt").filter((l) => l.trim() !== "");
  const images = imageLines.filter((_, i) => i % 2 === 0 && imageLines[i]!.trim() !== "");
  const poseNumbers = images.flatMap((l) => l.trim().split(/\s+/).slice(1, 8).map(Number));
  const ok = cameras.length > 0 && images.length === cameras.length && allFinite(poseNumbers);
  return { format: "colmap", ok, detail: `${cameras.length} cameras, ${images.length} images`, count: images.length };
}

/** nerfstudio transforms.json: frames with a file path and a finite 4×4 matrix whose last row is 0 0 0 1. */
function checkTransforms(bytes: Uint8Array): FileCheck {
  const doc = JSON.parse(new TextDecoder().decode(bytes)) as { fl_x?: number; frames?: { file_path?: string; transform_matrix?: number[][] }[] };
  const frames = doc.frames ?? [];
  const ok = typeof doc.fl_x === "number" && frames.length > 0 && frames.every((f) =>
    typeof f.file_path === "string" && f.transform_matrix?.length === 4 && allFinite(f.transform_matrix.flat()) && f.transform_matrix[3]!.join(" ") === "0 0 0 1");
  return { format: "transforms", ok, detail: `${frames.length} frames`, count: frames.length };
}

function allFinite(values: ArrayLike<number>): boolean {
  for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i])) return false;
  return true;
}
