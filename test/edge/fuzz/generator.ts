/**
 * @module The fuzz suite's frame: a seeded PRNG, the shape of a generated case, and the pools
 * of odd values that every endpoint's generator draws from. Endpoint generators live in their
 * own files (create-cases.ts, uploads-webhooks-cases.ts) and only return `FuzzCase`s, so a new endpoint
 * adds a file and nothing here changes.
 */

/** mulberry32: small, fast, and the same sequence on every run for one seed. */
export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)]!,
    chance: (p) => next() < p,
    bytes: (n) => {
      const out = new Uint8Array(n);
      for (let i = 0; i < n; i++) out[i] = Math.floor(next() * 256);
      return out;
    },
  };
}

export interface Rng {
  next(): number;
  /** Integer in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
  bytes(n: number): Uint8Array;
}

/** One generated request. `label` names the defect(s) so a failure report says what was sent. */
export interface FuzzCase {
  label: string;
  path: string;
  init: RequestInit;
}

/** What a generator needs from the test: an account to send as. */
export interface FuzzContext {
  apiKey: string;
  /** Paths of tus uploads the test created beforehand (`/v1/uploads/<id>`), for PATCH/HEAD cases. */
  uploadPaths?: string[];
}

export type CaseGenerator = (rng: Rng, ctx: FuzzContext) => FuzzCase;

/** Filenames that have broken parsers before: traversal, control and bidi characters, quoting, length. */
export const ODD_FILENAMES = [
  "../../etc/passwd",
  "..\\..\\boot.ini",
  "photo\u0000.jpg",
  "\u202egpj.exe",
  "日本語の写真.jpg",
  "emoji-📷.jpg",
  "a;b=c.jpg",
  "quote\\\"d.jpg",
  "   ",
  "",
  ".",
  "CON",
  "x".repeat(300),
  "%2e%2e%2fetc%2fpasswd",
  "tab\tname.jpg",
  "semi;colon;.heic",
  "multi.dot.name.jpeg",
  "ÄÖÜ.JPG",
] as const;

export const ENCODER = new TextEncoder();

export function concatBytes(...pieces: Array<Uint8Array | string>): Uint8Array {
  const arrays = pieces.map((p) => (typeof p === "string" ? ENCODER.encode(p) : p));
  const out = new Uint8Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) {
    out.set(a, at);
    at += a.length;
  }
  return out;
}

/** A body that arrives in random chunk sizes, as a real connection delivers it. */
export function randomlyChunked(rng: Rng, body: Uint8Array): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= body.length) return controller.close();
      const size = rng.pick([1, 7, 64, 1000, 4096, 65536]);
      controller.enqueue(body.slice(at, at + size));
      at += size;
    },
  });
}

/** A body that fails part-way, as a connection reset mid-upload does. */
export function failingStream(body: Uint8Array, failAt: number): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!sent) {
        sent = true;
        controller.enqueue(body.slice(0, failAt));
        return;
      }
      controller.error(new Error("connection reset by peer"));
    },
  });
}
