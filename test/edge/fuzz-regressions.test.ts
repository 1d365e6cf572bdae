/** Regressions the create fuzz suite found in the multipart reader, pinned as plain cases. */
import { describe, expect, it } from "vitest";
import { MultipartError, MultipartReader } from "../../edge/uploads/multipart.js";
import { BOUNDARY, chunkedStream } from "./upload-fixtures.js";
import { failingStream } from "./fuzz/generator.js";

const encoder = new TextEncoder();

async function readAll(stream: ReadableStream<Uint8Array>): Promise<number> {
  const reader = new MultipartReader(stream, BOUNDARY);
  let parts = 0;
  for (let headers = await reader.nextPart(); headers; headers = await reader.nextPart()) {
    for await (const _ of reader.readBody()) void _;
    parts++;
  }
  return parts;
}

describe("multipart reader regressions (found by fuzz-create)", () => {
  const hugeHeader = encoder.encode(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="a.jpg"\r\nX-Pad: ${"p".repeat(17 * 1024)}\r\n\r\nabc\r\n--${BOUNDARY}--\r\n`);

  it.each([[[hugeHeader.length]], [[100]]])("refuses part headers over 16 KiB however the body is chunked (%j)", async (sizes) => {
    await expect(readAll(chunkedStream(hugeHeader, sizes))).rejects.toThrow(/part headers are too long/);
  });

  it("turns a body that breaks off mid-read into a MultipartError, not an unknown error", async () => {
    const body = encoder.encode(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="a.jpg"\r\n\r\nabcdef`);
    const error = await readAll(failingStream(body, 40)).catch((e) => e);
    expect(error).toBeInstanceOf(MultipartError);
    expect(error.message).toMatch(/broke off/);
  });
});
