/**
 * @module What `npm run bench -- --help` prints, and the options each benchmark reads (so that
 * bench/index.ts can refuse one that no named benchmark reads, instead of silently running the
 * defaults for an hour). Each entry follows the benchmark's own `run(args)`: keep them together.
 */

/** `flag`: `--name`; `value`: `--name=VALUE`; `next`: `--name VALUE`. */
export type OptionForm = "flag" | "value" | "next";

export interface BenchOption {
  name: string;
  form: OptionForm;
  /** The value's placeholder (`value` and `next` forms). */
  arg?: string;
  help: string;
}

export interface BenchUsage {
  /** Positional arguments, as shown in the usage line. */
  args?: string;
  summary: string;
  options: BenchOption[];
}

const QUALITY = "preview | standard | high";

/** The options bench sfm and bench speed share. */
const SFM_OPTIONS: BenchOption[] = [
  { name: "quality", form: "next", arg: "Q", help: `${QUALITY} (default standard)` },
  { name: "no-colmap", form: "flag", help: "skip COLMAP (default: run it where it can be installed)" },
];

export const BENCHES = {
  edge: {
    summary: "the edge Worker in workerd: memory while uploading up to ~200 MiB, then status requests/s and CPU per request",
    options: [
      { name: "upload-mib", form: "value", arg: "N", help: "size of the large upload (default 200)" },
      { name: "clients", form: "value", arg: "N", help: "concurrent status clients (default 8)" },
      { name: "seconds", form: "value", arg: "N", help: "length of the throughput loop (default 5)" },
    ],
  },
  sfm: {
    args: "[set-filter...]",
    summary: "accuracy and speed of ingest → features → matching → sfm on every dataset, beside COLMAP's mapper",
    options: [
      ...SFM_OPTIONS,
      { name: "cold", form: "flag", help: "start the front workers inside each set's time, as the CLI does (default: kept warm)" },
    ],
  },
  precision: {
    args: "[set-filter...]",
    summary: "how far each set's images pin its cameras: the published cameras' fit to our keypoints and a bootstrap of sfm",
    options: [
      { name: "trials", form: "next", arg: "N", help: "bootstrap trials (default 4)" },
      { name: "quality", form: "next", arg: "Q", help: `${QUALITY} (default standard)` },
    ],
  },
  dense: {
    args: "[set-filter...]",
    summary: "the whole chain to the six model files on each dataset: dense accuracy, completeness and F-score, time, peak RSS",
    options: [
      { name: "quality", form: "value", arg: "Q", help: `${QUALITY} (default preview)` },
      { name: "true-cameras", form: "flag", help: "also run dense on the true cameras (default off)" },
      { name: "dense-side", form: "value", arg: "PX", help: "depth-map long side (default: the preset's)" },
      { name: "dense", form: "value", arg: "JSON", help: "dense stage options over the preset's (default none)" },
      { name: "mesh", form: "value", arg: "JSON", help: "mesh stage options over the preset's (default none)" },
      { name: "colmap", form: "flag", help: "also time COLMAP's sparse run (default off)" },
      { name: "keep", form: "value", arg: "DIR", help: "write each set's scored points with their distances as PLY: cloud to truth, truth to cloud, truth to mesh (default none)" },
      { name: "reuse-dense", form: "value", arg: "DIR", help: "keep the state after dense there, and read it again in runs with the same quality and dense options: mesh experiments skip the front, SfM and dense (default none)" },
    ],
  },
  ba: {
    args: "[cameras] [points]",
    summary: "bundle adjustment of a synthetic ring (default 100 cameras, 30000 points) on one or more threads",
    options: [
      { name: "pcg", form: "flag", help: "force the reduced (PCG) solver (default: the threshold picks)" },
      { name: "dense", form: "flag", help: "force the dense Schur solver (default: the threshold picks)" },
      { name: "cauchy", form: "flag", help: "skip the squared-loss run (default: both losses)" },
      { name: "threads", form: "value", arg: "LIST", help: "thread counts to run, comma-separated; 0 = every core (default 1)" },
    ],
  },
  front: {
    args: "[set or file]",
    summary: "wall time of ingest, features and matching on one dataset (default real/fountain-P11) or video",
    options: [
      { name: "max-side", form: "next", arg: "N", help: "feature detection long side (default: the features stage's)" },
      { name: "features", form: "next", arg: "N", help: "keypoints per image (default: the features stage's)" },
    ],
  },
  views: {
    args: "[set-filter...]",
    summary: "the delivered model rendered from held-back photos' cameras: coverage, PSNR, SSIM (needs Chromium)",
    options: [
      { name: "quality", form: "value", arg: "Q", help: `${QUALITY} (default standard)` },
      { name: "root", form: "value", arg: "DIR", help: "the checkout whose compute/cli.ts runs (default this one)" },
      { name: "docs", form: "flag", help: "also write fountain-P11's and facade's side-by-side pictures to docs/views/ (default off)" },
      { name: "keep", form: "value", arg: "DIR", help: "keep each set's model in DIR (default: a temporary folder)" },
      { name: "own-cameras", form: "flag", help: "real sets with published poses: also score each held-back photo from the pipeline's own camera for it (a sparse run on every photo; default off)" },
      { name: "in-model", form: "value", arg: "PHOTOS", help: "comma-separated names of uploaded (not held-back) photos also scored, outside the mean: the model against a photo it was built from (default none)" },
      { name: "seeds", form: "value", arg: "N,...", help: "run each set once per dense seed (npm run reconstruct -- --seed) and print the mean and range over them (default: one run, the pipeline's seed)" },
    ],
  },
  stress: {
    args: "[scene...]",
    summary: "the camera stress scenes of test/compute/sfm/stress.test.ts with every camera's error",
    options: [
      { name: "width", form: "value", arg: "W", help: "rendered photo width (default: the size each scene's bounds were recorded at, 400; the courtyard 640)" },
      { name: "optimum", form: "flag", help: "also adjust from the true cameras: the best any pipeline could do (default off)" },
    ],
  },
  subsets: {
    args: "[set-filter...]",
    summary: "camera accuracy with every k-th photo left out and from each half, beside COLMAP's",
    options: [
      { name: "no-colmap", form: "flag", help: "skip COLMAP (default: run it)" },
      { name: "k", form: "value", arg: "LIST", help: "leave out every k-th photo, comma-separated (default 2,3,4,6)" },
      { name: "keep", form: "value", arg: "LIST", help: "also subsets of only every k-th photo (default none)" },
      { name: "only", form: "value", arg: "TEXT", help: "only the subsets whose names contain TEXT (default all)" },
      { name: "optimum", form: "flag", help: "also the optimum of each subset's observations (default off)" },
    ],
  },
  scale: {
    summary: "rendered drone surveys of each size reconstructed in a process of their own: time, CPU, memory per stage, errors",
    options: [
      { name: "sizes", form: "value", arg: "LIST", help: "photo counts, comma-separated; empty runs the video alone (default 50,200,800)" },
      { name: "width", form: "value", arg: "W", help: "rendered photo width (default 640)" },
      { name: "quality", form: "value", arg: "Q", help: `${QUALITY} (default standard)` },
      { name: "sparse-only", form: "flag", help: "stop after SfM (default off)" },
      { name: "video", form: "value", arg: "SECONDS", help: "also a 4K drone video of that length (default 0: none)" },
      { name: "optimum", form: "flag", help: "run SfM and the optimum from the true cameras instead (default off)" },
      { name: "gps", form: "flag", help: "a consumer receiver's GPS fixes in the photos' EXIF (default: no GPS)" },
      { name: "gps", form: "value", arg: "rtk", help: "an RTK drone's fixes, with their deviations in DJI's XMP" },
      { name: "no-gps-priors", form: "flag", help: "use GPS for pairs only (default: pairs and priors)" },
      { name: "control", form: "flag", help: "nine painted targets, five sent as ground control and four as checkpoints (default none)" },
    ],
  },
  load: {
    summary: "N clients on the real loopback stack for a fixed time: requests/s, p50/p95/p99, errors, then a ledger and R2 audit",
    options: [
      { name: "seconds", form: "next", arg: "N", help: "length of the run, at most 120 (default 60)" },
      { name: "clients", form: "next", arg: "N", help: "concurrent clients (default 8)" },
    ],
  },
  ann: {
    args: "[set-filter...]",
    summary: "the approximate descriptor search against the exhaustive one on real features (default Herz-Jesus-P8, fountain-P11)",
    options: [
      { name: "quality", form: "value", arg: "Q", help: `${QUALITY} (default standard)` },
      { name: "coverage", form: "value", arg: "C", help: "the index's coverage (default ANN_PARAMETERS.coverage)" },
      { name: "weak", form: "value", arg: "N", help: "matches below which a pair is searched again exhaustively (default: the matching stage's annWeakMatches)" },
    ],
  },
  keypoints: {
    args: "[set-filter...]",
    summary: "how well each track's observations agree through the published cameras, before and after the keypoints stage",
    options: [],
  },
  eta: {
    args: "[set-filter...]",
    summary: "how far the time left a client is told was from the real one at 10 to 90 % of a job",
    options: [
      { name: "photos", form: "value", arg: "DIR", help: "a folder of photos instead of datasets (repeatable; default none)" },
      { name: "quality", form: "value", arg: "Q", help: `${QUALITY} (default standard)` },
      { name: "sparse-only", form: "flag", help: "stop after SfM (default off)" },
    ],
  },
  export: {
    summary: "the export stage's memory and time on a model the size of the 800-photo survey's, each format in its own process",
    options: [
      { name: "points", form: "value", arg: "N", help: "dense points (default 31400000)" },
      { name: "faces", form: "value", arg: "N", help: "mesh faces (default 3200000)" },
    ],
  },
  burst: {
    summary: "a burst of real preview jobs from three accounts on two compute processes, one killed and restarted midway",
    options: [
      { name: "jobs", form: "next", arg: "N", help: "jobs in the burst (default 30)" },
      { name: "kill-after", form: "next", arg: "S", help: "kill a compute process after S seconds (default: once a third of the jobs completed)" },
      { name: "timeout", form: "next", arg: "S", help: "give up after S seconds (default 2400)" },
    ],
  },
  survey: {
    summary: "a rendered survey with gcp_list.txt through the API on the loopback stack: LAS, GLB, ortho, DSM and report checked against the status record's georeference, and by gdalinfo",
    options: [
      { name: "photos", form: "value", arg: "N", help: "photos in the flight (default 30)" },
      { name: "width", form: "value", arg: "W", help: "rendered photo width (default: the size each scene's bounds were recorded at, 400; the courtyard 640)" },
      { name: "quality", form: "value", arg: "Q", help: `${QUALITY} (default standard)` },
      { name: "tus", form: "flag", help: "upload with tus and the control points in the creation's body (default: one multipart request)" },
    ],
  },
  kernels: {
    summary: "the dense stage's cost kernel (wasm SIMD) against the TypeScript reference and a native C build (scalar, AVX2), on the calls of a PatchMatch run, and its share of PatchMatch; the texture scan's z-buffer and matching's exhaustive descriptor search against native C builds",
    options: [
      { name: "width", form: "value", arg: "PX", help: "rendered view width (default 800)" },
      { name: "only", form: "value", arg: "PART", help: "raster or hamming: that part alone (the others take about a minute)" },
    ],
  },
  detect: {
    args: "[set-filter...]",
    summary: "the features stage's AKAZE (OpenCV.js) against native OpenCV's (python3-opencv, one thread and every core) on each set's first photos as the stage decodes them: ms per image, keypoints, the ratio",
    options: [
      { name: "images", form: "value", arg: "N", help: "photos per set (default 1)" },
      { name: "side", form: "value", arg: "PX", help: "detection side (default 2000, the standard preset's)" },
      { name: "rounds", form: "value", arg: "N", help: "calls per image and detector; the fastest counts (default 3)" },
    ],
  },
  speed: {
    args: "[set-filter...]",
    summary: "the whole pipeline on every dataset, each in a process of its own, and COLMAP's sparse run beside it: wall, CPU, cores and peak memory per stage, and the ratio to COLMAP",
    options: [
      ...SFM_OPTIONS,
    ],
  },
} satisfies Record<string, BenchUsage>;

export type BenchName = keyof typeof BENCHES;
export const BENCH_NAMES = Object.keys(BENCHES) as BenchName[];

const SEE_HELP = "see npm run bench -- --help";

function optionText(o: BenchOption): string {
  return o.form === "flag" ? `--${o.name}` : o.form === "value" ? `--${o.name}=${o.arg}` : `--${o.name} ${o.arg}`;
}

function benchHelp(name: BenchName): string {
  const bench: BenchUsage = BENCHES[name];
  const lines = [`npm run bench -- ${name}${bench.args ? ` ${bench.args}` : ""}${bench.options.length ? " [options]" : ""}`, `  ${bench.summary}`];
  for (const o of bench.options) lines.push(`    ${optionText(o).padEnd(22)} ${o.help}`);
  return lines.join("\n");
}

/** The help for the named benchmarks, or for all of them. */
export function usage(names: BenchName[]): string {
  const shown = names.length > 0 ? names : BENCH_NAMES;
  return `Usage: npm run bench -- [name...] [arguments] [options]
       (the same as: node --import tsx bench/index.ts [name...] [arguments] [options])

Runs the named benchmarks one after the other, or all of them when none is named (hours), and
prints their figures; most also write bench/out/<name>.json. The arguments and options after the
names go to every named benchmark. Datasets are read from ../shared/datasets (beside this
checkout); rendered scenes are cached in bench-out/. No environment variable is needed. Figures
of earlier runs: BENCHMARKS.md.

Benchmarks:
${shown.map(benchHelp).join("\n\n")}

  -h, --help               print this help (of the named benchmarks only, when some are named)

Exit status: 0 done, 1 a benchmark failed, 2 bad command line.

Examples:
  npm run bench -- ba 100 30000 --threads=1,2
  npm run bench -- scale --sizes=50 --sparse-only --gps=rtk
  npm run bench -- scale --help`;
}

/** Why `args` (what follows the names) is refused by the named benchmarks, or undefined when each option is one that one of them reads. */
export function unknownOption(names: BenchName[], args: string[]): string | undefined {
  const benches = names.length > 0 ? names : BENCH_NAMES;
  const options = benches.flatMap((n) => (BENCHES[n] as BenchUsage).options);
  for (const arg of args) {
    if (!arg.startsWith("-")) continue;
    const [name, value] = arg.startsWith("--") ? [arg.slice(2).split("=")[0], arg.includes("=")] : [arg, false];
    const known = options.filter((o) => o.name === name);
    const fits = known.some((o) => (value ? o.form === "value" : o.form !== "value"));
    if (fits) continue;
    const forms = known.map(optionText);
    const who = names.length > 0 ? `bench ${names.join(", ")}` : "bench";
    return forms.length > 0 ? `${who}: ${arg} is written ${forms.join(" or ")} (${SEE_HELP})` : `${who}: unknown option ${arg} (${SEE_HELP})`;
  }
  return undefined;
}
