/**
 * Solvers sit below the stages (docs/DESIGN.md "Imports go one way"): stages import solvers,
 * never the reverse, so no file of compute/solvers/ imports stages/, pipeline/ or service/.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const solvers = path.join(root, "compute", "solvers");

describe("solvers", () => {
  it("import nothing of the stages, the pipeline or the service", async () => {
    const entries = await readdir(solvers, { recursive: true, withFileTypes: true });
    const files = entries.filter((e) => e.isFile() && e.name.endsWith(".ts")).map((e) => path.join(e.parentPath, e.name));
    expect(files.length).toBeGreaterThan(0);
    const upward: string[] = [];
    for (const file of files) {
      const text = await readFile(file, "utf8");
      for (const [, spec] of text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)) {
        const target = path.relative(root, path.resolve(path.dirname(file), spec!));
        if (/^compute\/(stages|pipeline|service)\//.test(target)) upward.push(`${path.relative(root, file)} → ${target}`);
      }
    }
    expect(upward).toEqual([]);
  });
});
