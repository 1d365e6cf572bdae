#!/usr/bin/env node
// The npm registry reachable here has no macOS/Windows builds of workerd, so `npm install`
// leaves those optional packages out of package-lock.json, and `npm ci` then refuses the lock
// ("Missing: @cloudflare/workerd-darwin-64 from lock file"). This adds the entries back, each
// a copy of the Linux build's entry with its own os/cpu and no integrity (npm skips optional
// packages for other platforms without fetching them). Run after every `npm install`.
import { readFileSync, writeFileSync } from "node:fs";

const file = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(file, "utf8"));
const platforms = { "darwin-64": ["darwin", "x64"], "darwin-arm64": ["darwin", "arm64"], "windows-64": ["win32", "x64"], "linux-arm64": ["linux", "arm64"] };
let added = 0;
for (const [key, entry] of Object.entries(lock.packages)) {
  if (!key.endsWith("/@cloudflare/workerd-linux-64")) continue;
  for (const [suffix, [os, cpu]] of Object.entries(platforms)) {
    const target = key.replace(/workerd-linux-64$/, `workerd-${suffix}`);
    if (lock.packages[target]) continue;
    const { integrity: _integrity, resolved: _resolved, ...rest } = entry;
    lock.packages[target] = { ...rest, os: [os], cpu: [cpu] };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : a > b ? 1 : 0)));
writeFileSync(file, JSON.stringify(lock, null, 2) + "\n");
console.log(`lock-platforms: added ${added} entries`);
