/** @module Entry point of the compute service: `tsx compute/server.ts` (config from the environment). */
import { createComputeService } from "./service/app.js";
import { loadConfig } from "./service/config.js";
import { createEdgeClient } from "./service/edge-client.js";

const config = loadConfig();
const service = await createComputeService(config, createEdgeClient(config.EDGE_URL, config.COMPUTE_SECRET));
const address = await service.app.listen({ host: config.HOST, port: config.PORT });
console.log(JSON.stringify({ level: "info", event: "listening", address, edge: config.EDGE_URL, capacity: config.MAX_CONCURRENT_JOBS }));

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(1);
    stopping = true;
    console.log(JSON.stringify({ level: "info", event: "draining", signal }));
    // A short grace: the edge's watchdog covers jobs cut off here.
    service.shutdown(Number(process.env.SHUTDOWN_GRACE_MS ?? 5000)).then(() => process.exit(0));
  });
}
