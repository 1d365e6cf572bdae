/**
 * @module Progress bars (cli-progress) on stderr, so stdout stays clean for `--json`: one for
 * upload bytes, one for processing (stage, percent, ETA from `estimated_completion`).
 * Off a terminal, cli-progress prints a line every few seconds instead of redrawing.
 */
import cliProgress from "cli-progress";
import type { UploadProgress } from "../multipart.js";
import type { StatusRecord } from "../types.js";

const COMMON = { hideCursor: true, barsize: 30, stream: process.stderr, noTTYOutput: true, notTTYSchedule: 5000 } as const;

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

function duration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds <= 0) return "--";
  const m = Math.floor(seconds / 60);
  const s = Math.round(seconds % 60);
  return m > 0 ? `${m}m${String(s).padStart(2, "0")}s` : `${s}s`;
}

export interface UploadBar {
  update(p: UploadProgress): void;
  stop(): void;
}

export function uploadBar(totalBytes: number, files: number): UploadBar {
  const bar = new cliProgress.SingleBar({ ...COMMON, format: `upload     |{bar}| {percentage}% | {sent} / {total_h} | ${files} files` }, cliProgress.Presets.shades_classic);
  bar.start(totalBytes, 0, { sent: bytes(0), total_h: bytes(totalBytes) });
  return {
    update: (p) => bar.update(p.sentBytes, { sent: bytes(p.sentBytes) }),
    stop: () => bar.stop(),
  };
}

export interface ProcessingBar {
  update(status: StatusRecord): void;
  stop(): void;
}

export function processingBar(): ProcessingBar {
  const bar = new cliProgress.SingleBar({ ...COMMON, format: "processing |{bar}| {percentage}% | {state} | ETA {eta_text}" }, cliProgress.Presets.shades_classic);
  bar.start(100, 0, { state: "pending", eta_text: "--" });
  return {
    update(status) {
      const eta = status.status === "processing" || status.status === "pending" ? (Date.parse(status.estimated_completion) - Date.now()) / 1000 : 0;
      const state = status.status === "processing"
        ? `${status.stage ?? "processing"} (${status.files_processed}/${status.total_files} files)`
        : status.queue?.reason === "queued" ? `queued (position ${status.queue.position})` : status.status;
      bar.update(status.progress, { state, eta_text: duration(eta) });
    },
    stop: () => bar.stop(),
  };
}

export { bytes as formatBytes };
