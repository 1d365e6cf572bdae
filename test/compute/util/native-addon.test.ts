/** optionalAddon (compute/util/native-addon.ts): an addon that is missing, or turned off by its variable, is null; one that is built loads once. */
import { describe, expect, it } from "vitest";
import { optionalAddon } from "../../../compute/util/native-addon.js";
import { canBuildNative } from "../../support/native-build.js";

const RASTER = new URL("../../../compute/geometry/native-raster.ts", import.meta.url).href;

describe("util/native-addon", () => {
  it("gives null for an addon that was never built", () => {
    expect(optionalAddon(RASTER, "./native/build/no-such-addon.node")()).toBeNull();
  });

  it("gives null when its variable is 0, and the addon otherwise, the same object each time", () => {
    process.env.TEST_ADDON_OFF = "0";
    expect(optionalAddon(RASTER, "./native/build/raster.node", "TEST_ADDON_OFF")()).toBeNull();
    delete process.env.TEST_ADDON_OFF;
    if (!canBuildNative()) return;
    const load = optionalAddon<{ rasterizeDepth: unknown }>(RASTER, "./native/build/raster.node", "TEST_ADDON_OFF");
    const first = load();
    expect(typeof first?.rasterizeDepth).toBe("function");
    expect(load()).toBe(first);
  });
});
