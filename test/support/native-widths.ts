/** @module Running a dense-addon check at each vector width the CPU has. */
import { useNativeIsa, type NativeIsa } from "../../compute/stages/dense/native-plane-cost.js";
import { nativeIsas } from "./native-build.js";

/**
 * Runs `check` at each width the dense addon runs at on this CPU (nativeIsas(), widest first), the
 * addon narrowed to it on this thread and widened again after; once, at the addon's own choice,
 * where the CPU has neither width. Call it only where the addon loaded: a width the CPU has and
 * the addon refuses is an error.
 */
export function atEachWidth(check: (isa: NativeIsa | null) => void): void {
  const widths = nativeIsas();
  if (widths.length === 0) return check(null);
  for (const isa of widths) {
    if (!useNativeIsa(isa)) throw new Error(`the dense addon refuses ${isa}, which this CPU has`);
    try {
      check(isa);
    } finally {
      useNativeIsa(widths[0]);
    }
  }
}
