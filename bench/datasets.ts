/** @module Where the benchmark datasets are (../shared/datasets beside the checkout), which ones a run asked for, and each set's input files. */
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const datasetsRoot = path.resolve(repoRoot, "../shared/datasets");

/** `group/name` of every dataset whose name contains one of `filters` (all when none). */
export async function listDatasets(filters: string[]): Promise<string[]> {
  const sets: string[] = [];
  for (const group of ["synthetic", "real"]) {
    const dir = path.join(datasetsRoot, group);
    if (!existsSync(dir)) continue;
    for (const name of (await readdir(dir)).sort()) sets.push(`${group}/${name}`);
  }
  return sets.filter((s) => filters.length === 0 || filters.some((f) => s.includes(f)));
}

const IMAGE = /\.(jpe?g|png|heic)$/i;

/**
 * Inputs of a set: its images folder, or (video sets) one video, MP4 first — the others are
 * the same footage in another container, and the folder's contact.png is not an input.
 */
export async function datasetInputs(setDir: string): Promise<Array<{ path: string; name: string }>> {
  const imagesDir = path.join(setDir, "images");
  if (existsSync(imagesDir)) {
    const names = (await readdir(imagesDir)).filter((n) => IMAGE.test(n)).sort();
    return names.map((name) => ({ path: path.join(imagesDir, name), name }));
  }
  const videos = (await readdir(setDir)).filter((n) => /\.(mp4|mov)$/i.test(n)).sort();
  const chosen = videos.find((n) => /\.mp4$/i.test(n)) ?? videos[0];
  return chosen === undefined ? [] : [{ path: path.join(setDir, chosen), name: chosen }];
}
