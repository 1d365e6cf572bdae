/**
 * @module Streams a creation request's `multipart/form-data` body into R2: one object per
 * `files` part under `inputs/<id>/`, each sniffed by its first bytes and held to the limits
 * while it streams. On any rejection every object already written is deleted.
 */
import { ApiError } from "../errors.js";
import { Quality, type InputKind, type JobInput } from "../../shared/jobs.js";
import { inputKey, inputPrefix } from "../../shared/storage-keys.js";
import { MultipartError, MultipartReader, type PartHeaders } from "./multipart.js";
import { MIN_PART_BYTES, R2StreamWriter } from "./r2-writer.js";
import { SNIFF_BYTES, isVideo, jpegDisplayedSize, pngSize, sniffKind } from "./sniff.js";
import { MAX_GCP_BYTES, checkpointNames, type SurveyFields } from "./control-points.js";

export interface UploadLimits {
  maxFiles: number;
  maxImageBytes: number;
  maxVideoBytes: number;
  maxRequestBytes: number;
}

export interface IngestedInput extends JobInput {
  /** Pixel count read from the header (JPEG/PNG), for the estimate. */
  pixels?: number;
  /** Size as displayed (EXIF orientation applied), when the header gave it: the control-point marks are checked against it. */
  width?: number;
  height?: number;
}

export interface IngestResult {
  inputs: IngestedInput[];
  quality: Quality;
  /** The survey fields as sent; edge/uploads/control-points.ts checks them against the inputs. */
  survey: SurveyFields;
}

export const FILES_FIELD = "files";
export const QUALITY_FIELD = "quality";
/** The survey fields (docs/API.md "Control points"). */
export const GCP_FIELD = "gcp";
export const CHECKPOINTS_FIELD = "checkpoints";
export const CONTROL_POINTS_FIELD = "control_points";
export const OUTPUT_CRS_FIELD = "output_crs";
const MAX_CHECKPOINTS_BYTES = 64 * 1024;
/** A JPEG's SOF usually sits within the first few KiB, after EXIF (itself at most 64 KiB). */
export const HEADER_PROBE_BYTES = 128 * 1024;
const MAX_FIELD_BYTES = 64;
const MAX_NAME_CHARS = 255;

/**
 * The creation form as an OpenAPI 3.1 / JSON Schema object, for the API document: repeated
 * `files` parts and the optional `quality` field. Any other field is refused with 400.
 */
export const CREATE_FORM_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: [FILES_FIELD],
  properties: {
    [FILES_FIELD]: {
      type: "array",
      minItems: 1,
      items: { type: "string", contentMediaType: "application/octet-stream" },
      description: "One part per file, each with a filename. JPEG, PNG, HEIC images; MP4, MOV videos; judged by their bytes.",
    },
    [QUALITY_FIELD]: {
      type: "string",
      enum: [...Quality.options],
      default: "standard",
      description: "Pipeline effort: preview (fast, coarse), standard, or high (slow, dense). Scales the estimate.",
    },
    [GCP_FIELD]: {
      type: "string",
      contentMediaType: "text/plain",
      description:
        "Optional: ground control points as OpenDroneMap's gcp_list.txt (a file part, or a text field), at most 1 MiB. First line the coordinate system (EPSG:<code>, WGS84 UTM <zone><N|S>, or a PROJ string); then one mark per line: geo_x geo_y geo_z im_x im_y image_name [point_name]. Blank lines and # comments are allowed. Every point has stated accuracy 0.05 m horizontal, 0.10 m vertical.",
    },
    [CHECKPOINTS_FIELD]: {
      type: "string",
      description: "Optional, with gcp: names of the file's points that are checkpoints (measured against, not used to place the model), separated by commas, e.g. a,b.",
      example: "a,b",
    },
    [CONTROL_POINTS_FIELD]: {
      type: "string",
      contentMediaType: "application/json",
      description: "Optional, instead of gcp: the JSON form of the control points (schema ControlPointsInput) as a text field.",
    },
    [OUTPUT_CRS_FIELD]: {
      type: "string",
      description: "Optional: EPSG:<code> of a projected coordinate system in metres for the georeferenced outputs.",
      example: "EPSG:32632",
    },
  },
} as const;

export const STORED_CONTENT_TYPES: Record<InputKind, string> = {
  jpeg: "image/jpeg",
  png: "image/png",
  heic: "image/heic",
  mp4: "video/mp4",
  mov: "video/quicktime",
};

/** Reads the whole body into R2; throws ApiError (400/413) after cleaning up. */
export async function ingestUpload(
  body: ReadableStream<Uint8Array>,
  boundary: string,
  bucket: R2Bucket,
  reconstructionId: string,
  limits: UploadLimits,
  openReader: (body: ReadableStream<Uint8Array>, boundary: string) => MultipartReader = (b, s) => new MultipartReader(b, s),
): Promise<IngestResult> {
  const reader = openReader(body, boundary);
  reader.onRead = (bytesRead) => {
    if (bytesRead > limits.maxRequestBytes) throw tooLarge(`The request is larger than the limit of ${mib(limits.maxRequestBytes)} per request.`);
  };
  const session = new IngestSession(reader, bucket, reconstructionId, limits);
  try {
    return await session.run();
  } catch (err) {
    await reader.cancel();
    await session.abort();
    await deleteInputs(bucket, reconstructionId);
    if (err instanceof MultipartError) throw new ApiError("invalid_request", `Malformed multipart body: ${err.message}.`, "Send multipart/form-data with one `files` part per file.");
    throw err;
  }
}

/** Deletes every object under `inputs/<id>/` (a rejected creation leaves nothing behind). */
export async function deleteInputs(bucket: R2Bucket, reconstructionId: string): Promise<void> {
  for (;;) {
    const listing = await bucket.list({ prefix: inputPrefix(reconstructionId), limit: 1000 });
    if (listing.objects.length === 0) return;
    await bucket.delete(listing.objects.map((o) => o.key));
    if (!listing.truncated) return;
  }
}

class IngestSession {
  private readonly inputs: IngestedInput[] = [];
  private quality: Quality | undefined;
  private readonly survey: SurveyFields = {};
  private writer: R2StreamWriter | undefined;
  /** One R2 part buffer for the whole request: files are written one after the other. */
  private partBuffer: Uint8Array | undefined;
  /** One JPEG header probe for the whole request, reset per file. */
  private readonly probe = new PrefixProbe(HEADER_PROBE_BYTES);

  constructor(
    private readonly reader: MultipartReader,
    private readonly bucket: R2Bucket,
    private readonly reconstructionId: string,
    private readonly limits: UploadLimits,
  ) {}

  async run(): Promise<IngestResult> {
    // A bad text field (unknown, a bad or repeated quality, `files` without a filename) is
    // refused only once the body shows there were files: a form with no file part at all
    // answers no_files whatever text fields it carries (docs/API.md "Which error wins",
    // as clients read it: the missing files are the error to fix first).
    let unknownField: ApiError | undefined;
    for (let part = await this.reader.nextPart(); part; part = await this.reader.nextPart()) {
      if (part.name === FILES_FIELD && part.fileName !== undefined) await this.readFile(part.fileName);
      // The gcp file may come as a file part or as a text field; it is text either way.
      else if (part.name === GCP_FIELD) unknownField ??= await this.readSurveyField(part.name).then(() => undefined, (err: unknown) => deferrable(err));
      else if (part.fileName !== undefined) throw unexpectedPart(part);
      else if (part.name === QUALITY_FIELD) unknownField ??= await this.readQuality().then(() => undefined, (err: unknown) => deferrable(err));
      else if (SURVEY_TEXT_FIELDS.has(part.name)) unknownField ??= await this.readSurveyField(part.name).then(() => undefined, (err: unknown) => deferrable(err));
      else unknownField ??= unexpectedPart(part);
    }
    if (this.inputs.length === 0) throw new ApiError("no_files", "The request has no file part.", "Add one `files` part per image or video.");
    if (unknownField) throw unknownField;
    return { inputs: this.inputs, quality: this.quality ?? "standard", survey: this.survey };
  }

  async abort(): Promise<void> {
    await this.writer?.abort();
  }

  private async readQuality(): Promise<void> {
    if (this.quality !== undefined) throw new ApiError("invalid_request", "The `quality` field is given more than once.", "Send `quality` at most once.");
    let text = "";
    for await (const chunk of this.reader.readBody()) {
      text += new TextDecoder().decode(chunk);
      if (text.length > MAX_FIELD_BYTES) break;
    }
    const parsed = Quality.safeParse(text.trim());
    if (!parsed.success) throw new ApiError("invalid_request", `\`quality\` must be one of ${Quality.options.join(", ")}.`, "Omit `quality` for the default, standard.");
    this.quality = parsed.data;
  }

  /** One of the survey fields, kept as text (or parsed JSON) for the checks after the upload. */
  private async readSurveyField(name: string): Promise<void> {
    const field = SURVEY_PARTS[name]!;
    if (this.survey[field.key] !== undefined) throw new ApiError("invalid_request", `The \`${name}\` field is given more than once.`, `Send \`${name}\` at most once.`);
    const text = await readText(this.reader.readBody(), field.maxBytes, name);
    if (field.key === "checkpoints") this.survey.checkpoints = checkpointNames(text);
    else if (field.key === "controlPoints") this.survey.controlPoints = parseJsonField(text);
    else this.survey[field.key] = text;
  }

  private async readFile(fileName: string): Promise<void> {
    if (this.inputs.length >= this.limits.maxFiles) throw tooLarge(`The request has more than the limit of ${this.limits.maxFiles} files.`);
    const chunks = this.reader.readBody()[Symbol.asyncIterator]();
    const head = await readHead(chunks);
    const displayName = fileName.slice(0, MAX_NAME_CHARS);
    if (head.length === 0) throw new ApiError("invalid_request", `The file "${displayName}" is empty.`, "Remove empty files from the request.");
    const kind = sniffKind(head.subarray(0, SNIFF_BYTES));
    if (!kind) {
      throw new ApiError("invalid_file_format", `The file "${displayName}" is not a JPEG, PNG, HEIC, MP4 or MOV file (judged by its content).`, "Upload JPEG, PNG or HEIC images, or MP4 or MOV videos.");
    }
    const maxBytes = isVideo(kind) ? this.limits.maxVideoBytes : this.limits.maxImageBytes;
    const key = inputKey(this.reconstructionId, this.inputs.length, fileName);
    this.partBuffer ??= new Uint8Array(MIN_PART_BYTES);
    this.writer = new R2StreamWriter(this.bucket, key, STORED_CONTENT_TYPES[kind], this.partBuffer);
    const probe = kind === "jpeg" ? this.probe.reset() : undefined;
    let size = 0;
    for (let chunk: Uint8Array | undefined = head; chunk; chunk = await nextChunk(chunks)) {
      size += chunk.length;
      if (size > maxBytes) throw tooLarge(`The file "${displayName}" is larger than the limit of ${mib(maxBytes)} per ${isVideo(kind) ? "video" : "image"}.`);
      probe?.add(chunk);
      await this.writer.write(chunk);
    }
    await this.writer.close();
    this.writer = undefined;
    const dimensions = kind === "png" ? pngSize(head) : probe ? jpegDisplayedSize(probe.bytes()) : undefined;
    const input: IngestedInput = { key, name: displayName, kind, size };
    if (dimensions && dimensions.width > 0 && dimensions.height > 0) Object.assign(input, { pixels: dimensions.width * dimensions.height, width: dimensions.width, height: dimensions.height });
    this.inputs.push(input);
  }
}

/** Each survey part: where it goes in SurveyFields and how long it may be. */
const SURVEY_PARTS: Record<string, { key: keyof SurveyFields; maxBytes: number }> = {
  [GCP_FIELD]: { key: "gcp", maxBytes: MAX_GCP_BYTES },
  [CHECKPOINTS_FIELD]: { key: "checkpoints", maxBytes: MAX_CHECKPOINTS_BYTES },
  [CONTROL_POINTS_FIELD]: { key: "controlPoints", maxBytes: MAX_GCP_BYTES },
  [OUTPUT_CRS_FIELD]: { key: "outputCrs", maxBytes: MAX_FIELD_BYTES },
};
const SURVEY_TEXT_FIELDS = new Set([CHECKPOINTS_FIELD, CONTROL_POINTS_FIELD, OUTPUT_CRS_FIELD]);

/** A text part as UTF-8, refused (413) past `limit` bytes. */
async function readText(chunks: AsyncIterable<Uint8Array>, limit: number, name: string): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  for await (const chunk of chunks) {
    bytes += chunk.length;
    if (bytes > limit) throw tooLarge(`The \`${name}\` part is larger than the limit of ${limit >= 1024 * 1024 ? mib(limit) : `${limit} bytes`}.`);
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

function parseJsonField(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError("invalid_request", "The `control_points` field is not valid JSON.", "Send control_points as JSON (schema ControlPointsInput).");
  }
}

/** Gathers at least SNIFF_BYTES (or the whole part if shorter) from the part's first chunks. */
async function readHead(chunks: AsyncIterator<Uint8Array>): Promise<Uint8Array> {
  let head: Uint8Array = new Uint8Array(0);
  while (head.length < SNIFF_BYTES) {
    const chunk = await nextChunk(chunks);
    if (!chunk) break;
    const joined = new Uint8Array(head.length + chunk.length);
    joined.set(head, 0);
    joined.set(chunk, head.length);
    head = joined;
  }
  return head;
}

async function nextChunk(chunks: AsyncIterator<Uint8Array>): Promise<Uint8Array | undefined> {
  const step = await chunks.next();
  return step.done ? undefined : step.value;
}

/** Keeps a copy of the first `capacity` bytes of a stream (for header parsing). */
class PrefixProbe {
  private readonly buffer: Uint8Array;
  private filled = 0;
  constructor(capacity: number) {
    this.buffer = new Uint8Array(capacity);
  }
  reset(): this {
    this.filled = 0;
    return this;
  }
  add(chunk: Uint8Array): void {
    const take = Math.min(chunk.length, this.buffer.length - this.filled);
    if (take > 0) this.buffer.set(chunk.subarray(0, take), this.filled);
    this.filled += take;
  }
  bytes(): Uint8Array {
    return this.buffer.subarray(0, this.filled);
  }
}

/** A bad text field's invalid_request, kept until the body shows whether any file came; anything else is thrown. */
function deferrable(err: unknown): ApiError {
  if (err instanceof ApiError && err.code === "invalid_request") return err;
  throw err;
}

function unexpectedPart(part: PartHeaders): ApiError {
  if (part.fileName !== undefined) {
    return new ApiError("invalid_request", `A file was sent under the field "${part.name}"; files go under "${FILES_FIELD}".`, `Name every file part "${FILES_FIELD}".`);
  }
  if (part.name === FILES_FIELD) return new ApiError("invalid_request", `A "${FILES_FIELD}" part has no filename.`, "Send each file with a filename.");
  return new ApiError("invalid_request", `Unknown form field "${part.name}".`, `Allowed fields: "${FILES_FIELD}" (repeated), "${QUALITY_FIELD}", "${GCP_FIELD}", "${CHECKPOINTS_FIELD}", "${CONTROL_POINTS_FIELD}" and "${OUTPUT_CRS_FIELD}".`);
}

function tooLarge(message: string): ApiError {
  return new ApiError("payload_too_large", message, "Split the upload or send smaller files.");
}

export function mib(bytes: number): string {
  const value = bytes / (1024 * 1024);
  return `${Number.isInteger(value) ? value : value.toFixed(2)} MiB`;
}
