/**
 * @module Load OpenCV.js once per thread: the SIMD build committed in ./opencv-simd (OpenCV 4.6,
 * Emscripten with WebAssembly SIMD; its README says how it is built). Its AKAZE gives the same
 * keypoints and descriptors as npm's @techstark/opencv-js 4.12 in 0.34–0.47 of the time, which
 * still provides the typings. The module object travels inside a box, up to the caller: an
 * Emscripten module may be a thenable whose `then` calls back with itself, and a promise that
 * adopted it would loop in microtasks forever.
 */
import { createRequire } from "node:module";
import type * as OpenCV from "@techstark/opencv-js";

/** OpenCV.js exports AKAZE at runtime, but the typings omit it. */
export interface AKAZEDetector {
  setThreshold(threshold: number): void;
  setNOctaveLayers(layers: number): void;
  detectAndCompute(image: OpenCV.Mat, mask: OpenCV.Mat, keypoints: OpenCV.KeyPointVector, descriptors: OpenCV.Mat): void;
  delete(): void;
}

export type CV = typeof OpenCV & { AKAZE: new () => AKAZEDetector };

let loading: Promise<{ cv: CV }> | undefined;

export function loadOpenCV(): Promise<{ cv: CV }> {
  // The build's export is Emscripten's ready promise (MODULARIZE); it resolves to the module.
  loading ??= (createRequire(import.meta.url)("./opencv-simd/opencv.cjs") as Promise<CV & { then?: unknown }>).then((cv) => {
    delete cv.then;
    return { cv };
  });
  return loading;
}
