/**
 * @module A running job's or task's handle that can be cancelled from outside (the edge refused
 * a report, shutdown) before or after its work has said how to stop.
 */

export interface Cancellable {
  /** Set once the work must stop; checked at every checkpoint. */
  cancelReason: string | null;
  cancel(reason: string): void;
}

/** How the work says what to do on cancel; called at once when the handle was already cancelled. */
export type OnCancel = (stop: (reason: string) => void) => void;

/** Adds cancel() to `fields`; `onCancel` hands the work's stop function to it. */
export function cancellable<T extends object>(fields: T): { handle: T & Cancellable; onCancel: OnCancel } {
  let stop: (reason: string) => void = () => {};
  const handle: T & Cancellable = {
    ...fields,
    cancelReason: null,
    cancel(reason: string) {
      handle.cancelReason ??= reason;
      stop(reason);
    },
  };
  const onCancel: OnCancel = (fn) => {
    stop = fn;
    if (handle.cancelReason) fn(handle.cancelReason);
  };
  return { handle, onCancel };
}
