/**
 * @module Feature detection by image batches as tasks (task-coordinator.ts): the payload of one
 * batch, and the BatchRunner that sends a large job's batches out. A set of at most
 * `batchImages` images is detected in the job's own process.
 */
import type { ImageRef } from "../scene/index.js";
import { decodeFeatureBatch, type BatchRunner, type Options as FeatureOptions } from "../stages/features/index.js";
import type { StoredPhoto, TaskCoordinator } from "./task-coordinator.js";

/** A features task's input: its images (paths replaced by stored photos) and the stage options. */
export interface FeatureTaskPayload {
  images: Array<Omit<ImageRef, "path">>;
  photos: StoredPhoto[];
  options: Omit<FeatureOptions, "workers">;
}

export function decodeFeaturePayload(text: string): FeatureTaskPayload {
  const payload = JSON.parse(text) as FeatureTaskPayload;
  if (!Array.isArray(payload.images) || !Array.isArray(payload.photos) || typeof payload.options !== "object") throw new Error("features task: malformed payload");
  const stored = new Set(payload.photos.map((p) => p.imageIndex));
  const missing = payload.images.find((im) => !stored.has(im.index));
  if (missing) throw new Error(`features task: no photo for ${missing.name}`);
  return payload;
}

export function featureTaskRunner(coordinator: TaskCoordinator, batchImages: number): BatchRunner {
  return async (images, options, progress) => {
    if (images.length <= batchImages) return null;
    const { workers: _workers, ...shared } = options;
    const payloads = [];
    for (let start = 0, batch = 0; start < images.length; start += batchImages, batch++) {
      const slice = images.slice(start, start + batchImages);
      const photos = await coordinator.storePhotos(slice);
      const payload: FeatureTaskPayload = { images: slice.map(({ path: _path, ...rest }) => rest), photos, options: shared };
      payloads.push({ key: `features-${String(batch).padStart(4, "0")}`, payload: JSON.stringify(payload) });
    }
    const results = await coordinator.run("features-batch", payloads, progress);
    return results.map(decodeFeatureBatch);
  };
}
