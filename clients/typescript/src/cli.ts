/**
 * @module `photogrammetry`, the command-line client: parses the command line, finds the key and
 * base URL (cli/config.ts), runs one command (cli/commands.ts), and maps any error to a
 * documented exit code (cli/exit-codes.ts).
 */
import { parseArgs } from "node:util";
import { PhotogrammetryClient } from "./client.js";
import { ApiError, PhotogrammetryError, ReconstructionFailedError } from "./errors.js";
import * as commands from "./cli/commands.js";
import { loadConfig } from "./cli/config.js";
import { EXIT, MissingKeyError, UsageError, exitCodeOf } from "./cli/exit-codes.js";
import type { Format, Quality, StatusRecord } from "./types.js";

export const USAGE = `Usage: photogrammetry <command> [options]

Commands:
  reconstruct <dir|files...>  upload photos/videos, wait, download the model
  status <id>                 show a reconstruction's status
  download <id>               download a completed reconstruction
  list                        list your reconstructions, newest first
  cancel <id>                 cancel a pending or processing reconstruction

Options:
  --format glb,obj     formats to download: obj ply gltf glb stl las colmap transforms (default glb)
  --out DIR            where to save downloads (default .)
  --quality Q          preview | standard | high (default: the server's, standard)
  --upload MODE        multipart (default) | tus (resumable, for large captures)
  --json               print one JSON document on stdout, no progress bars
  --api-url URL        API base URL (default PHOTOGRAMMETRY_API_URL, the config file, or ${"http://127.0.0.1:8787"})
  --interval S         seconds between status polls (default 2)
  --timeout S          give up waiting after S seconds (exit 6)
  --limit N, --status S  for list
  -h, --help

The API key comes from PHOTOGRAMMETRY_API_KEY or ~/.config/photogrammetry/config.json ({"api_key": "..."}).
Exit codes: 0 ok, 1 reconstruction failed, 2 usage, 3 auth, 4 network/server, 5 request refused, 6 timeout.`;

const FORMATS: Format[] = ["obj", "ply", "gltf", "glb", "stl", "las", "colmap", "transforms"];
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

function parse(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      format: { type: "string", default: "glb" },
      out: { type: "string", default: "." },
      quality: { type: "string" },
      upload: { type: "string", default: "multipart" },
      json: { type: "boolean", default: false },
      "api-url": { type: "string" },
      interval: { type: "string" },
      timeout: { type: "string" },
      limit: { type: "string" },
      status: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
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
  };
  return { command: positionals[0], args: positionals.slice(1), flags, help: values.help, apiUrl: values["api-url"] };
}

const COMMANDS = { reconstruct: commands.reconstruct, status: commands.status, download: commands.download, list: commands.list, cancel: commands.cancel };

function report(error: unknown, json: boolean): void {
  const code = error instanceof ApiError ? error.code : error instanceof ReconstructionFailedError ? error.code : error instanceof UsageError ? "usage" : error instanceof MissingKeyError ? "missing_api_key" : (error as Error).name;
  const message = error instanceof Error ? error.message : String(error);
  const suggestion = error instanceof ApiError ? error.suggestion : undefined;
  if (json) process.stdout.write(`${JSON.stringify({ error: { code, message, ...(suggestion ? { suggestion } : {}) } }, null, 2)}\n`);
  else process.stderr.write(`error: ${message}${error instanceof ApiError ? ` (${error.code})` : ""}${suggestion ? `\n  ${suggestion}` : ""}${error instanceof UsageError ? `\n\n${USAGE}` : ""}\n`);
}

/** Runs the CLI; resolves to the exit code. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let json = argv.includes("--json");
  try {
    const { command, args, flags, help, apiUrl } = parse(argv);
    json = flags.json;
    if (help || command === "help") {
      process.stdout.write(`${USAGE}\n`);
      return EXIT.ok;
    }
    const run = command ? COMMANDS[command as keyof typeof COMMANDS] : undefined;
    if (!run) throw new UsageError(command ? `unknown command ${command}` : "no command");
    const config = await loadConfig(apiUrl, env);
    const client = new PhotogrammetryClient({ apiKey: config.apiKey, baseUrl: config.apiUrl, userAgent: "photogrammetry-cli/0.1" });
    return await run(client, args, flags);
  } catch (error) {
    // parseArgs throws plain TypeErrors with a code for unknown or malformed options.
    const normalised = (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS") ? new UsageError((error as Error).message) : error;
    if (!(normalised instanceof PhotogrammetryError) && !(normalised instanceof UsageError) && !(normalised instanceof MissingKeyError)) {
      // Unexpected: keep the stack for a bug report.
      process.stderr.write(`${(normalised as Error).stack ?? String(normalised)}\n`);
    }
    report(normalised, json);
    return exitCodeOf(normalised);
  }
}
