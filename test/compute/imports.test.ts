/**
 * No circles: no file of edge/, shared/ or compute/ reaches itself through its imports, type-only
 * imports included (docs/DESIGN.md "Imports go one way"). A loop found is printed file by file.
 */
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

async function sources(folder: string): Promise<string[]> {
  const entries = await readdir(path.join(root, folder), { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith(".ts")).map((e) => path.join(e.parentPath, e.name));
}

/** The project files `file` imports: relative specifiers, `.js` read as the `.ts` beside it. */
async function importsOf(file: string): Promise<string[]> {
  const text = await readFile(file, "utf8");
  const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)].map((m) => m[1]!);
  return specs
    .map((spec) => path.resolve(path.dirname(file), spec.replace(/\.js$/, ".ts")))
    .map((target) => (existsSync(target) ? target : path.join(target, "index.ts")))
    .filter((target) => existsSync(target));
}

/** A loop of imports through `graph`, as the files in order, or null (depth-first search). */
function findLoop(graph: Map<string, string[]>): string[] | null {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (file: string): string[] | null => {
    state.set(file, "open");
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === "open") return [...stack.slice(stack.indexOf(next)), next];
      if (!state.has(next)) {
        const loop = visit(next);
        if (loop) return loop;
      }
    }
    stack.pop();
    state.set(file, "done");
    return null;
  };
  for (const file of graph.keys()) {
    if (state.has(file)) continue;
    const loop = visit(file);
    if (loop) return loop;
  }
  return null;
}

describe("imports", () => {
  it("run one way: no file of edge/, shared/ or compute/ imports itself round a loop", async () => {
    const files = [...(await sources("edge")), ...(await sources("shared")), ...(await sources("compute"))];
    const graph = new Map<string, string[]>();
    for (const file of files) graph.set(file, await importsOf(file));
    const loop = findLoop(graph);
    expect(loop?.map((file) => path.relative(root, file)).join(" → ") ?? null).toBeNull();
  });
});
