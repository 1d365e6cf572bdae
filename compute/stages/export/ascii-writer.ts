/**
 * @module Appends ASCII text straight into a growing byte buffer. Text formats of million-face
 * meshes built as JS strings spend most of their time in the garbage collector (millions of
 * short-lived line strings); writing bytes keeps that to one buffer.
 */

const MINUS = 45;
const ZERO = 48;

export class AsciiWriter {
  private buf: Uint8Array;
  private pos = 0;

  constructor(capacity = 1 << 16) {
    this.buf = new Uint8Array(Math.max(64, capacity));
  }

  private ensure(extra: number): void {
    if (this.pos + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  /** ASCII only (code points < 128), which is all the callers write. */
  text(s: string): this {
    this.ensure(s.length);
    for (let i = 0; i < s.length; i++) this.buf[this.pos++] = s.charCodeAt(i);
    return this;
  }

  byte(code: number): this {
    this.ensure(1);
    this.buf[this.pos++] = code;
    return this;
  }

  bytes(chunk: Uint8Array): this {
    this.ensure(chunk.length);
    this.buf.set(chunk, this.pos);
    this.pos += chunk.length;
    return this;
  }

  /** A non-negative or negative integer, without making a string. */
  int(value: number): this {
    this.ensure(16);
    let v = value;
    if (v < 0) {
      this.buf[this.pos++] = MINUS;
      v = -v;
    }
    const start = this.pos;
    do {
      this.buf[this.pos++] = ZERO + (v % 10);
      v = Math.floor(v / 10);
    } while (v > 0);
    // Digits came out least significant first.
    for (let a = start, b = this.pos - 1; a < b; a++, b--) {
      const t = this.buf[a];
      this.buf[a] = this.buf[b];
      this.buf[b] = t;
    }
    return this;
  }

  /** Bytes written so far. */
  get size(): number {
    return this.pos;
  }

  result(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }

  /** The bytes written so far, and an empty writer (its buffer kept) for the next piece. */
  take(): Uint8Array {
    const piece = this.result();
    this.pos = 0;
    return piece;
  }
}
