/**
 * @module Load OpenCV.js once per thread: npm's @techstark/opencv-js 4.12 by default, or, with
 * OPENCV_SIMD=1 in the environment, the SIMD build committed in ./opencv-simd (OpenCV 4.6,
 * Emscripten with WebAssembly SIMD; its README says how it is built). The SIMD build's AKAZE finds
 * the same keypoints in 0.34–0.47 of the time, but a few orientations and descriptors differ
 * from npm's, and on templeSparseRing SfM then placed 13 of 16 photos instead of 16: not the
 * default until the benches are run on it (docs/decisions.md, "Detection stays on OpenCV.js, at
 * 2.2× native's time").
 *
 * The module object travels inside a box, up to the caller: an Emscripten module may be a
 * thenable whose `then` calls back with itself, and a promise that adopted it would loop in
 * microtasks forever.
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
  loading ??= process.env.OPENCV_SIMD === "1" ? loadSimdBuild() : loadNpmBuild();
  return loading;
}

/** npm's @techstark/opencv-js, the default (also for the test that compares the two builds). */
export function loadNpmBuild(): Promise<{ cv: CV }> {
  return new Promise<{ cv: CV }>((resolve) => {
    const cv = createRequire(import.meta.url)("@techstark/opencv-js") as CV & { onRuntimeInitialized?: () => void };
    if (typeof cv.Mat === "function") resolve({ cv });
    else cv.onRuntimeInitialized = () => resolve({ cv });
  });
}

/** The committed SIMD build; its export is Emscripten's ready promise (MODULARIZE), resolving to the module. */
export function loadSimdBuild(): Promise<{ cv: CV }> {
  return (createRequire(import.meta.url)("./opencv-simd/opencv.cjs") as Promise<CV & { then?: unknown }>).then((cv) => {
    delete cv.then;
    return { cv };
  });
}
