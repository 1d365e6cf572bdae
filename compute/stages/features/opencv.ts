/**
 * @module Load OpenCV.js once per thread: the build committed in ./opencv-simd by default (OpenCV
 * 4.6 compiled by Emscripten with `-msimd128`: the compiler vectorises loops, OpenCV's own SIMD
 * intrinsics stay off; its README says how it is built), or, with OPENCV_NPM=1 in the
 * environment, npm's @techstark/opencv-js 4.12. The committed build's AKAZE gives the same
 * keypoints and bit-identical descriptors as npm's in 0.6–0.7 of the time; a build with OpenCV's
 * intrinsics on took half the time but moved a few descriptor bits, and SfM on photos detected
 * upsampled was worse at every seed (docs/decisions.md, "Detection runs on a vectorised build of
 * OpenCV.js").
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
  loading ??= process.env.OPENCV_NPM === "1" ? loadNpmBuild() : loadSimdBuild();
  return loading;
}

/** npm's @techstark/opencv-js (OPENCV_NPM=1, and the test that compares the two builds). */
export function loadNpmBuild(): Promise<{ cv: CV }> {
  return new Promise<{ cv: CV }>((resolve) => {
    const cv = createRequire(import.meta.url)("@techstark/opencv-js") as CV & { onRuntimeInitialized?: () => void };
    if (typeof cv.Mat === "function") resolve({ cv });
    else cv.onRuntimeInitialized = () => resolve({ cv });
  });
}

/** The committed build, the default; its export is Emscripten's ready promise (MODULARIZE), resolving to the module. */
export function loadSimdBuild(): Promise<{ cv: CV }> {
  return (createRequire(import.meta.url)("./opencv-simd/opencv.cjs") as Promise<CV & { then?: unknown }>).then((cv) => {
    delete cv.then;
    return { cv };
  });
}
