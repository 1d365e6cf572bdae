/**
 * @module `photogrammetry`, the command-line client: parses the command line, finds the key and
 * base URL (cli/config.ts), runs one command (cli/commands.ts), and maps any error to a
 * documented exit code (cli/exit-codes.ts).
 */
import { parseArgs } from "node:util";
import { PhotogrammetryClient } from "./client.js";
import { ApiError, PhotogrammetryError, ReconstructionFailedError } from "./errors.js";
import * as commands from "./cli/commands.js";
import { DEFAULT_API_URL, loadConfig } from "./cli/config.js";
import { EXIT, MissingKeyError, UsageError, exitCodeOf } from "./cli/exit-codes.js";
import type { Format, Quality, StatusRecord } from "./types.js";

const API_URL_DEFAULT = `PHOTOGRAMMETRY_API_URL, else "api_url" in the config file, else ${DEFAULT_API_URL}`;

export const USAGE = `Usage: photogrammetry <command> [arguments] [options]
       photogrammetry <command> --help     that command's arguments and options

Commands:
  reconstruct <dir|files...>  upload photos/videos, wait for the model, download it
  status <id>                 show a reconstruction's status
  download <id>               download a completed reconstruction
  list                        list your reconstructions, newest first
  cancel <id>                 cancel a pending or processing reconstruction
  help [command]              print this help, or a command's

Options:
  --format LIST        formats to download, comma-separated: obj ply gltf glb stl las colmap transforms, and for a survey ortho dsm report (default glb)
  --out DIR            where to save downloads (default .)
  --quality Q          preview | standard | high (default: the server's, standard)
  --upload MODE        multipart | tus (resumable, for large captures) (default multipart)
  --gcp FILE           reconstruct: ground control points, OpenDroneMap's gcp_list.txt (default none)
  --checkpoints LIST   reconstruct: names of points in --gcp held out as checkpoints (default none)
  --output-crs CRS     reconstruct: output coordinate system, EPSG:<code> (default: the control points')
  --interval S         seconds between status polls (default 2)
  --timeout S          give up waiting after S seconds, exit 6 (default: wait until it ends)
  --limit N            list: at most N reconstructions (default: the server's)
  --status S           list: only pending | processing | completed | failed
  --json               print exactly one JSON document on stdout, no progress bars (default off)
  --api-url URL        API base URL (default: ${API_URL_DEFAULT})
  -h, --help           print help and exit

Environment:
  PHOTOGRAMMETRY_API_KEY   the API key (required; there is no --api-key flag, so a key stays out of ps and shell history)
  PHOTOGRAMMETRY_API_URL   the API base URL (default ${DEFAULT_API_URL})
  XDG_CONFIG_HOME          where the config file is looked for (default ~/.config): photogrammetry/config.json,
                           {"api_key": "...", "api_url": "..."}, read when the variables above are unset

Exit codes: 0 ok, 1 reconstruction failed, 2 usage, 3 auth, 4 network/server, 5 request refused, 6 timeout.

Examples:
  export PHOTOGRAMMETRY_API_KEY=pk_live_...
  photogrammetry reconstruct ./photos --format glb,obj --out ./model --quality standard
  photogrammetry status rec_G32nW90rcZPO8bzRKbRhHaJL --json`;

const COMMON_OPTIONS = `  --json               print exactly one JSON document on stdout (default off)
  --api-url URL        API base URL (default: ${API_URL_DEFAULT})
  -h, --help           print this help and exit`;

const ENVIRONMENT = `Environment: PHOTOGRAMMETRY_API_KEY (required, or "api_key" in ~/.config/photogrammetry/config.json),
PHOTOGRAMMETRY_API_URL (default ${DEFAULT_API_URL}). See photogrammetry --help.`;

/** Each command's own help: `photogrammetry <command> --help` or `photogrammetry help <command>`. */
export const COMMAND_USAGE: Record<keyof typeof COMMANDS, string> = {
  reconstruct: `Usage: photogrammetry reconstruct <dir|files...> [options]

Uploads photos (.jpg .jpeg .png .heic .heif) and videos (.mp4 .mov) as one reconstruction, shows
upload and processing progress, waits until it ends and downloads the model. A folder stands for
the photos and videos in it.

Arguments:
  <dir|files...>       folders and/or files to upload

Options:
  --format LIST        formats to download, comma-separated: obj ply gltf glb stl las colmap transforms, and for a survey ortho dsm report (default glb)
  --out DIR            where to save the downloads (default .)
  --quality Q          preview | standard | high (default: the server's, standard)
  --upload MODE        multipart | tus (resumable, for large captures) (default multipart)
  --gcp FILE           ground control points, OpenDroneMap's gcp_list.txt (first line the coordinate
                       system: EPSG:<code>, a PROJ string or WGS84 UTM <zone><N|S>; then
                       geo_x geo_y geo_z im_x im_y image_name [point_name] per mark) (default none)
  --checkpoints LIST   names of points in --gcp to hold out as checkpoints, comma-separated (default none)
  --output-crs CRS     the output coordinate system, EPSG:<code> (default: the control points',
                       else the UTM zone of the photos' GPS)
  --interval S         seconds between status polls (default 2)
  --timeout S          give up waiting after S seconds, exit 6 (default: wait until it ends)
${COMMON_OPTIONS}

${ENVIRONMENT}
Exit codes: 0 downloaded, 1 the reconstruction failed (its reason is printed), 2 usage, 3 auth,
4 network/server, 5 request refused (e.g. no credits), 6 timeout.

Examples:
  photogrammetry reconstruct ./photos --format glb,obj --out ./model --quality standard
  photogrammetry reconstruct ./survey --gcp gcp_list.txt --checkpoints gcp7,gcp8 --format las,ortho,dsm,report`,
  status: `Usage: photogrammetry status <id> [options]

Shows a reconstruction's status: progress, stage, files processed, the time left, its formats
once completed, or the reason it failed.

Arguments:
  <id>                 the reconstruction's id (rec_...)

Options:
${COMMON_OPTIONS}

${ENVIRONMENT}
Exit codes: 0 ok, 2 usage, 3 auth, 4 network/server, 5 refused (e.g. not found).

Example:
  photogrammetry status rec_G32nW90rcZPO8bzRKbRhHaJL --json`,
  download: `Usage: photogrammetry download <id> [options]

Downloads a completed reconstruction's files.

Arguments:
  <id>                 the reconstruction's id (rec_...)

Options:
  --format LIST        formats to download, comma-separated: obj ply gltf glb stl las colmap transforms, and for a survey ortho dsm report (default glb)
  --out DIR            where to save them (default .)
${COMMON_OPTIONS}

${ENVIRONMENT}
Exit codes: 0 ok, 2 usage, 3 auth, 4 network/server, 5 refused (e.g. not completed, not found).

Example:
  photogrammetry download rec_G32nW90rcZPO8bzRKbRhHaJL --format ply,stl --out ./model`,
  list: `Usage: photogrammetry list [options]

Lists your reconstructions, newest first: one line each, <id>  <status>  <progress>%  <created_at>.

Options:
  --limit N            at most N reconstructions (default: the server's)
  --status S           only pending | processing | completed | failed (default: all)
${COMMON_OPTIONS}

${ENVIRONMENT}
Exit codes: 0 ok, 2 usage, 3 auth, 4 network/server, 5 refused.

Example:
  photogrammetry list --status completed --limit 5`,
  cancel: `Usage: photogrammetry cancel <id> [options]

Cancels a pending or processing reconstruction (its credit is refunded) and shows its status.

Arguments:
  <id>                 the reconstruction's id (rec_...)

Options:
${COMMON_OPTIONS}

${ENVIRONMENT}
Exit codes: 0 ok, 2 usage, 3 auth, 4 network/server, 5 refused (e.g. already completed or failed).

Example:
  photogrammetry cancel rec_G32nW90rcZPO8bzRKbRhHaJL`,
};

const FORMATS: Format[] = ["obj", "ply", "gltf", "glb", "stl", "las", "colmap", "transforms", "ortho", "dsm", "report"];
const QUALITIES: Quality[] = ["preview", "standard", "high"];
const STATUSES: Array<StatusRecord["status"]> = ["pending", "processing", "completed", "failed"];

function oneOf<T extends string>(value: string | undefined, allowed: T[], flag: string): T | undefined {
  if (value === undefined) return undefined;
  if (!allowed.includes(value as T)) throw new UsageError(`--${flag} must be one of ${allowed.join(", ")} (got ${value})`);
  return value as T;
}

function positiveNumber(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${flag} must be a positive number (got ${value})`);
  return n;
}

const OPTIONS = {
  format: { type: "string", default: "glb" },
  out: { type: "string", default: "." },
  quality: { type: "string" },
  upload: { type: "string", default: "multipart" },
  gcp: { type: "string" },
  checkpoints: { type: "string" },
  "output-crs": { type: "string" },
  json: { type: "boolean", default: false },
  "api-url": { type: "string" },
  interval: { type: "string" },
  timeout: { type: "string" },
  limit: { type: "string" },
  status: { type: "string" },
  help: { type: "boolean", short: "h", default: false },
} as const;

/**
 * The help `argv` asks for, if any: `--help`/`-h` anywhere (before a `--`) or the `help` command.
 * Read leniently, so that help is printed even beside an option that would be refused.
 */
function helpRequest(argv: string[]): { command?: string } | undefined {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, strict: false, options: OPTIONS });
  if (positionals[0] === "help") return { command: positionals[1] };
  return values.help === true ? { command: positionals[0] } : undefined;
}

function parse(argv: string[]) {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  const formats = values.format.split(",").map((f) => oneOf(f.trim(), FORMATS, "format")!);
  const flags: commands.CommonFlags = {
    json: values.json,
    out: values.out,
    formats,
    quality: oneOf(values.quality, QUALITIES, "quality"),
    upload: oneOf(values.upload, ["multipart", "tus"], "upload")!,
    intervalMs: (positiveNumber(values.interval, "interval") ?? 2) * 1000,
    timeoutMs: values.timeout === undefined ? undefined : positiveNumber(values.timeout, "timeout")! * 1000,
    limit: positiveNumber(values.limit, "limit"),
    status: oneOf(values.status, STATUSES, "status"),
    gcp: values.gcp,
    checkpoints: values.checkpoints === undefined ? undefined : values.checkpoints.split(",").map((name) => name.trim()).filter(Boolean),
    outputCrs: values["output-crs"],
  };
  return { command: positionals[0], args: positionals.slice(1), flags, apiUrl: values["api-url"] };
}

const COMMANDS = { reconstruct: commands.reconstruct, status: commands.status, download: commands.download, list: commands.list, cancel: commands.cancel };

const isCommand = (name: string | undefined): name is keyof typeof COMMANDS => name !== undefined && Object.hasOwn(COMMANDS, name);

/** The help a usage error points to: the command's own when the command is known. */
function helpHint(argv: string[]): string {
  const first = parseArgs({ args: argv, allowPositionals: true, strict: false, options: OPTIONS }).positionals[0];
  return isCommand(first) ? `photogrammetry ${first} --help` : "photogrammetry --help";
}

/** A usage error from node's parseArgs, in one line ("unknown option --bogus"). */
function usageErrorOf(error: Error & { code?: string }): UsageError {
  const unknown = error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" ? /^Unknown option '([^']+)'/.exec(error.message) : null;
  return new UsageError(unknown ? `unknown option ${unknown[1]}` : error.message.split("\n")[0]);
}

function report(error: unknown, json: boolean, hint: string): void {
  const code = error instanceof ApiError ? error.code : error instanceof ReconstructionFailedError ? error.code : error instanceof UsageError ? "usage" : error instanceof MissingKeyError ? "missing_api_key" : (error as Error).name;
  const message = error instanceof Error ? error.message : String(error);
  const suggestion = error instanceof ApiError ? error.suggestion : undefined;
  if (json) process.stdout.write(`${JSON.stringify({ error: { code, message, ...(suggestion ? { suggestion } : {}) } }, null, 2)}\n`);
  else if (error instanceof UsageError) process.stderr.write(`error: ${message} (see ${hint})\n`);
  else process.stderr.write(`error: ${message}${error instanceof ApiError ? ` (${error.code})` : ""}${suggestion ? `\n  ${suggestion}` : ""}\n`);
}

/** Runs the CLI; resolves to the exit code. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let json = argv.includes("--json");
  try {
    const help = helpRequest(argv);
    if (help) {
      if (help.command !== undefined && !isCommand(help.command)) throw new UsageError(`unknown command ${help.command}`);
      process.stdout.write(`${help.command ? COMMAND_USAGE[help.command] : USAGE}\n`);
      return EXIT.ok;
    }
    if (argv.length === 0) {
      process.stderr.write(`${USAGE}\n`);
      return EXIT.usage;
    }
    const { command, args, flags, apiUrl } = parse(argv);
    json = flags.json;
    if (!isCommand(command)) throw new UsageError(command ? `unknown command ${command}` : "no command");
    const config = await loadConfig(apiUrl, env);
    const client = new PhotogrammetryClient({ apiKey: config.apiKey, baseUrl: config.apiUrl, userAgent: "photogrammetry-cli/0.1" });
    return await COMMANDS[command](client, args, flags);
  } catch (error) {
    // parseArgs throws plain TypeErrors with a code for unknown or malformed options.
    const normalised = (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS") ? usageErrorOf(error as Error) : error;
    if (!(normalised instanceof PhotogrammetryError) && !(normalised instanceof UsageError) && !(normalised instanceof MissingKeyError)) {
      // Unexpected: keep the stack for a bug report.
      process.stderr.write(`${(normalised as Error).stack ?? String(normalised)}\n`);
    }
    report(normalised, json, helpHint(argv));
    return exitCodeOf(normalised);
  }
}
