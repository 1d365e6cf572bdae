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

export async function run(input: Input, options: Partial<Options> = {}, progress?: ProgressFn): Promise<Output> {
  const started = performance.now();
  const opts: Options = { ...DEFAULTS, ...options };
  await mkdir(input.workDir, { recursive: true });
  const ingested: IngestedImage[] = [];
  const skipped: SkippedInput[] = [];
  const perImage: StageReport["perImage"] = [];
  let videos = 0;
  for (const [fileIndex, file] of input.files.entries()) {
    const stem = `${String(fileIndex).padStart(4, "0")}-${file.name.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 80)}`;
    try {
      const sniffed = await sniffFile(file.path);
      if (sniffed.kind === "unknown") throw new Error(`not a supported image or video: ${sniffed.description}`);
      if (sniffed.kind === "video") {
        const frames = await ingestVideo(file, stem, input.workDir, opts);
        videos++;
        ingested.push(...frames);
      } else {
        ingested.push(await ingestStill(file, sniffed.kind, stem, input.workDir, opts));
      }
    } catch (err) {
      const reason = err instanceof Error ? err.message.split("\n")[0] : String(err);
      skipped.push({ name: file.name, reason });
      perImage.push({ name: file.name, skipped: true, reason });
    }
    progress?.((fileIndex + 1) / input.files.length, ingested.length);
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
