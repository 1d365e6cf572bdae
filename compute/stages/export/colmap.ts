/**
 * @module COLMAP's text model of the result: a zip of `cameras.txt`, `images.txt` and
 * `points3D.txt` (colmap.github.io/format.html), so Gaussian-splatting and NeRF tools that
 * start from a COLMAP sparse model start from our cameras.
 *
 * The frame is the other formats' (right-handed, +Y up, model units): COLMAP's pose is
 * `cam_from_world` with OpenCV camera axes, which is exactly a view's `camFromWorld`, so the
 * rotation and translation are written as they are (no axis flip, unlike the glTF nodes).
 * Pixel coordinates also agree: COLMAP puts the top-left image corner at (0, 0) and the centre
 * of the top-left pixel at (0.5, 0.5), as this pipeline does.
 *
 * Camera model: the pipeline's is COLMAP's RADIAL (f, cx, cy, k1, k2); a camera without
 * distortion is written as PINHOLE (fx = fy = f), which splatting code requires.
 *
 * The pipeline does not carry the keypoints to the export stage, so each image's POINTS2D are
 * the projections of the 3D points it observes (through the same camera model); they differ
 * from the detected keypoints by the reprojection error that points3D.txt states per point.
 */
import { zipSync } from "fflate";
import { foldOf } from "../../geometry/camera.js";
import type { RegisteredView, SparsePoints } from "../../scene/index.js";
import { quaternionFromMatrix } from "./camera-nodes.js";

const encoder = new TextEncoder();

/** Pixel position of world point (x, y, z) in `view`, or null behind the camera or past its lens's fold. */
export function projectPoint(view: RegisteredView, x: number, y: number, z: number): [number, number] | null {
  const { R, t } = view.camFromWorld;
  const cx = R[0] * x + R[1] * y + R[2] * z + t[0];
  const cy = R[3] * x + R[4] * y + R[5] * z + t[1];
  const cz = R[6] * x + R[7] * y + R[8] * z + t[2];
  if (cz <= 0) return null;
  const u = cx / cz;
  const v = cy / cz;
  const r2 = u * u + v * v;
  const { focal, k1, k2 } = view.intrinsics;
  if (r2 >= foldOf(k1, k2)) return null;
  const d = 1 + k1 * r2 + k2 * r2 * r2;
  return [focal * d * u + view.intrinsics.cx, focal * d * v + view.intrinsics.cy];
}

export function colmapCamerasTxt(views: RegisteredView[]): string {
  const lines = ["# Camera list with one line of data per camera:", "#   CAMERA_ID, MODEL, WIDTH, HEIGHT, PARAMS[]", `# Number of cameras: ${views.length}`];
  views.forEach((view, i) => {
    const { width, height, focal, cx, cy, k1, k2 } = view.intrinsics;
    const model = k1 === 0 && k2 === 0 ? `PINHOLE ${width} ${height} ${focal} ${focal} ${cx} ${cy}` : `RADIAL ${width} ${height} ${focal} ${cx} ${cy} ${k1} ${k2}`;
    lines.push(`${i + 1} ${model}`);
  });
  return lines.join("\n") + "\n";
}

/** Per view, its POINTS2D: (x, y, point3D id) for every point it observes and sees in front of it. */
function observationsByView(views: RegisteredView[], points: SparsePoints | undefined): { x: number; y: number; point: number }[][] {
  const byView = views.map(() => [] as { x: number; y: number; point: number }[]);
  if (!points) return byView;
  for (let p = 0; p < points.count; p++) {
    for (let o = points.obsOffsets[p]!; o < points.obsOffsets[p + 1]!; o++) {
      const v = points.obsViews[o]!;
      const pixel = projectPoint(views[v]!, points.xyz[3 * p]!, points.xyz[3 * p + 1]!, points.xyz[3 * p + 2]!);
      if (pixel) byView[v]!.push({ x: pixel[0], y: pixel[1], point: p });
    }
  }
  return byView;
}

export function colmapImagesTxt(views: RegisteredView[], observations: { x: number; y: number; point: number }[][]): string {
  const lines = [
    "# Image list with two lines of data per image:",
    "#   IMAGE_ID, QW, QX, QY, QZ, TX, TY, TZ, CAMERA_ID, NAME",
    "#   POINTS2D[] as (X, Y, POINT3D_ID)",
    `# Number of images: ${views.length}`,
  ];
  views.forEach((view, i) => {
    const [qx, qy, qz, qw] = quaternionFromMatrix(view.camFromWorld.R);
    const [tx, ty, tz] = view.camFromWorld.t;
    // NAME is the last field and may not hold spaces for most readers of this format.
    lines.push(`${i + 1} ${qw} ${qx} ${qy} ${qz} ${tx} ${ty} ${tz} ${i + 1} ${view.name.replace(/\s/g, "_")}`);
    lines.push(observations[i]!.map((o) => `${o.x} ${o.y} ${o.point + 1}`).join(" "));
  });
  return lines.join("\n") + "\n";
}

export function colmapPoints3DTxt(points: SparsePoints | undefined, observations: { point: number }[][]): string {
  const count = points?.count ?? 0;
  const lines = ["# 3D point list with one line of data per point:", "#   POINT3D_ID, X, Y, Z, R, G, B, ERROR, TRACK[] as (IMAGE_ID, POINT2D_IDX)", `# Number of points: ${count}`];
  if (!points) return lines.join("\n") + "\n";
  const tracks = Array.from({ length: count }, () => [] as string[]);
  observations.forEach((list, v) => list.forEach((o, index) => tracks[o.point]!.push(`${v + 1} ${index}`)));
  for (let p = 0; p < count; p++) {
    const [x, y, z] = points.xyz.subarray(3 * p, 3 * p + 3);
    const [r, g, b] = points.rgb.subarray(3 * p, 3 * p + 3);
    lines.push([p + 1, x, y, z, r, g, b, points.error[p] ?? 0, ...tracks[p]!].join(" "));
  }
  return lines.join("\n") + "\n";
}

/** The zip of the three text files. */
export function writeColmapZip(views: RegisteredView[], points: SparsePoints | undefined): Uint8Array {
  const observations = observationsByView(views, points);
  return zipSync({
    "cameras.txt": encoder.encode(colmapCamerasTxt(views)),
    "images.txt": encoder.encode(colmapImagesTxt(views, observations)),
    "points3D.txt": encoder.encode(colmapPoints3DTxt(points, observations)),
  });
}
