/**
 * @module `npm run bench -- <name...>`: runs the named benchmarks (edge, sfm, precision, dense, ba, front, views, stress, subsets, scale, load, ann, keypoints, eta, export, burst, survey, kernels, detect, speed), or all.
 * Each benchmark is a module `bench/<name>.ts` exporting `run(args: string[]): Promise<void>`.
 * `--help` prints their arguments and options (bench/usage.ts); an option that none of the
 * named benchmarks reads is refused before any runs.
 */
import { BENCH_NAMES, type BenchName, unknownOption, usage } from "./usage.js";

const KNOWN: readonly string[] = BENCH_NAMES;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const names = args.filter((a) => KNOWN.includes(a)) as BenchName[];
  const rest = args.filter((a) => !KNOWN.includes(a));
  if (rest.includes("--help") || rest.includes("-h")) {
    process.stdout.write(`${usage(names)}\n`);
    return;
  }
  const refused = unknownOption(names, rest);
  if (refused) {
    console.error(refused);
    process.exit(2);
  }
  for (const name of names.length > 0 ? names : BENCH_NAMES) {
    console.log(`\n=== bench ${name} ===`);
    const mod = (await import(`./${name}.ts`)) as { run: (args: string[]) => Promise<void> };
    await mod.run(rest);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
