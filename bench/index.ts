/**
 * @module `npm run bench -- <name...>`: runs the named benchmarks (edge, sfm, precision, dense, ba, front, views, stress, subsets, scale, load, ann, keypoints, eta, export, burst), or all.
 * Each benchmark is a module `bench/<name>.ts` exporting `run(args: string[]): Promise<void>`.
 */
const KNOWN = ["edge", "sfm", "precision", "dense", "ba", "front", "views", "stress", "subsets", "scale", "load", "ann", "keypoints", "eta", "export", "burst"] as const;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const names = args.filter((a) => (KNOWN as readonly string[]).includes(a));
  const rest = args.filter((a) => !(KNOWN as readonly string[]).includes(a));
  for (const name of names.length > 0 ? names : KNOWN) {
    console.log(`\n=== bench ${name} ===`);
    const mod = (await import(`./${name}.ts`)) as { run: (args: string[]) => Promise<void> };
    await mod.run(rest);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
