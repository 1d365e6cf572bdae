/** @module Expands the `reconstruct` arguments (folders and files) into the files to upload. */
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { UsageError } from "./exit-codes.js";

/** What a folder contributes; the server judges each file by its bytes anyway. */
const INPUT_EXTENSIONS = new Set([".jpg", ".jpeg", ".png", ".heic", ".heif", ".mp4", ".mov"]);

export async function expandInputs(args: string[]): Promise<string[]> {
  const files: string[] = [];
  for (const arg of args) {
    const info = await stat(arg).catch(() => null);
    if (!info) throw new UsageError(`${arg}: no such file or folder`);
    if (info.isFile()) {
      files.push(arg);
      continue;
    }
    const names = (await readdir(arg)).filter((name) => INPUT_EXTENSIONS.has(path.extname(name).toLowerCase())).sort();
    if (names.length === 0) throw new UsageError(`${arg}: no photos or videos in it (${[...INPUT_EXTENSIONS].join(" ")})`);
    files.push(...names.map((name) => path.join(arg, name)));
  }
  if (files.length === 0) throw new UsageError("no input files");
  return files;
}
