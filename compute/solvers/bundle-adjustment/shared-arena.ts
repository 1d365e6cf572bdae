/**
 * @module Shared memory that a bundle-adjustment team reuses from solve to solve: typed arrays
 * carved from one SharedArrayBuffer, handed out again after `reset`.
 *
 * Why: a SharedArrayBuffer's memory is freed only once every thread that saw it has
 * garbage-collected its last view, and the team's workers allocate almost nothing, so they
 * rarely collect. Fresh buffers for every adjustment (about 830 of them at 800 photos, local
 * ones included) grew the process to 8.1 GB; one arena that only grows holds the largest
 * solve's arrays, plus the buffers it outgrew (at most as much again, as it doubles).
 */

import type { Layout } from "./layout.js";
import type { BAProblem } from "./types.js";

type TypedArrayOf<T> = T extends Float64ArrayConstructor ? Float64Array : T extends Int32ArrayConstructor ? Int32Array : T extends Uint32ArrayConstructor ? Uint32Array : Uint8Array;
type Constructor = Float64ArrayConstructor | Int32ArrayConstructor | Uint32ArrayConstructor | Uint8ArrayConstructor;

const ALIGN = 8;
const MIN_BYTES = 1 << 20;

export class SharedArena {
  private buffer = new SharedArrayBuffer(MIN_BYTES);
  private used = 0;

  /** Bytes of the current buffer. */
  get capacity(): number {
    return this.buffer.byteLength;
  }

  /** Gives the memory back (views given before must no longer be used); the next allocation starts a new buffer. */
  release(): void {
    this.buffer = new SharedArrayBuffer(0);
    this.used = 0;
  }

  /** Hands the memory out again from the start (views given before must no longer be used). */
  reset(): void {
    this.used = 0;
  }

  /** A zeroed array of `length` elements in shared memory. */
  allocate<C extends Constructor>(Ctor: C, length: number): TypedArrayOf<C> {
    const bytes = Math.ceil((length * Ctor.BYTES_PER_ELEMENT) / ALIGN) * ALIGN;
    if (this.used + bytes > this.buffer.byteLength) {
      // The views already given stay valid on the old buffer; the rest of this solve, and the
      // next solves, use the new one.
      this.buffer = new SharedArrayBuffer(Math.max(2 * this.buffer.byteLength, 2 * bytes));
      this.used = 0;
    }
    const view = new (Ctor as unknown as new (buffer: SharedArrayBuffer, offset: number, length: number) => TypedArrayOf<C>)(this.buffer, this.used, length);
    view.fill(0);
    this.used += bytes;
    return view;
  }

  /** A copy of `values` in shared memory. */
  copy<T extends Float64Array | Int32Array | Uint32Array | Uint8Array>(values: T): T {
    const view = this.allocate(values.constructor as Constructor, values.length) as unknown as T;
    view.set(values as never);
    return view;
  }
}

/** The problem with its arrays copied into the team's shared memory (the solver updates the copy; the caller copies the result back). */
export function shareProblem(problem: BAProblem, arena: SharedArena): BAProblem {
  return {
    ...problem,
    poses: arena.copy(problem.poses), intrinsics: arena.copy(problem.intrinsics), points: arena.copy(problem.points),
    intrinsicsGroup: arena.copy(problem.intrinsicsGroup), obsCamera: arena.copy(problem.obsCamera), obsPoint: arena.copy(problem.obsPoint),
    obsXY: arena.copy(problem.obsXY), ...(problem.obsSigma ? { obsSigma: arena.copy(problem.obsSigma) } : {}),
  };
}

/** Puts the layout's arrays that the kernels read into shared memory. */
export function shareLayout(layout: Layout, arena: SharedArena): void {
  layout.intrinsicColumns = arena.copy(layout.intrinsicColumns);
  layout.poseBase = arena.copy(layout.poseBase);
  layout.intrBase = arena.copy(layout.intrBase);
  layout.pointFree = arena.copy(layout.pointFree);
  layout.pointObsStart = arena.copy(layout.pointObsStart);
  layout.pointObs = arena.copy(layout.pointObs);
}
