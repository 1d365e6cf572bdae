/**
 * @module The CLI's commands. Each returns its exit code; human output goes to stdout and
 * progress to stderr, or with `--json` exactly one JSON document goes to stdout.
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import { PhotogrammetryClient, defaultFileName } from "../client.js";
import type { Format, Quality, StatusRecord } from "../types.js";
import { EXIT, UsageError } from "./exit-codes.js";
import { expandInputs } from "./inputs.js";
import { formatBytes, processingBar, uploadBar } from "./progress.js";

export interface CommonFlags {
  json: boolean;
  out: string;
  formats: Format[];
  quality: Quality | undefined;
  upload: "multipart" | "tus";
  intervalMs: number;
  timeoutMs: number | undefined;
  limit: number | undefined;
  status: StatusRecord["status"] | undefined;
  /** reconstruct: a gcp_list.txt, its checkpoint names, the output system. */
  gcp?: string;
  checkpoints?: string[];
  outputCrs?: string;
}

const print = (text: string) => process.stdout.write(`${text}\n`);
const printJson = (value: unknown) => print(JSON.stringify(value, null, 2));

function describeStatus(s: StatusRecord): string {
  const lines = [`${s.id}  ${s.status}  ${s.progress}%${s.stage ? `  stage ${s.stage}` : ""}`, `  created ${s.created_at}, files ${s.files_processed}/${s.total_files}`];
  if (s.queue?.reason === "queued") lines.push(`  queued: position ${s.queue.position}, estimated start ${s.queue.estimated_start}`);
  if (s.status === "pending" || s.status === "processing") lines.push(`  estimated completion ${s.estimated_completion}`);
  if (s.formats) lines.push(`  formats: ${s.formats.map((f) => `${f.format} (${formatBytes(f.file_size)})`).join(", ")}`);
  if (s.error) lines.push(`  error ${s.error.code}: ${s.error.message}`, `  ${s.error.suggestion}`, `  credit refunded: ${s.credit_refunded ? "yes" : "no"}`);
  return lines.join("\n");
}

async function downloadFormats(client: PhotogrammetryClient, id: string, flags: CommonFlags): Promise<Array<{ format: Format; path: string; file_size: number }>> {
  const saved = [];
  for (const format of flags.formats) {
    const target = path.join(flags.out, defaultFileName(id, format));
    const record = await client.download(id, format, target);
    saved.push({ format, path: target, file_size: record.file_size });
    if (!flags.json) print(`saved ${target} (${formatBytes(record.file_size)})`);
  }
  return saved;
}

async function waitWithBar(client: PhotogrammetryClient, id: string, flags: CommonFlags): Promise<StatusRecord> {
  const bar = flags.json ? undefined : processingBar();
  try {
    return await client.waitFor(id, { intervalMs: flags.intervalMs, timeoutMs: flags.timeoutMs, onProgress: (s) => bar?.update(s), throwOnFailure: false });
  } finally {
    bar?.stop();
  }
}

export async function reconstruct(client: PhotogrammetryClient, args: string[], flags: CommonFlags): Promise<number> {
  if (args.length === 0) throw new UsageError("reconstruct needs a folder or files");
  if (flags.checkpoints?.length && !flags.gcp) throw new UsageError("--checkpoints names points of --gcp; give the file too");
  if (flags.gcp && !(await stat(flags.gcp).catch(() => null))?.isFile()) throw new UsageError(`--gcp ${flags.gcp}: no such file`);
  const files = await expandInputs(args);
  const total = (await Promise.all(files.map((f) => stat(f)))).reduce((a, s) => a + s.size, 0);
  const bar = flags.json ? undefined : uploadBar(total, files.length);
  let created;
  try {
    created = await client.createReconstruction(files, { quality: flags.quality, upload: flags.upload, gcp: flags.gcp, checkpoints: flags.checkpoints, outputCrs: flags.outputCrs, onUploadProgress: (p) => bar?.update(p) });
  } finally {
    bar?.stop();
  }
  if (!flags.json) print(`created ${created.id} (${created.files_uploaded} files)`);
  const done = await waitWithBar(client, created.id, flags);
  if (done.status === "failed") {
    if (flags.json) printJson({ id: done.id, status: done.status, error: done.error, credit_refunded: done.credit_refunded });
    else print(describeStatus(done));
    return EXIT.reconstructionFailed;
  }
  const saved = await downloadFormats(client, done.id, flags);
  if (flags.json) printJson({ id: done.id, status: done.status, files: saved });
  return EXIT.ok;
}

export async function status(client: PhotogrammetryClient, args: string[], flags: CommonFlags): Promise<number> {
  const id = single(args, "status <id>");
  const record = await client.get(id);
  if (flags.json) printJson(record);
  else print(describeStatus(record));
  return EXIT.ok;
}

export async function download(client: PhotogrammetryClient, args: string[], flags: CommonFlags): Promise<number> {
  const id = single(args, "download <id>");
  const saved = await downloadFormats(client, id, flags);
  if (flags.json) printJson({ id, files: saved });
  return EXIT.ok;
}

export async function list(client: PhotogrammetryClient, args: string[], flags: CommonFlags): Promise<number> {
  if (args.length) throw new UsageError("list takes no arguments");
  const page = await client.list({ limit: flags.limit, status: flags.status });
  if (flags.json) printJson(page);
  else {
    for (const s of page.data) print(`${s.id}  ${s.status.padEnd(10)} ${String(s.progress).padStart(3)}%  ${s.created_at}`);
    if (page.data.length === 0) print("no reconstructions");
    if (page.next_cursor) print(`(more: --limit or the SDK's listAll)`);
  }
  return EXIT.ok;
}

export async function cancel(client: PhotogrammetryClient, args: string[], flags: CommonFlags): Promise<number> {
  const id = single(args, "cancel <id>");
  const record = await client.cancel(id);
  if (flags.json) printJson(record);
  else print(describeStatus(record));
  return EXIT.ok;
}

function single(args: string[], usage: string): string {
  if (args.length !== 1) throw new UsageError(`usage: photogrammetry ${usage}`);
  return args[0];
}
