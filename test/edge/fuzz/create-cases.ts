/**
 * @module Malformed `POST /v1/reconstruction` requests. Each generator plants at least one
 * defect that docs/API.md says must be refused (so a 2xx is a bug, not bad luck), then the shared
 * noise adds odd filenames, random chunking, padding headers or a lying Content-Length, which
 * must never turn a refusal into a 500.
 */
import { BOUNDARY, jpeg, mp4, pdf, png } from "../upload-fixtures.js";
import { ENCODER, ODD_FILENAMES, concatBytes, failingStream, randomlyChunked, type CaseGenerator, type FuzzCase, type FuzzContext, type Rng } from "./generator.js";

/** Small limits the fuzz test runs with (passed as vars), so "too large" costs kilobytes. */
export const FUZZ_LIMITS = { MAX_IMAGE_BYTES: "4096", MAX_VIDEO_BYTES: "8192", MAX_REQUEST_BYTES: "65536", MAX_FILES_PER_REQUEST: "6" } as const;

interface Part {
  /** Raw header block lines (without the trailing blank line). */
  headers: string[];
  data: Uint8Array;
}

const filePart = (name: string, fileName: string, data: Uint8Array, contentType = "image/jpeg"): Part => ({
  headers: [`Content-Disposition: form-data; name="${name}"; filename="${fileName}"`, `Content-Type: ${contentType}`],
  data,
});
const fieldPart = (name: string, value: string): Part => ({ headers: [`Content-Disposition: form-data; name="${name}"`], data: ENCODER.encode(value) });

function encode(parts: Part[], boundary = BOUNDARY, eol = "\r\n", closing = true): Uint8Array {
  const pieces: Array<Uint8Array | string> = [];
  for (const part of parts) pieces.push(`--${boundary}${eol}${part.headers.join(eol)}${eol}${eol}`, part.data, eol);
  if (closing) pieces.push(`--${boundary}--${eol}`);
  return concatBytes(...pieces);
}

/** A small valid image; `rng` varies its kind and size. */
function validImage(rng: Rng): Uint8Array {
  return rng.chance(0.5) ? jpeg(rng.int(16, 256), rng.int(16, 256), rng.int(16, 600)) : png(rng.int(16, 256), rng.int(16, 256));
}

function fileName(rng: Rng): string {
  return rng.chance(0.4) ? rng.pick(ODD_FILENAMES) : `img_${rng.int(0, 9999)}.jpg`;
}

/** Up to three valid files, to put before a defect (the clean-up of stored files is then tested too). */
function someValidFiles(rng: Rng): Part[] {
  return Array.from({ length: rng.int(0, 3) }, () => filePart("files", fileName(rng), validImage(rng)));
}

const multipartType = (boundary = BOUNDARY) => `multipart/form-data; boundary=${boundary}`;

interface Draft {
  label: string;
  body: Uint8Array;
  contentType: string | undefined;
  extraHeaders?: Record<string, string>;
  /** Deliver through a stream that errors after this many bytes. */
  failAt?: number;
}

/** The defects. Each returns a draft whose refusal docs/API.md requires. */
const DEFECTS: Array<(rng: Rng) => Draft> = [
  function wrongFieldName(rng) {
    const name = rng.pick(["file", "files[]", "Files", "photos", "", "files "]);
    return { label: `file part named ${JSON.stringify(name)}`, body: encode([...someValidFiles(rng), filePart(name, fileName(rng), validImage(rng))]), contentType: multipartType() };
  },
  function emptyFile(rng) {
    return { label: "an empty file part", body: encode([...someValidFiles(rng), filePart("files", fileName(rng), new Uint8Array(0))]), contentType: multipartType() };
  },
  function notAnImage(rng) {
    const payload = rng.pick([pdf(), rng.bytes(rng.int(1, 3000)), ENCODER.encode("<html>not a photo</html>"), new Uint8Array([0xff, 0xd8]), new Uint8Array([0x89, 0x50, 0x4e, 0x47]), ENCODER.encode("ftypisom")]);
    return { label: "a file that is not an image or video", body: encode([...someValidFiles(rng), filePart("files", rng.pick(["x.jpg", "x.png", "x.mp4", fileName(rng)]), payload)]), contentType: multipartType() };
  },
  function noFilePart(rng) {
    const parts = rng.chance(0.5) ? [fieldPart("quality", "high"), fieldPart(rng.pick(["note", "x", "files_"]), "text")] : [{ headers: ['Content-Disposition: form-data; name="files"'], data: validImage(rng) }];
    return { label: "no file part", body: encode(parts), contentType: multipartType() };
  },
  function boundaryMismatch(rng) {
    const declared = rng.pick(["other-boundary", `${BOUNDARY}x`, BOUNDARY.slice(1), BOUNDARY.toUpperCase()]);
    return { label: `boundary ${declared} declared, another used`, body: encode([filePart("files", fileName(rng), validImage(rng))]), contentType: multipartType(declared) };
  },
  function boundaryMissingOrInvalid(rng) {
    const type = rng.pick(["multipart/form-data", "multipart/form-data; boundary=", "multipart/form-data; boundary=\"", `multipart/form-data; boundary=${"b".repeat(200)}`, "multipart/form-data; charset=utf-8", "multipart/form-data;boundary"]);
    return { label: `Content-Type ${type.slice(0, 60)}`, body: encode([filePart("files", fileName(rng), validImage(rng))]), contentType: type };
  },
  function truncated(rng) {
    const full = encode([...someValidFiles(rng), filePart("files", fileName(rng), validImage(rng))]);
    const closingLength = `\r\n--${BOUNDARY}--\r\n`.length;
    const cut = rng.int(0, full.length - closingLength);
    return { label: `body cut at ${cut} of ${full.length} bytes`, body: full.slice(0, cut), contentType: multipartType() };
  },
  function streamResetMidway(rng) {
    const full = encode([...someValidFiles(rng), filePart("files", fileName(rng), validImage(rng))]);
    const failAt = rng.int(0, full.length - 1);
    return { label: `connection reset after ${failAt} of ${full.length} bytes`, body: full, contentType: multipartType(), failAt };
  },
  function garbage(rng) {
    return { label: "random bytes as the body", body: rng.bytes(rng.int(0, 5000)), contentType: multipartType() };
  },
  function wrongContentType(rng) {
    const type = rng.pick([undefined, "application/json", "text/plain", "application/x-www-form-urlencoded", "image/jpeg", "application/octet-stream", "multipart/mixed; boundary=" + BOUNDARY, "form-data; boundary=" + BOUNDARY]);
    return { label: `Content-Type ${String(type)}`, body: encode([filePart("files", fileName(rng), validImage(rng))]), contentType: type };
  },
  function brokenPartHeaders(rng) {
    const variant = rng.int(0, 4);
    const data = validImage(rng);
    const headers = [
      ["Content-Type: image/jpeg"],
      ['Content-Disposition form-data; name="files"; filename="a.jpg"'],
      [`Content-Disposition: form-data; name="files"; filename="a.jpg"`, `X-Pad: ${"p".repeat(17 * 1024)}`],
      [`Content-Disposition: attachment; name="files"; filename="a.jpg"`],
      [`Content-Disposition: form-data; name="files"; filename="a.jpg"`, "\u0000\u0001 binary header"],
    ][variant]!;
    const body = variant === 4 && rng.chance(0.5) ? encode([{ headers: headers.slice(0, 1), data }], BOUNDARY, "\n") : encode([{ headers, data }]);
    return { label: `broken part headers (variant ${variant})`, body, contentType: multipartType() };
  },
  function tooLarge(rng) {
    const variant = rng.int(0, 2);
    if (variant === 0) {
      const big = concatBytes(jpeg(64, 64, 5000));
      return { label: "an image over MAX_IMAGE_BYTES", body: encode([...someValidFiles(rng), filePart("files", fileName(rng), big)]), contentType: multipartType() };
    }
    if (variant === 1) {
      const files = Array.from({ length: 7 }, () => filePart("files", fileName(rng), validImage(rng)));
      return { label: "more files than MAX_FILES_PER_REQUEST", body: encode(files), contentType: multipartType() };
    }
    return { label: "Content-Length over MAX_REQUEST_BYTES", body: encode([filePart("files", fileName(rng), validImage(rng))]), contentType: multipartType(), extraHeaders: { "Content-Length": String(rng.int(70_000, 2 ** 40)) } };
  },
  function badQuality(rng) {
    const quality = rng.pick(["ultra", "", "HIGH", "preview\u0000", "1"]);
    const parts = [fieldPart("quality", quality), filePart("files", fileName(rng), validImage(rng))];
    if (rng.chance(0.3)) parts.unshift(fieldPart("quality", "high"));
    return { label: `quality ${JSON.stringify(quality)}`, body: encode(parts), contentType: multipartType() };
  },
  function videoTooLong(rng) {
    return { label: "a video over MAX_VIDEO_BYTES", body: encode([filePart("files", "clip.mp4", mp4(9000), "video/mp4")]), contentType: multipartType() };
  },
];

/** Noise that must not change the outcome class (still a 4xx with the envelope). */
function withNoise(rng: Rng, draft: Draft, ctx: FuzzContext): FuzzCase {
  const headers: Record<string, string> = { Authorization: `Bearer ${ctx.apiKey}` };
  if (draft.contentType !== undefined) headers["Content-Type"] = draft.contentType;
  const notes = [draft.label];
  if (rng.chance(0.15)) {
    headers["X-Padding"] = "x".repeat(rng.int(1000, 32 * 1024));
    notes.push("huge header");
  }
  if (rng.chance(0.1)) {
    headers["Content-Type"] = `${draft.contentType ?? "multipart/form-data"}; charset=${rng.pick(["utf-8", "latin1", "utf-16;;", "\"x\""])}`;
    notes.push("charset parameter");
  }
  if (rng.chance(0.15) && !draft.extraHeaders?.["Content-Length"]) {
    // A Content-Length that disagrees with the body (under the request limit).
    headers["Content-Length"] = String(rng.pick([0, 1, Math.max(0, draft.body.length - rng.int(1, 50)), draft.body.length + rng.int(1, 5000)]));
    notes.push(`Content-Length ${headers["Content-Length"]} for ${draft.body.length} bytes`);
  }
  Object.assign(headers, draft.extraHeaders);
  let body: BodyInit;
  if (draft.failAt !== undefined) body = failingStream(draft.body, draft.failAt);
  else if (rng.chance(0.5)) {
    body = randomlyChunked(rng, draft.body);
    notes.push("chunked");
  } else body = draft.body;
  return { label: notes.join(", "), path: "/v1/reconstruction", init: { method: "POST", headers, body } };
}

export const CREATE_GENERATORS: CaseGenerator[] = DEFECTS.map((defect) => (rng, ctx) => withNoise(rng, defect(rng), ctx));
