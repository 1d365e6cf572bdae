/** SDK example (README "CLI and SDK"): photos in, a GLB out. Run: npx tsx clients/typescript/examples/reconstruct.ts ./photos */
import { readdir } from "node:fs/promises";
import path from "node:path";
import { ApiError, PhotogrammetryClient, ReconstructionFailedError } from "../src/index.js";

const client = new PhotogrammetryClient({
  apiKey: process.env.PHOTOGRAMMETRY_API_KEY!,
  baseUrl: process.env.PHOTOGRAMMETRY_API_URL ?? "http://127.0.0.1:8787",
  retry: { maxAttempts: 5 }, // network errors, 429 (Retry-After) and 5xx; one Idempotency-Key per create
});

const dir = process.argv[2] ?? "./photos";
const photos = (await readdir(dir)).filter((f) => /\.(jpe?g|png|heic)$/i.test(f)).map((f) => path.join(dir, f));

try {
  const created = await client.createReconstruction(photos, {
    quality: "standard",
    onUploadProgress: ({ sentBytes, totalBytes }) => process.stdout.write(`\rupload ${sentBytes}/${totalBytes} bytes`),
  });
  console.log(`\ncreated ${created.id}`);
  let lastStage: string | null = null;
  const done = await client.waitFor(created.id, {
    intervalMs: 1000,
    onProgress: (s) => {
      if (s.stage !== lastStage) console.log(`${s.status} ${s.stage ?? ""} ${s.progress}% (eta ${s.estimated_completion})`);
      lastStage = s.stage;
    },
  });
  const glb = await client.download(done.id, "glb", `./model/${done.id}.glb`);
  console.log(`saved ./model/${done.id}.glb, ${glb.file_size} bytes`);
} catch (error) {
  if (error instanceof ReconstructionFailedError) console.error(`failed: ${error.code} (credit refunded: ${error.creditRefunded})`);
  else if (error instanceof ApiError) console.error(`API said ${error.status} ${error.code}: ${error.message}`);
  else throw error;
  process.exitCode = 1;
}
