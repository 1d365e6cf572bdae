/**
 * @module Load opencv-js (WebAssembly) once per thread. The Emscripten module object is a
 * thenable whose `then` calls back with itself, so it must never be passed to `resolve` or
 * returned from an async function (the promise would adopt it in an endless microtask loop
 * that blocks the thread): it travels inside a box, up to the caller.
 */
import { createRequire } from "node:module";
import type * as OpenCV from "@techstark/opencv-js";

/** opencv-js 4.12 exports AKAZE at runtime, but its typings omit it. */
export interface AKAZEDetector {
  setThreshold(threshold: number): void;
  setNOctaveLayers(layers: number): void;
  detectAndCompute(image: OpenCV.Mat, mask: OpenCV.Mat, keypoints: OpenCV.KeyPointVector, descriptors: OpenCV.Mat): void;
  delete(): void;
}

export type CV = typeof OpenCV & { AKAZE: new () => AKAZEDetector };

let loading: Promise<{ cv: CV }> | undefined;

export function loadOpenCV(): Promise<{ cv: CV }> {
  loading ??= new Promise<{ cv: CV }>((resolve) => {
    const cv = createRequire(import.meta.url)("@techstark/opencv-js") as CV & { onRuntimeInitialized?: () => void };
    if (typeof cv.Mat === "function") resolve({ cv });
    else cv.onRuntimeInitialized = () => resolve({ cv });
  });
  return loading;
}
