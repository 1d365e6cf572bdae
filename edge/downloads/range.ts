/** @module One HTTP byte range (RFC 9110 §14.1.2) resolved against a known size. */

export interface ByteRange {
  offset: number;
  length: number;
}

/**
 * Parses a `Range` header for a resource of `size` bytes. Returns the range to serve,
 * "unsatisfiable" (answer 416), or undefined when the header is absent, not a single
 * `bytes` range, or syntactically invalid — RFC 9110 says to ignore it and send the whole.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | "unsatisfiable" | undefined {
  if (!header) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return undefined;
  const [, first, last] = match as unknown as [string, string, string];
  if (first === "" && last === "") return undefined;
  if (first === "") {
    // Suffix range: the final `last` bytes.
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    const offset = Math.max(0, size - suffix);
    return { offset, length: size - offset };
  }
  const start = Number(first);
  const end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== "" && Number(last) < start) return undefined;
  if (start >= size) return "unsatisfiable";
  return { offset: start, length: end - start + 1 };
}
