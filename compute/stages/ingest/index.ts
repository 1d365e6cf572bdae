/**
 * @module Stage `ingest`: turn uploaded files (JPEG, PNG, HEIC stills; MP4, MOV videos) into
 * upright 8-bit RGB images on disk with focal-length priors. The file kind comes from its
 * bytes (sniff.ts). Videos are cut into keyframes chosen for sharpness and overlap (video.ts).
 * A file that cannot be used is skipped with a reason; fewer than two usable images is an error.
 */
import { mkdir } from "node:fs/promises";
import type { ImageRef, SkippedInput } from "../../scene/images.js";
import { PipelineError, type ProgressFn, type StageReport } from "../../scene/report.js";
import { ingestStill, type IngestedImage } from "./image.js";
import { DEFAULTS, type Options } from "./options.js";
import { sniffFile } from "./sniff.js";
import { ingestVideo } from "./video.js";

export const NAME = "ingest";

export { DEFAULTS, type Options } from "./options.js";

export interface Input {
  files: Array<{ path: string; name: string }>;
  workDir: string;
}

export interface Output {
  images: ImageRef[];
  skipped: SkippedInput[];
  report: StageReport;
}

/** What one uploaded file gave: its images (a still's one, a video's keyframes), or why it was skipped. */
type FileOutcome = { images: IngestedImage[]; video: boolean } | { skipped: SkippedInput };

async function ingestFile(file: { path: string; name: string }, fileIndex: number, workDir: string, opts: Options): Promise<FileOutcome> {
  const stem = `${String(fileIndex).padStart(4, "0")}-${file.name.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 80)}`;
  try {
    const sniffed = await sniffFile(file.path);
    if (sniffed.kind === "unknown") throw new Error(`not a supported image or video: ${sniffed.description}`);
    if (sniffed.kind === "video") return { images: await ingestVideo(file, stem, workDir, opts), video: true };
    return { images: [await ingestStill(file, sniffed.kind, stem, workDir, opts)], video: false };
  } catch (err) {
    const message = err instanceof Error ? err.message.split("\n")[0] : String(err);
    return { skipped: { name: file.name, reason: FAIL_ON_WARNING.test(message) ? CORRUPT_DATA : message } };
  }
}

/**
 * sharp's message when libvips stopped on a data warning (`failOn: "warning"`) but its own text
 * ("VipsJpeg: Premature end of JPEG file") was not kept: libvips' error text is shared by the
 * process, and the other file's decode may clear it first. The reason then says what it means.
 */
const FAIL_ON_WARNING = /Warning treated as error due to failOn/;
const CORRUPT_DATA = "corrupt or truncated image data (the decoder stopped on a warning)";

/**
 * Files ingested at once. One photo's decode, resize and encode keeps about 1.65 of the two cores
 * busy (sharp's threads; the speed bench's ingest rows at 0fd7d0f: 1.64–1.69 cores), so two at a
 * time fill both; the outcomes are used in the files' order, so the images and the report do not
 * depend on which finished first.
 */
const FILES_AT_ONCE = 2;

export async function run(input: Input, options: Partial<Options> = {}, progress?: ProgressFn): Promise<Output> {
  const started = performance.now();
  const opts: Options = { ...DEFAULTS, ...options };
  await mkdir(input.workDir, { recursive: true });
  const outcomes: FileOutcome[] = new Array(input.files.length);
  let next = 0;
  let done = 0;
  let imagesSoFar = 0;
  const lane = async (): Promise<void> => {
    while (next < input.files.length) {
      const fileIndex = next++;
      const outcome = await ingestFile(input.files[fileIndex], fileIndex, input.workDir, opts);
      outcomes[fileIndex] = outcome;
      if ("images" in outcome) imagesSoFar += outcome.images.length;
      progress?.(++done / input.files.length, imagesSoFar);
    }
  };
  await Promise.all(Array.from({ length: Math.min(FILES_AT_ONCE, input.files.length) }, lane));
  const ingested: IngestedImage[] = [];
  const skipped: SkippedInput[] = [];
  const perImage: StageReport["perImage"] = [];
  let videos = 0;
  for (const outcome of outcomes) {
    if ("skipped" in outcome) {
      skipped.push(outcome.skipped);
      perImage.push({ name: outcome.skipped.name, skipped: true, reason: outcome.skipped.reason });
      continue;
    }
    if (outcome.video) videos++;
    ingested.push(...outcome.images);
  }
  if (ingested.length < 2) {
    const why = skipped.map((s) => `${s.name}: ${s.reason}`).join("; ");
    throw new PipelineError(
      "no_usable_images",
      `ingest: ${ingested.length} usable image(s), at least 2 are needed${why ? ` (skipped ${why})` : ""}`,
      "Upload at least two JPEG, PNG or HEIC photos (or an MP4/MOV video) of the same subject.",
    );
  }
  const images: ImageRef[] = ingested.map(({ notes, ...ref }, index) => {
    perImage.push({ name: ref.name, ...notes });
    return { ...ref, index };
  });
  return {
    images,
    skipped,
    report: {
      stage: NAME,
      wallMs: performance.now() - started,
      counts: { files: input.files.length, images: images.length, skipped: skipped.length, videos, videoKeyframes: images.filter((i) => i.video).length },
      perImage,
      warnings: skipped.map((s) => `skipped ${s.name}: ${s.reason}`),
    },
  };
}
