/**
 * @module Video ingest: probe with ffprobe, stream small grey frames from ffmpeg to score
 * sharpness and motion (keyframes.ts), then decode the chosen frames at full resolution and
 * write them like stills. Frames are named `<file name>#<frame index>` (0-based index in the
 * stream, docs/API.md). All frames of one video share the default focal prior (no EXIF focal for
 * video streams); SfM shares intrinsics for frames with the same `video.file`.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import ffmpegInstaller from "@ffmpeg-installer/ffmpeg";
import ffprobeInstaller from "@ffprobe-installer/ffprobe";
import sharp from "sharp";
import { jpegOptions } from "../../util/jpeg.js";
import type { IngestedImage } from "./image.js";
import { laplacianVariance, selectKeyframes } from "./keyframes.js";
import type { Options } from "./options.js";
import { halve, meanBlockMotion } from "./motion.js";

/** The ingest stage's options (type-only import: no runtime cycle with index.ts). */
export type VideoOptions = Options;

/** At most this many frames are scored; longer videos are scored every k-th frame. */
const MAX_ANALYSED_FRAMES = 900;

interface Probe {
  width: number;
  height: number;
  frameCount: number;
}

export async function probeVideo(path: string): Promise<Probe> {
  const { stdout } = await runTool(ffprobeInstaller.path, ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height,nb_frames,duration,avg_frame_rate:stream_tags=rotate:stream_side_data=rotation", "-of", "json", path]);
  const parsed = JSON.parse(stdout.toString()) as { streams?: Array<Record<string, unknown>> };
  const stream = parsed.streams?.[0];
  if (!stream || !Number(stream.width) || !Number(stream.height)) throw new Error("no decodable video stream");
  const tags = stream.tags as Record<string, string> | undefined;
  const sideData = stream.side_data_list as Array<{ rotation?: number }> | undefined;
  const rotation = Number(tags?.rotate ?? sideData?.find((d) => d.rotation !== undefined)?.rotation ?? 0);
  // ffmpeg auto-rotates while decoding, so a ±90° stream decodes with width and height swapped.
  const quarterTurn = Math.abs(Math.round(rotation / 90)) % 2 === 1;
  const [rate, base] = String(stream.avg_frame_rate ?? "0/1").split("/").map(Number);
  const estimated = Math.round(Number(stream.duration ?? 0) * (base ? rate / base : 0));
  return {
    width: quarterTurn ? Number(stream.height) : Number(stream.width),
    height: quarterTurn ? Number(stream.width) : Number(stream.height),
    frameCount: Number(stream.nb_frames) || estimated,
  };
}

export async function ingestVideo(file: { path: string; name: string }, stem: string, workDir: string, options: VideoOptions): Promise<IngestedImage[]> {
  const probe = await probeVideo(file.path);
  if (Math.min(probe.width, probe.height) < options.minImageSide) throw new Error(`video too small (${probe.width}×${probe.height})`);
  const step = Math.max(1, Math.ceil(probe.frameCount / MAX_ANALYSED_FRAMES));
  const scored = await scoreFrames(file.path, probe, step, options.videoAnalysisSide);
  if (scored.frames.length === 0) throw new Error("video has no decodable frames");
  const positions = selectKeyframes(scored.sharpness, scored.motion, options.videoMaxMotion, options.videoMinKeyframes, options.videoMaxKeyframes);
  const frameIndices = positions.map((p) => scored.frames[p]);
  const scale = Math.min(1, options.maxImageSide / Math.max(probe.width, probe.height));
  const width = Math.round(probe.width * scale);
  const height = Math.round(probe.height * scale);
  const focal = options.defaultFocalFactor * Math.max(width, height);
  const out: IngestedImage[] = [];
  let k = 0;
  await streamFrames(file.path, [`select='${frameIndices.map((f) => `eq(n\\,${f})`).join("+")}'`, `scale=${width}:${height}:flags=lanczos`], "rgb24", width * height * 3, async (rgb) => {
    const frame = frameIndices[k++];
    const path = join(workDir, `${stem}-f${String(frame).padStart(6, "0")}.jpg`);
    await sharp(rgb, { raw: { width, height, channels: 3 } }).jpeg(jpegOptions(options.jpegQuality)).toFile(path);
    const sharpness = scored.sharpness[positions[k - 1]];
    out.push({ name: `${file.name}#${frame}`, path, width, height, focalPrior: focal, focalPriorSource: "default", video: { file: file.name, frame }, notes: { kind: "video-frame", width, height, sharpness, motion: scored.motion[positions[k - 1]] } });
  });
  if (out.length !== frameIndices.length) throw new Error(`video: extracted ${out.length} of ${frameIndices.length} keyframes`);
  return out;
}

/** Sharpness and cumulative motion (fraction of width) of every `step`-th frame at a small size. */
async function scoreFrames(path: string, probe: Probe, step: number, analysisSide: number): Promise<{ frames: number[]; sharpness: Float64Array; motion: Float64Array }> {
  const scale = Math.min(1, analysisSide / Math.max(probe.width, probe.height));
  const width = Math.max(16, 2 * Math.round((probe.width * scale) / 2));
  const height = Math.max(16, 2 * Math.round((probe.height * scale) / 2));
  const frames: number[] = [];
  const sharpness: number[] = [];
  const motion: number[] = [];
  let previous: Uint8Array | null = null; // last frame at half the analysis size, for motion
  let travelled = 0;
  const filters = [...(step > 1 ? [`select='not(mod(n\\,${step}))'`] : []), `scale=${width}:${height}:flags=area`];
  await streamFrames(path, filters, "gray", width * height, (gray) => {
    const half = halve(gray, width, height);
    if (previous) travelled += meanBlockMotion(previous, half.gray, half.width, half.height) / half.width;
    frames.push(frames.length * step);
    sharpness.push(laplacianVariance(gray, width, height));
    motion.push(travelled);
    previous = half.gray;
  });
  return { frames, sharpness: Float64Array.from(sharpness), motion: Float64Array.from(motion) };
}

/** Decode the first video stream through `filters`, calling `onFrame` with each raw frame in order. */
async function streamFrames(path: string, filters: string[], pixelFormat: "gray" | "rgb24", frameBytes: number, onFrame: (frame: Buffer) => void | Promise<void>): Promise<void> {
  const args = ["-hide_banner", "-loglevel", "error", "-i", path, "-map", "0:v:0", "-vf", filters.join(","), "-vsync", "0", "-f", "rawvideo", "-pix_fmt", pixelFormat, "-"];
  const child = spawn(ffmpegInstaller.path, args, { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  let pending: Buffer = Buffer.alloc(0);
  for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= frameBytes) {
      await onFrame(pending.subarray(0, frameBytes));
      pending = pending.subarray(frameBytes);
    }
  }
  const code = await exited;
  if (code !== 0) throw new Error(`ffmpeg failed (exit ${code}): ${stderr.trim().split("\n").slice(-1)[0] ?? ""}`);
}

async function runTool(bin: string, args: string[]): Promise<{ stdout: Buffer }> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve({ stdout: Buffer.concat(out) }) : reject(new Error(`${bin.split("/").pop()} failed: ${stderr.trim().split("\n")[0]}`))));
  });
}
