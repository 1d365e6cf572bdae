/**
 * @module `npm run reconstruct -- <files or folders...> --out <dir> [--quality preview|standard|high] [--sparse-only]`
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
}

const USAGE = "usage: npm run reconstruct -- <files or folders...> --out <dir> [--quality preview|standard|high] [--sparse-only]";

export function parseArgs(argv: string[]): CliArgs {
  const inputs: string[] = [];
  let outDir = "";
  let quality: Quality = "standard";
  let sparseOnly = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--out") outDir = argv[++i] ?? "";
    else if (arg === "--quality") quality = Quality.parse(argv[++i]);
    else if (arg === "--sparse-only") sparseOnly = true;
    else if (arg.startsWith("--")) throw new Error(`reconstruct: unknown option ${arg}\n${USAGE}`);
    else inputs.push(arg);
  }
  if (inputs.length === 0 || outDir === "") throw new Error(`reconstruct: need input files and --out\n${USAGE}`);
  return { inputs, outDir: path.resolve(outDir), quality, sparseOnly };
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
  const args = parseArgs(process.argv.slice(2));
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
    if (err instanceof PipelineError) console.error(`reconstruct failed: ${err.code}: ${err.message}\n  suggestion: ${err.suggestion}`);
    else console.error(err);
    process.exit(1);
  });
}
