/** @module Copies of typed arrays in shared memory, which tasks on worker threads read without a copy of their own. */

/** A copy of `array` in shared memory (same type and contents). */
export function shared<T extends Float32Array | Uint32Array | Uint8Array>(array: T): T {
  const copy = new (array.constructor as new (buffer: SharedArrayBuffer) => T)(new SharedArrayBuffer(array.byteLength));
  copy.set(array);
  return copy;
}
