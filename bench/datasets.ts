/** @module Where the benchmark datasets are (../shared/datasets beside the checkout) and which ones a run asked for. */
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
