import { describe, expect, it } from "vitest";
import { MultipartError, MultipartReader, boundaryOf, indexOf } from "../../edge/uploads/multipart.js";
import { BOUNDARY, byteStream, chunkedStream, filler, multipartBody, type FormPart } from "./upload-fixtures.js";

interface ReadPart {
  name: string;
  fileName: string | undefined;
  data: Uint8Array;
}

async function readAll(stream: ReadableStream<Uint8Array>, boundary = BOUNDARY): Promise<ReadPart[]> {
  const reader = new MultipartReader(stream, boundary);
  const parts: ReadPart[] = [];
  for (let headers = await reader.nextPart(); headers; headers = await reader.nextPart()) {
    const chunks: Uint8Array[] = [];
    for await (const chunk of reader.readBody()) chunks.push(chunk.slice());
    const data = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const c of chunks) {
      data.set(c, at);
      at += c.length;
    }
    parts.push({ name: headers.name, fileName: headers.fileName, data });
  }
  return parts;
}

// Payload bytes that contain the delimiter's prefixes, to catch off-by-one boundary scanning.
const tricky = new TextEncoder().encode(`a\r\n--${BOUNDARY.slice(0, -1)}X\r\n-\r\n--\r`);

describe("MultipartReader", () => {
  const parts: FormPart[] = [
    { name: "quality", data: "high" },
    { name: "files", fileName: "a.jpg", contentType: "image/jpeg", data: filler(5000, 9) },
    { name: "files", fileName: "b.bin", data: tricky },
    { name: "files", fileName: "c.bin", data: new Uint8Array(0) },
  ];
  const body = multipartBody(parts);

  it.each([[[1]], [[2, 3, 5, 7]], [[64]], [[100_000]]])("recovers every part exactly when the body arrives in chunks of %j bytes", async (sizes) => {
    const read = await readAll(chunkedStream(body, sizes));
    expect(read.map((p) => [p.name, p.fileName])).toEqual(parts.map((p) => [p.name, p.fileName]));
    for (const [i, part] of parts.entries()) {
      const expected = typeof part.data === "string" ? new TextEncoder().encode(part.data) : part.data;
      expect(read[i]!.data).toEqual(expected);
    }
  });

  it.each([[[1]], [[3, 70, 9000]], [[100_000]]])("recovers every part through a BYOB reader (byte stream in chunks of %j)", async (sizes) => {
    const read = await readAll(byteStream(body, sizes));
    expect(read.map((p) => p.data.length)).toEqual([4, 5000, tricky.length, 0]);
    expect(read[1]!.data).toEqual(filler(5000, 9));
    expect(read[2]!.data).toEqual(tricky);
  });

  it("finds a delimiter split across two chunks at every offset", async () => {
    const small = multipartBody([{ name: "files", fileName: "x.bin", data: filler(300, 4) }]);
    const delimiterAt = small.indexOf(13, 300); // the CR that opens the closing delimiter
    for (let split = delimiterAt - 3; split <= delimiterAt + BOUNDARY.length + 6; split++) {
      const read = await readAll(chunkedStream(small, [split, 1 << 20]));
      expect(read).toHaveLength(1);
      expect(read[0]!.data).toEqual(filler(300, 4));
    }
  });

  it("skips a preamble and ignores the epilogue", async () => {
    const withPreamble = new Uint8Array([...new TextEncoder().encode("preamble text\r\n"), ...body, ...new TextEncoder().encode("epilogue")]);
    const read = await readAll(chunkedStream(withPreamble, [13]));
    expect(read).toHaveLength(4);
  });

  it("decodes an RFC 5987 filename* parameter", async () => {
    const raw = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename*=UTF-8''caf%C3%A9.jpg\r\n\r\nx\r\n--${BOUNDARY}--`;
    const read = await readAll(chunkedStream(new TextEncoder().encode(raw), [8]));
    expect(read[0]!.fileName).toBe("café.jpg");
  });

  it.each([
    ["a body that ends inside a part", `--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="a"\r\n\r\nabc`],
    ["a part without Content-Disposition", `--${BOUNDARY}\r\nContent-Type: text/plain\r\n\r\nabc\r\n--${BOUNDARY}--`],
    ["a body without any boundary", "just some text"],
    ["headers that never end", `--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"`],
  ])("rejects %s", async (_label, raw) => {
    await expect(readAll(chunkedStream(new TextEncoder().encode(raw), [5]))).rejects.toBeInstanceOf(MultipartError);
  });
});

describe("boundaryOf", () => {
  it("reads quoted and bare boundaries of multipart/form-data only", () => {
    expect(boundaryOf(`multipart/form-data; boundary=${BOUNDARY}`)).toBe(BOUNDARY);
    expect(boundaryOf(`Multipart/Form-Data; charset=utf-8; boundary="a b;c"`)).toBe("a b;c");
    expect(boundaryOf("application/json")).toBeUndefined();
    expect(boundaryOf("multipart/form-data")).toBeUndefined();
    expect(boundaryOf(`multipart/mixed; boundary=x`)).toBeUndefined();
    expect(boundaryOf(null)).toBeUndefined();
  });
});

describe("indexOf", () => {
  it("finds a needle at the start, middle, end, and reports absence", () => {
    const hay = new Uint8Array([1, 2, 3, 1, 2, 4, 1, 2]);
    expect(indexOf(hay, new Uint8Array([1, 2, 3]), 0)).toBe(0);
    expect(indexOf(hay, new Uint8Array([1, 2, 4]), 0)).toBe(3);
    expect(indexOf(hay, new Uint8Array([1, 2]), 4)).toBe(6);
    expect(indexOf(hay, new Uint8Array([2, 1, 2, 5]), 0)).toBe(-1);
  });
});
