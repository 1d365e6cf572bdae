import { describe, expect, it } from "vitest";
import { createRng, gaussian } from "../../../compute/math/random.js";

/** The first three draws and the 100,000th, times 2³², of mulberry32 as it was written before its state moved into a typed array. */
const DRAWS: Array<[number, number[]]> = [
  [1, [2693262067, 11749833, 2265367787, 2346085445]],
  [0xdeadbeef, [4043151706, 1147597007, 3315858022, 3469659638]],
];

describe("math/random", () => {
  it("draws mulberry32's sequence, the same on every call count", () => {
    for (const [seed, expected] of DRAWS) {
      const rng = createRng(seed);
      const got: number[] = [];
      for (let i = 0; i < 100_000; i++) {
        const x = rng();
        expect(x >= 0 && x < 1).toBe(true);
        if (i < 3 || i === 99_999) got.push(x * 4294967296);
      }
      expect(got).toEqual(expected);
    }
  });

  it("gives standard normal samples", () => {
    const rng = createRng(5);
    let sum = 0;
    let squares = 0;
    const n = 200_000;
    for (let i = 0; i < n; i++) {
      const g = gaussian(rng);
      sum += g;
      squares += g * g;
    }
    expect(Math.abs(sum / n)).toBeLessThan(0.01);
    expect(Math.abs(squares / n - 1)).toBeLessThan(0.02);
  });
});
