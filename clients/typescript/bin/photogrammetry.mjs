#!/usr/bin/env node
// The `photogrammetry` command: runs the TypeScript CLI through tsx, so the package needs no build step.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli.ts");
const code = await main(process.argv.slice(2));
// Exit now: an idle keep-alive socket must not hold the process (and a script) open.
process.exit(code);
