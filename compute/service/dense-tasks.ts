/**
 * @module Dense clusters as tasks (task-coordinator.ts): the payload of one cluster, and the
 * ClusterRunner that sends every cluster of a job out and gathers their results.
 */
import { checkClusterJob, decodeClusterResult, type ClusterJob, type ClusterRunner } from "../stages/dense/index.js";
import type { StoredPhoto, TaskCoordinator } from "./task-coordinator.js";

/** A dense-cluster task's input: the cluster job and where each of its photos is stored. */
export interface DenseTaskPayload {
  job: ClusterJob;
  photos: StoredPhoto[];
}

export function decodeDensePayload(text: string): DenseTaskPayload {
  const payload = JSON.parse(text) as DenseTaskPayload;
  if (!payload || !Array.isArray(payload.photos)) throw new Error("dense task: malformed payload");
  payload.job = checkClusterJob(payload.job);
  const stored = new Set(payload.photos.map((p) => p.imageIndex));
  const missing = payload.job.views.find((v) => !stored.has(v.imageIndex));
  if (missing) throw new Error(`dense task: no photo for view ${missing.name}`);
  return payload;
}

export function denseTaskRunner(coordinator: TaskCoordinator): ClusterRunner {
  return async (plan, images, progress) => {
    const byIndex = new Map(images.map((im) => [im.index, im]));
    const payloads = [];
    for (const job of plan.jobs) {
      const used = [...new Set(job.views.map((v) => v.imageIndex))].map((i) => {
        const image = byIndex.get(i);
        if (!image) throw new Error(`dense tasks: no image ${i}`);
        return image;
      });
      const photos = await coordinator.storePhotos(used);
      payloads.push({ key: `dense-${String(job.cluster).padStart(4, "0")}`, payload: JSON.stringify({ job, photos } satisfies DenseTaskPayload) });
    }
    const results = await coordinator.run("dense-cluster", payloads, progress);
    return results.map(decodeClusterResult);
  };
}
