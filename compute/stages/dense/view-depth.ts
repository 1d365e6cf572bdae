/**
 * @module A view's filtered depth map made coarse for the mesh stage's free-space tests
 * (mesh/hull-completion.ts): the nearest depth per cell of a grid over the photo, in the
 * registered view's own pinhole frame. The map is the undistorted working image's; each pixel is
 * lifted into the camera with the map's intrinsics and projected again with the photo's focal and
 * principal point (the mesh stage's depth images ignore distortion alike, see-through.ts).
 */
import type { Intrinsics, ViewDepth } from "../../scene/index.js";

/** Cells on the photo's long side: the mesh stage's depth image size (see-through.ts DEPTH_IMAGE_SIZE). */
export const VIEW_DEPTH_SIZE = 256;

/** The map's pixels (its focal, cx, cy; pixel centres at +0.5) as the coarse grid of the photo with `intrinsics`. */
export function coarseViewDepth(
  viewIndex: number,
  map: { width: number; height: number; focal: number; cx: number; cy: number; depth: Float32Array },
  intrinsics: Pick<Intrinsics, "focal" | "cx" | "cy" | "width" | "height">,
  size = VIEW_DEPTH_SIZE,
): ViewDepth {
  const scale = Math.max(intrinsics.width, intrinsics.height) / size;
  const width = Math.max(1, Math.ceil(intrinsics.width / scale)), height = Math.max(1, Math.ceil(intrinsics.height / scale));
  const depth = new Float32Array(width * height);
  // A working pixel's ray direction (x/z, y/z) maps to the grid by an affine map: cell = f/scale · ray + c/scale.
  const fx = intrinsics.focal / scale, cx = intrinsics.cx / scale, cy = intrinsics.cy / scale;
  for (let row = 0; row < map.height; row++) {
    const rayY = (row + 0.5 - map.cy) / map.focal;
    const v = Math.floor(fx * rayY + cy);
    if (v < 0 || v >= height) continue;
    for (let col = 0; col < map.width; col++) {
      const d = map.depth[row * map.width + col];
      if (!(d > 0)) continue;
      const u = Math.floor((fx * (col + 0.5 - map.cx)) / map.focal + cx);
      if (u < 0 || u >= width) continue;
      const at = v * width + u;
      if (depth[at] === 0 || d < depth[at]) depth[at] = d;
    }
  }
  return { viewIndex, width, height, scale, depth };
}
