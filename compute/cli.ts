/**
 * @module `npm run reconstruct -- <files or folders...> --out <dir> [--quality preview|standard|high] [--sparse-only]`
 * (`--help`: the usage below, USAGE)
 *
 * Runs the whole pipeline locally on files or folders (a folder expands to its image and
 * video files, sorted by name), prints progress lines and a summary, and leaves report.json
 * and the model files in the output folder.
 */
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Quality } from "../shared/jobs.js";
import { runPipeline } from "./pipeline/index.js";
import { PipelineError } from "./scene/report.js";

const INPUT_EXTENSIONS = new Set([".jpg", ".jpeg", ".png", ".heic", ".heif", ".mp4", ".mov"]);

interface CliArgs {
  inputs: string[];
  outDir: string;
  quality: Quality;
  sparseOnly: boolean;
  /** The dense stage's random seed; absent: the preset's. */
  seed?: number;
}

export const USAGE = `Usage: npm run reconstruct -- <files or folders...> --out <dir> [options]
       (the same as: node --import tsx compute/cli.ts <files or folders...> --out <dir> [options])

Runs the whole pipeline on this machine, without the service: ingest, features, matching, SfM,
dense, mesh, texture and export. Prints a line per progress step and a summary per stage, and
writes report.json (per stage: wall time and counts; per image: registered or not and why) and
the model files into the output folder. Decoded images and keyframes go to a temporary folder
that is removed at the end.

Arguments:
  <files or folders...>  photos (.jpg .jpeg .png .heic .heif) and videos (.mp4 .mov); a folder
                         stands for those files in it, sorted by name (not recursive)

Options:
  --out DIR        where to write report.json and the model files (required)
  --quality Q      preview | standard | high (default standard)
  --sparse-only    stop after SfM: cameras and sparse points only (glb, ply, colmap, transforms)
                   (default off: obj, ply, gltf, glb, stl, las, colmap, transforms)
  --seed N         the dense stage's random seed, a whole number from 1 (default 1): the same
                   photos and seed give the same model; another seed shows how much of a figure
                   is chance
  -h, --help       print this help and exit

Environment: none is needed (no API key: nothing is uploaded). Node 22.12 or newer; npm run uses
the one the node devDependency brings.

Exit status: 0 done, 1 the reconstruction failed (the reason is printed), 2 bad command line.

Example:
  npm run reconstruct -- ../shared/datasets/real/fountain-P11/images --out out/fountain --quality preview`;

const SEE_HELP = "see npm run reconstruct -- --help";

/** A bad command line: printed as one line, exit status 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** Whether `argv` asks for the help (`--help` or `-h` anywhere). */
export function wantsHelp(argv: string[]): boolean {
  return argv.includes("--help") || argv.includes("-h");
}

export function parseArgs(argv: string[]): CliArgs {
  const inputs: string[] = [];
  let outDir = "";
  let quality: Quality = "standard";
  let sparseOnly = false;
  let seed: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--out") outDir = argv[++i] ?? "";
    else if (arg === "--quality") {
      const parsed = Quality.safeParse(argv[++i]);
      if (!parsed.success) throw new UsageError(`reconstruct: --quality must be one of ${Quality.options.join(", ")} (got ${argv[i] ?? "nothing"}; ${SEE_HELP})`);
      quality = parsed.data;
    } else if (arg === "--sparse-only") sparseOnly = true;
    else if (arg === "--seed") {
      const value = argv[++i] ?? "";
      seed = Number(value);
      if (!/^\d+$/.test(value) || !Number.isSafeInteger(seed) || seed < 1) throw new UsageError(`reconstruct: --seed must be a whole number from 1 (got ${value || "nothing"}; ${SEE_HELP})`);
    }
    else if (arg.startsWith("--")) throw new UsageError(`reconstruct: unknown option ${arg} (${SEE_HELP})`);
    else inputs.push(arg);
  }
  if (inputs.length === 0 || outDir === "") throw new UsageError(`reconstruct: need input files and --out (${SEE_HELP})`);
  return { inputs, outDir: path.resolve(outDir), quality, sparseOnly, ...(seed !== undefined ? { seed } : {}) };
}

/** Files as given, folders expanded to their image/video files sorted by name (not recursive). */
export async function expandInputs(inputs: string[]): Promise<Array<{ path: string; name: string }>> {
  const files: Array<{ path: string; name: string }> = [];
  for (const input of inputs) {
    const full = path.resolve(input);
    if ((await stat(full)).isDirectory()) {
      const names = (await readdir(full)).filter((n) => INPUT_EXTENSIONS.has(path.extname(n).toLowerCase())).sort();
      for (const name of names) files.push({ path: path.join(full, name), name });
    } else {
      files.push({ path: full, name: path.basename(full) });
    }
  }
  return files;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (wantsHelp(argv)) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const args = parseArgs(argv);
  const files = await expandInputs(args.inputs);
  console.log(`reconstruct: ${files.length} files, quality ${args.quality}${args.sparseOnly ? ", sparse only" : ""} → ${args.outDir}`);
  const started = performance.now();
  let lastLine = "";
  // Decoded images and keyframes are scratch: keep them out of the output folder.
  const workDir = await mkdtemp(path.join(tmpdir(), "reconstruct-"));
  const { report, outputs } = await runPipeline({
    files,
    workDir,
    outDir: args.outDir,
    quality: args.quality,
    sparseOnly: args.sparseOnly,
    ...(args.seed !== undefined ? { denseSeed: args.seed } : {}),
    onProgress: (p) => {
      const line = `[${String(p.progress).padStart(3)}%] ${p.stage} (${p.filesProcessed}/${files.length} files)`;
      if (line !== lastLine) console.log(line);
      lastLine = line;
    },
  }).finally(() => rm(workDir, { recursive: true, force: true }));
  console.log(`\ndone in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  for (const stage of report.stages) console.log(`  ${stage.stage.padEnd(9)} ${(stage.wallMs / 1000).toFixed(1).padStart(7)} s  ${summarizeCounts(stage.counts)}`);
  console.log(`registered ${report.registered}/${report.images} images`);
  for (const u of report.unregistered) console.log(`  unregistered ${u.name}: ${u.reason}`);
  for (const o of outputs) console.log(`  ${o.format.padEnd(4)} ${o.path} (${o.bytes} bytes)`);
  console.log(`  report ${path.join(args.outDir, "report.json")}`);
}

function summarizeCounts(counts: Record<string, number>): string {
  return Object.entries(counts)
    .filter(([key]) => !key.endsWith("Ms"))
    .slice(0, 6)
    .map(([key, value]) => `${key}=${Number.isInteger(value) ? value : value.toFixed(3)}`)
    .join(" ");
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  let finished = false;
  // The event loop emptied while the pipeline was still waiting (a worker thread gone without
  // a word): that is a failure, never a silent exit with status 0.
  process.on("beforeExit", () => {
    if (finished) return;
    console.error("reconstruct failed: the pipeline stopped without finishing (a worker thread exited without reporting); no files were written");
    process.exit(1);
  });
  main().then(() => { finished = true; }, (err: unknown) => {
    finished = true;
    if (err instanceof UsageError) {
      console.error(err.message);
      process.exit(2);
    }
    if (err instanceof PipelineError) console.error(`reconstruct failed: ${err.code}: ${err.message}\n  suggestion: ${err.suggestion}`);
    else console.error(err);
    process.exit(1);
  });
}
