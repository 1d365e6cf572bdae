/**
 * @module The similarity that carries a reference camera (published, or from a sparse run) into
 * the model the pipeline delivered, fitted on the scene (track-alignment.ts): the model's sparse
 * points, read from its COLMAP export, against their tracks triangulated through the reference
 * cameras.
 *
 * Why not the cameras: a render from the reference camera shows the model's surface, so the
 * surfaces must be what is aligned. Camera centres alone leave an arc of cameras at eye height
 * free to tilt about its chord (rendered/courtyard: 0.56°, 7 px at the render's size, where the
 * orientations agree within 0.02–0.16° each); the orientations instead carry the difference
 * between the pipeline's self-calibration and the reference's (a principal point a few pixels
 * off turns every camera alike), which tilts the model against the reference's surface
 * (fountain-P11: 27.26 → 26.69 dB).
 */
import { unzipSync } from "fflate";
import type { RobustSimilarity } from "../compute/geometry/similarity.js";
import { cornerOriginK, fitOnTracks, type ReferenceCamera, type Track } from "./track-alignment.js";
import { parseCamerasTxt, type TrueCamera } from "./views-reference.js";

interface ModelImage {
  name: string;
  cameraId: string;
  /** (x, y) per 2-D point, corner-origin pixels of the model camera's size. */
  xy: Float64Array;
}

/** images.txt: each image's camera and its 2-D points, by COLMAP image id. */
function parseObservations(text: string): Map<string, ModelImage> {
  // Two lines per image, the second (its 2-D points) empty when it has none.
  const lines = text.split("\n").filter((l) => !l.startsWith("#"));
  const images = new Map<string, ModelImage>();
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim().length === 0) continue;
    const f = lines[i].trim().split(/\s+/);
    const values = (lines[++i] ?? "").trim().split(/\s+/).filter((v) => v.length > 0).map(Number);
    const xy = new Float64Array((2 * values.length) / 3);
    for (let k = 0; 3 * k + 1 < values.length; k++) {
      xy[2 * k] = values[3 * k];
      xy[2 * k + 1] = values[3 * k + 1];
    }
    images.set(f[0], { name: f.slice(9).join(" "), cameraId: f[8], xy });
  }
  return images;
}

/** A reference camera with its principal point in corner-origin pixels (`pixelCentreOffset` added). */
function reference(cam: TrueCamera, pixelCentreOffset: number): ReferenceCamera {
  return { K: cornerOriginK(cam.K, pixelCentreOffset), pose: { R: Float64Array.from(cam.R), t: Float64Array.from(cam.t) }, radial: cam.radial };
}

/**
 * The similarity x_model = s·R·x_reference + t fitted on the model's sparse points (the COLMAP
 * export `colmapZip`) and their tracks triangulated through `reference`; null when fewer than
 * 20 points are seen well by two reference cameras.
 */
export function structureAlignment(colmapZip: Uint8Array, cameras: TrueCamera[], pixelCentreOffset: number): (RobustSimilarity & { points: number }) | null {
  const zip = unzipSync(colmapZip);
  const text = (name: string) => new TextDecoder().decode(zip[name]);
  const modelCameras = parseCamerasTxt(text("cameras.txt"));
  // images.txt lists the registered images only: each has its pose.
  const images = parseObservations(text("images.txt"));
  const byName = new Map(cameras.map((c) => [c.file, { cam: c, ref: reference(c, pixelCentreOffset) }]));
  const tracks: Track[] = [];
  for (const line of text("points3D.txt").split("\n")) {
    if (line.length === 0 || line.startsWith("#")) continue;
    const f = line.trim().split(/\s+/).map(Number);
    const track: Track = { xyz: [f[1], f[2], f[3]], cameras: [], pixels: [] };
    for (let k = 8; k + 1 < f.length; k += 2) {
      const image = images.get(String(f[k]));
      const seen = image && byName.get(image.name);
      if (!image || !seen) continue;
      // The model's keypoints, in the reference camera's pixels (both corner-origin).
      const s = seen.cam.width / (modelCameras.get(image.cameraId)?.width ?? seen.cam.width);
      track.pixels.push(s * image.xy[2 * f[k + 1]], s * image.xy[2 * f[k + 1] + 1]);
      track.cameras.push(seen.ref);
    }
    tracks.push(track);
  }
  return fitOnTracks(tracks);
}
