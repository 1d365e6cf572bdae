/**
 * @module The texture stage's photos decoded ahead, while the mesh is made, into shared memory.
 *
 * Why: each photo is read three times by the stage (its scan, the levelling's samples and the
 * painting), at its full size unless the atlas is scaled down, and a 6-MP JPEG takes 0.13–0.2 s
 * of a core to decode. The mesh stage leaves about a third of the second core idle. Decoded once
 * there, one photo after another, the photos reach the stage's tasks as shared buffers that no
 * thread copies. Photos beyond the budget, or at another size, are decoded by their tasks as
 * before; the pixels are the same either way (the same decode, photo.ts).
 */
import type { ImageRef, RegisteredView } from "../../scene/index.js";
import { loadPhoto, photoSize } from "./photo.js";
import type { LoadedPhoto } from "./view-scan.js";

/** One photo the store decodes: `start` begins its decode once and gives it (null when the photo could not be read: its tasks then report it). */
interface Entry {
  start: () => Promise<LoadedPhoto | null>;
}

export interface PhotoStore {
  /** The photo at `path` decoded at `width` × `height`, when the store holds it at that size. */
  get(path: string, width: number, height: number): Promise<LoadedPhoto | null>;
  /** How many photos the store decodes, and their bytes. */
  readonly photos: number;
  readonly bytes: number;
  /** Stops decoding ahead; the store lets go of what it holds. */
  close(): void;
}

const keyOf = (path: string, width: number, height: number) => `${width}x${height}:${path}`;

/**
 * Starts decoding the photos of `views` at `scaleOf(view)` × their intrinsics' size, in the
 * views' order, one at a time, up to `maxBytes` of pixels in all.
 */
export function decodeAhead(views: RegisteredView[], images: ImageRef[], scaleOf: (view: RegisteredView) => number, maxBytes: number): PhotoStore {
  const pathOf = new Map(images.map((image) => [image.index, image.path]));
  const entries = new Map<string, Entry>();
  const queue: Entry[] = [];
  let bytes = 0;
  for (const view of views) {
    const path = pathOf.get(view.imageIndex);
    if (!path) continue;
    const scale = scaleOf(view);
    const { width, height } = photoSize(view.intrinsics, scale);
    const key = keyOf(path, width, height);
    if (entries.has(key) || bytes + 3 * width * height > maxBytes) continue;
    bytes += 3 * width * height;
    let decoded: Promise<LoadedPhoto | null> | null = null;
    const entry: Entry = { start: () => (decoded ??= loadPhoto(path, view.intrinsics, scale, true).catch(() => null)) };
    entries.set(key, entry);
    queue.push(entry);
  }
  let closed = false;
  // One decode at a time: the mesh stage runs on this thread and its worker meanwhile.
  void (async () => {
    for (const entry of queue) {
      if (closed) break;
      await entry.start();
    }
  })();
  return {
    photos: entries.size,
    bytes,
    // A photo asked for before its turn is decoded now (the mesh was quicker than the queue).
    get: async (path, width, height) => (await entries.get(keyOf(path, width, height))?.start()) ?? null,
    close: () => {
      closed = true;
      entries.clear();
    },
  };
}
