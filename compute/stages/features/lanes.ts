/**
 * @module The features stage's way of feeding its workers: each lane decodes its next image on
 * this thread (decode.ts) while the workers detect; two lanes per worker keep them busy without
 * holding every decoded image in memory at once. Shared by the plain detection (index.ts) and
 * the simulated views (simulate.ts).
 */
import type { ImageRef } from "../../scene/images.js";
import type { TaskRunner } from "../../util/pool.js";
import { decodeForDetection, type DetectionPixels } from "./decode.js";

/** Results in the order of `images`; `onDone` gets the count of images done after each one. */
export async function detectInLanes<T, R>(images: ImageRef[], size: { maxImageSide: number; upsampleMaxSide: number }, pool: TaskRunner<T, R>, taskOf: (image: ImageRef, pixels: DetectionPixels) => T, onDone?: (done: number) => void): Promise<R[]> {
  const results: R[] = new Array(images.length);
  let next = 0;
  let done = 0;
  const lane = async (): Promise<void> => {
    while (next < images.length) {
      const position = next++;
      const image = images[position];
      const pixels = await decodeForDetection(image, size.maxImageSide, size.upsampleMaxSide);
      results[position] = await pool.run(taskOf(image, pixels), [pixels.rgb.buffer as ArrayBuffer]);
      onDone?.(++done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(images.length, 2 * pool.size) }, lane));
  return results;
}
