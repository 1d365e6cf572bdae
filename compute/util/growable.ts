/**
 * @module Append-only typed arrays that double when full, for outputs of unknown size (the mesh's
 * vertices and faces, the dense cloud's points, normals and colours).
 */

type Elements = Float32Array | Uint32Array | Uint8Array;

class Growable<T extends Elements> {
  data: T;
  length = 0;
  constructor(
    private readonly make: (size: number) => T,
    capacity: number,
  ) {
    this.data = make(Math.max(16, capacity));
  }
  push3(a: number, b: number, c: number): void {
    if (this.length + 3 > this.data.length) this.grow();
    this.data[this.length++] = a;
    this.data[this.length++] = b;
    this.data[this.length++] = c;
  }
  private grow(): void {
    const next = this.make(this.data.length * 2);
    next.set(this.data);
    this.data = next;
  }
  toArray(): T {
    return this.data.slice(0, this.length) as T;
  }
}

export class GrowableFloat32 extends Growable<Float32Array> {
  constructor(capacity = 1024) {
    super((size) => new Float32Array(size), capacity);
  }
}

export class GrowableUint32 extends Growable<Uint32Array> {
  constructor(capacity = 1024) {
    super((size) => new Uint32Array(size), capacity);
  }
}

export class GrowableUint8 extends Growable<Uint8Array> {
  constructor(capacity = 1024) {
    super((size) => new Uint8Array(size), capacity);
  }
}
