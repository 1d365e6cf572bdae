import { describe, expect, it } from "vitest";
import { loadAhead, valueOf } from "../../../compute/util/ahead.js";

describe("loadAhead", () => {
  it("hands on the loads in order, with the next one already started and at most two started ahead of use", async () => {
    const started: number[] = [];
    const order: number[] = [];
    const load = async (key: number): Promise<string> => {
      started.push(key);
      // Later keys finish first: the order must still be the keys' order.
      await new Promise((r) => setTimeout(r, 20 - 5 * key));
      return `photo ${key}`;
    };
    for await (const loaded of loadAhead([0, 1, 2, 3], load)) {
      // While key k is in use, k + 1 has been started and k + 2 has not.
      expect(started).toEqual([0, 1, 2, 3].filter((k) => k <= loaded.key + 1));
      order.push(loaded.key);
      expect(valueOf(loaded)).toBe(`photo ${loaded.key}`);
    }
    expect(order).toEqual([0, 1, 2, 3]);
  });

  it("hands on a failed load in its turn, without an unhandled rejection while it waits", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const results: string[] = [];
      for await (const loaded of loadAhead(["a", "bad", "c"], async (key) => {
        if (key === "bad") throw new Error("cannot decode bad");
        return key;
      })) {
        // The failing load settles while "a" is in use.
        if (loaded.key === "a") await new Promise((r) => setTimeout(r, 30));
        results.push(loaded.ok ? loaded.value : `error: ${(loaded.error as Error).message}`);
        if (loaded.key === "bad") expect(() => valueOf(loaded)).toThrow("cannot decode bad");
      }
      expect(results).toEqual(["a", "error: cannot decode bad", "c"]);
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("hands on a loader's synchronous throw as that key's failure", async () => {
    const results: boolean[] = [];
    for await (const loaded of loadAhead([1, 2], (key) => {
      if (key === 2) throw new Error("no such photo");
      return Promise.resolve(key);
    })) results.push(loaded.ok);
    expect(results).toEqual([true, false]);
  });

  it("yields nothing for no keys", async () => {
    const seen: unknown[] = [];
    for await (const loaded of loadAhead([], async () => 1)) seen.push(loaded);
    expect(seen).toEqual([]);
  });
});
