/**
 * @module The cloud's export formats (ply, las, colmap, transforms) written on a late thread as soon
 * as the dense stage is done. They need only the cameras and the dense cloud, and the mesh stage
 * that follows runs at ~1.5 cores on its own thread; written in the export stage they had been
 * ~0.7 s of its one thread on Herz-Jesus-P8 (docs/decisions.md, "The cloud's formats are written
 * during the mesh stage"). The export stage lists them in their place and writes the rest.
 */
import type { Format } from "../../shared/formats.js";
import type { ImageRef, PointCloud, RegisteredView, SparsePoints } from "../scene/index.js";
import { CLOUD_FORMATS, type WrittenFormats } from "../stages/export/cloud-formats.js";
import type { LateWorkers } from "./late-pool.js";
import { surveyInputs, type Located } from "./locate.js";

/**
 * Largest cloud sent to the thread: the task copies it (27 bytes a point: 108 MB here). A larger
 * one is written by the export stage, as the texture's threads would otherwise hold it twice.
 */
export const MAX_POINTS_AHEAD = 4_000_000;

/**
 * Starts writing the cloud's formats among `formats` into `outDir` (in the survey's frame for a
 * located job, as the export stage would); resolves to what was written, or null when nothing was
 * started or the thread failed (the export stage then writes them itself).
 */
export function writeCloudAhead(
  workers: Pick<LateWorkers, "exportCloud">,
  located: Located | null,
  model: { views: RegisteredView[]; cloud: PointCloud; sparse: SparsePoints; images: ImageRef[] },
  formats: readonly Format[],
  outDir: string,
  baseName: string,
): Promise<WrittenFormats | null> | null {
  const cloudFormats = formats.filter((format) => CLOUD_FORMATS.has(format));
  if (cloudFormats.length === 0 || model.cloud.count > MAX_POINTS_AHEAD) return null;
  const mapped = surveyInputs(located, { views: model.views, cloud: model.cloud, mesh: null, images: model.images, sparse: model.sparse });
  const georeference = located ? { offset: located.frame.offset, wkt: located.frame.wkt } : undefined;
  return workers
    .exportCloud({ input: { views: mapped.views, cloud: mapped.cloud, ...(mapped.sparse ? { sparse: mapped.sparse } : {}) }, formats: cloudFormats, outDir, baseName, ...(georeference ? { georeference } : {}) })
    .catch(() => null);
}
