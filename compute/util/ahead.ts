/**
 * @module Loads in order, one ahead: while the caller works on item k, item k + 1 is already
 * loading. Photo decodes (sharp) run on libuv's threads, so a stage that scans or paints one
 * photo at a time on its own thread keeps the second core busy decoding the next, at the cost of
 * holding two loaded items instead of one.
 */

/** What loading one key gave: its value, or why it failed. */
export type Settled<K, T> = { key: K; ok: true; value: T } | { key: K; ok: false; error: unknown };

/**
 * The loads of `keys` in their order, the next one started before the current one is handed on.
 * A failed load is handed on as its error, in its turn, never as an unhandled rejection while it
 * waits.
 */
export async function* loadAhead<K, T>(keys: readonly K[], load: (key: K) => Promise<T>): AsyncGenerator<Settled<K, T>> {
  // Through a new Promise: a loader that throws before returning its promise fails in its turn too.
  const settle = (key: K): Promise<Settled<K, T>> => new Promise<T>((resolve) => resolve(load(key))).then((value) => ({ key, ok: true as const, value }), (error: unknown) => ({ key, ok: false as const, error }));
  let next = keys.length > 0 ? settle(keys[0]) : null;
  for (let i = 0; i < keys.length; i++) {
    const current = await next!;
    next = i + 1 < keys.length ? settle(keys[i + 1]) : null;
    yield current;
  }
}

/** The value of a load that must have succeeded; its error otherwise. */
export function valueOf<K, T>(settled: Settled<K, T>): T {
  if (!settled.ok) throw settled.error;
  return settled.value;
}
