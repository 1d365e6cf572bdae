import { describe, expect, it } from "vitest";
import { SharedArena } from "../../../../compute/solvers/bundle-adjustment/shared-arena.js";

describe("ba/shared-arena", () => {
  it("hands out zeroed, aligned, shared arrays and the same memory again after a reset", () => {
    const arena = new SharedArena();
    const a = arena.allocate(Uint8Array, 3);
    const b = arena.allocate(Float64Array, 5);
    expect(a.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(b.byteOffset % 8).toBe(0);
    b.fill(7);
    arena.reset();
    arena.allocate(Uint8Array, 3);
    const again = arena.allocate(Float64Array, 5);
    expect(again.buffer).toBe(b.buffer);
    expect(again.byteOffset).toBe(b.byteOffset);
    expect([...again]).toEqual([0, 0, 0, 0, 0]);
  });

  it("grows past its buffer without touching the arrays it gave before", () => {
    const arena = new SharedArena();
    const small = arena.copy(Float64Array.from([1, 2, 3]));
    const capacity = arena.capacity;
    const big = arena.allocate(Int32Array, capacity);
    expect(arena.capacity).toBeGreaterThanOrEqual(2 * capacity);
    expect(big.length).toBe(capacity);
    expect(big.buffer).not.toBe(small.buffer);
    expect([...small]).toEqual([1, 2, 3]);
  });
});
