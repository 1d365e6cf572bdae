/**
 * @module The cameras as a nerfstudio / instant-ngp `transforms.json`
 * (docs.nerf.studio "Data conventions"), so NeRF and splatting trainers start from our poses.
 *
 * `transform_matrix` is camera-to-world in the OpenGL convention (camera looks down −z, +y up):
 * the same pose as the glTF camera node of the view (camera-nodes.ts), as a row-major 4×4.
 * The frame is the other formats' (right-handed, +Y up, model units).
 *
 * Intrinsics: the pipeline's camera is RADIAL (f, cx, cy, k1, k2), written as nerfstudio's
 * OPENCV model with p1 = p2 = 0 (the same Brown polynomial). The first view's intrinsics are
 * the file-level defaults; a frame whose camera differs carries its own (nerfstudio reads
 * per-frame intrinsics). `file_path` is the uploaded name (`<video>#<frame>` for keyframes).
 */
import type { Intrinsics, RegisteredView } from "../../scene/index.js";
import { cameraNodePose } from "./camera-nodes.js";

interface TransformsIntrinsics {
  camera_model: "OPENCV";
  fl_x: number;
  fl_y: number;
  cx: number;
  cy: number;
  w: number;
  h: number;
  k1: number;
  k2: number;
  p1: number;
  p2: number;
}

function intrinsicsOf(intrinsics: Intrinsics): TransformsIntrinsics {
  const { focal, cx, cy, width, height, k1, k2 } = intrinsics;
  return { camera_model: "OPENCV", fl_x: focal, fl_y: focal, cx, cy, w: width, h: height, k1, k2, p1: 0, p2: 0 };
}

/** Row-major 4×4 camera-to-world (OpenGL camera axes) of a view. */
export function openGlCamToWorld(view: RegisteredView): number[][] {
  const { R } = view.camFromWorld;
  const [cx, cy, cz] = cameraNodePose(view).translation;
  // worldFromCam = Rᵀ; the OpenGL camera's y and z axes are OpenCV's negated.
  return [
    [R[0]!, -R[3]!, -R[6]!, cx],
    [R[1]!, -R[4]!, -R[7]!, cy],
    [R[2]!, -R[5]!, -R[8]!, cz],
    [0, 0, 0, 1],
  ];
}

export function writeTransformsJson(views: RegisteredView[]): string {
  const defaults = views.length > 0 ? intrinsicsOf(views[0]!.intrinsics) : undefined;
  const frames = views.map((view) => {
    const own = intrinsicsOf(view.intrinsics);
    const differs = defaults && (Object.keys(own) as (keyof TransformsIntrinsics)[]).some((key) => own[key] !== defaults[key]);
    return { file_path: view.name, transform_matrix: openGlCamToWorld(view), ...(differs ? own : {}) };
  });
  return JSON.stringify({ ...(defaults ?? {}), frames }, null, 2) + "\n";
}
