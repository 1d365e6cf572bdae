import { describe, expect, it } from "vitest";
import { loadWasmKernel, releaseKernel } from "../../../compute/stages/dense/kernel.js";
import { nativePlaneUpdates } from "../../../compute/stages/dense/native-plane-cost.js";
import { patchMatch, type PatchMatchInput, type PatchMatchOutput } from "../../../compute/stages/dense/patchmatch.js";
import { NO_PLANAR_PRIOR } from "../../../compute/stages/dense/planar-prior.js";
import { canBuildNative, nativeIsas } from "../../support/native-build.js";
import { atEachWidth } from "../../support/native-widths.js";
import { wallInput } from "./slanted-wall.js";

const bytes = (out: PatchMatchOutput) => Buffer.concat([out.depth, out.normal, out.cost].map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength)));

/** PatchMatch on a kernel of its own kind: the next createKernel("wasm") takes the spare one released here. */
function solve(input: PatchMatchInput, native: boolean): PatchMatchOutput {
  // Its window is reserved again by the level that takes it.
  releaseKernel(loadWasmKernel(52, native)!);
  return patchMatch(input);
}

/** Counts the addon's calls to `name` while `run` runs. */
function counting<T>(name: "propagatePlanes" | "tryPlanes", run: () => T): { result: T; calls: number } {
  const addon = nativePlaneUpdates()!;
  const original = addon[name];
  let calls = 0;
  addon[name] = () => {
    calls++;
    original();
  };
  try {
    return { result: run(), calls };
  } finally {
    addon[name] = original;
  }
}

describe("dense/native plane updates", () => {
  it("are built wherever the native plane cost is", () => {
    if (!canBuildNative() || nativeIsas().length === 0) return;
    expect(nativePlaneUpdates(), "the native addon is missing: run `node scripts/build-native.mjs` (npm ci's postinstall)").not.toBeNull();
  });

  it("give PatchMatch's planes, costs and hypothesis count to the bit: coarse and seeded levels, the narrow window, planar priors, an added source, the last propagation", () => {
    if (!nativePlaneUpdates()) return;
    const base = wallInput({ ...NO_PLANAR_PRIOR, weight: 0.3, iterations: 2 });
    const cases: Array<[string, PatchMatchInput]> = [
      ["one level, planar priors", base],
      [
        "two levels, the narrow window and the last propagation",
        { ...base, params: { ...base.params, pyramidLevels: 1, coarseLevels: 1, refineIterations: 1, finalPropagation: true, texturedWindow: { step: 1, minStd: 0.02 } } },
      ],
      ["the last source added on the left half only", { ...base, params: { ...base.params, planarPrior: NO_PLANAR_PRIOR }, addedSourceBoxes: [[[-1, 0, -1, 1]]] }],
    ];
    for (const [label, input] of cases) {
      const plain = solve(input, false);
      expect(plain.kernel, label).toBe("wasm-simd");
      // At every width this CPU has (AVX2 too on an AVX-512 machine).
      atEachWidth((isa) => {
        const { result: native, calls } = counting("propagatePlanes", () => solve(input, true));
        const where = `${label}, ${isa}`;
        if (isa) expect(native.kernel, where).toBe(`native-${isa}`);
        expect(calls, where).toBeGreaterThan(1000);
        expect(bytes(native).equals(bytes(plain)), where).toBe(true);
        expect(native.evaluations, where).toBe(plain.evaluations);
        expect(native.priorAgrees, where).toEqual(plain.priorAgrees);
      });
    }
  });
});
