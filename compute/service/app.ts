/**
 * @module The compute HTTP service (fastify): POST /jobs, POST /tasks, GET /healthz.
 *
 * POST /jobs answers 202 at once and runs the job in the background; when every slot is busy
 * it answers 503 with Retry-After, and the edge's waiting line (edge/scheduling/) keeps the job
 * in its place and polls again after it. A second delivery of a reconstruction that is already
 * running here is acknowledged without starting it twice (and a newer attempt number takes over
 * the running job's reports).
 *
 * POST /tasks takes one task of a large job (shared/tasks.ts) on the same terms, in slots of
 * its own: a coordinator waiting for its tasks holds a job slot, and must not keep this
 * container from running one of them.
 */
import { timingSafeEqual } from "node:crypto";
import { mkdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import Fastify, { type FastifyInstance } from "fastify";
import { JobMessage } from "../../shared/jobs.js";
import { TaskMessage } from "../../shared/tasks.js";
import type { ComputeConfig } from "./config.js";
import type { EdgeClient } from "./edge-client.js";
import { startJob, type RunningJob } from "./job-runner.js";
import { PipelineThreads } from "./pipeline-threads.js";
import { startTask, type RunningTask } from "./task-runner.js";
import { VERSION } from "./version.js";

export interface ComputeService {
  app: FastifyInstance;
  running: Map<string, RunningJob>;
  /** Tasks running here, by `<reconstruction id>/<task key>`. */
  runningTasks: Map<string, RunningTask>;
  /** The pipeline threads kept between jobs. */
  threads: PipelineThreads;
  /** Stops taking work (503), waits for running jobs up to `graceMs`, then closes. */
  shutdown(graceMs: number): Promise<void>;
}

export async function createComputeService(config: ComputeConfig, edge: EdgeClient): Promise<ComputeService> {
  const workRoot = config.WORK_DIR ?? path.join(os.tmpdir(), "photogrammetry-jobs");
  await mkdir(workRoot, { recursive: true });
  const app = Fastify({ logger: false, bodyLimit: 4 * 1024 * 1024 });
  const running = new Map<string, RunningJob>();
  const runningTasks = new Map<string, RunningTask>();
  const worker = config.WORKER_ID ?? `${os.hostname()}:${config.PORT}:${process.pid}`;
  // Threads wait loaded between jobs, one per job slot; the first starts now.
  const threads = new PipelineThreads(config.MAX_CONCURRENT_JOBS);
  if (config.PREWARM === "1") threads.prewarm();
  const finishing = new Set<Promise<void>>();
  let draining = false;
  const log = (event: Record<string, unknown>) => console.log(JSON.stringify({ time: new Date().toISOString(), ...event }));
  const expected = Buffer.from(`Bearer ${config.COMPUTE_SECRET}`);

  app.get("/healthz", async () => ({
    ok: !draining,
    version: VERSION,
    running_jobs: [...running.values()].map((j) => ({ id: j.id, attempt: j.attempt, stage: j.stage, progress: j.progress, seconds: Math.round((Date.now() - j.startedAt) / 1000) })),
    capacity: config.MAX_CONCURRENT_JOBS,
    available: Math.max(0, config.MAX_CONCURRENT_JOBS - running.size),
    worker,
    running_tasks: [...runningTasks.values()].map((t) => ({ id: t.id, key: t.key, attempt: t.attempt, delivery: t.delivery, leased: t.leased, progress: t.progress, seconds: Math.round((Date.now() - t.startedAt) / 1000) })),
    task_capacity: config.MAX_CONCURRENT_TASKS,
    draining,
    // Threads started since start-up, and those waiting loaded: jobs that reuse one skip its start-up.
    pipeline_threads: { started: threads.started, waiting: threads.waiting },
  }));

  const authorised = (header: string | undefined) => {
    const given = Buffer.from(header ?? "");
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
  const unauthorised = { error: { code: "invalid_api_key", message: "Missing or wrong compute secret.", suggestion: "Send Authorization: Bearer <COMPUTE_SECRET>." } };
  const busy = (what: string) => ({ error: { code: "service_unavailable", message: draining ? "Compute is shutting down." : `Compute is at capacity for ${what}.`, suggestion: "Retry after the Retry-After delay." } });

  app.post("/jobs", async (request, reply) => {
    if (!authorised(request.headers.authorization)) return reply.code(401).send(unauthorised);
    const parsed = JobMessage.safeParse(request.body);
    if (!parsed.success) {
      return reply.code(400).send({ error: { code: "invalid_request", message: `Job message does not match the schema: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`, suggestion: "Send a JobMessage (shared/jobs.ts)." } });
    }
    const job = parsed.data;
    const existing = running.get(job.reconstruction_id);
    if (existing) {
      existing.attempt = Math.max(existing.attempt, job.attempt);
      return reply.code(202).send({ accepted: true, duplicate: true, attempt: existing.attempt });
    }
    if (draining || running.size >= config.MAX_CONCURRENT_JOBS) {
      return reply.code(503).header("retry-after", "30").send(busy("jobs"));
    }
    const { handle, finished } = startJob(job, { config, edge, workRoot, threads, log });
    running.set(job.reconstruction_id, handle);
    const tracked = finished.finally(() => {
      running.delete(job.reconstruction_id);
      finishing.delete(tracked);
    });
    finishing.add(tracked);
    log({ level: "info", job: job.reconstruction_id, attempt: job.attempt, event: "accepted", inputs: job.inputs.length });
    return reply.code(202).send({ accepted: true, duplicate: false, attempt: job.attempt });
  });

  app.post("/tasks", async (request, reply) => {
    if (!authorised(request.headers.authorization)) return reply.code(401).send(unauthorised);
    const parsed = TaskMessage.safeParse(request.body);
    if (!parsed.success) {
      return reply.code(400).send({ error: { code: "invalid_request", message: `Task message does not match the schema: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`, suggestion: "Send a TaskMessage (shared/tasks.ts)." } });
    }
    const task = parsed.data;
    const name = `${task.reconstruction_id}/${task.key}`;
    if (runningTasks.get(name)?.attempt === task.attempt) return reply.code(202).send({ accepted: true, duplicate: true });
    // Tasks are short (one cluster), so a busy container asks for a quick retry.
    if (draining || runningTasks.size >= config.MAX_CONCURRENT_TASKS) return reply.code(503).header("retry-after", "5").send(busy("tasks"));
    const { handle, finished } = startTask(task, { config, edge, workRoot, worker, log });
    runningTasks.set(name, handle);
    const tracked = finished.finally(() => {
      if (runningTasks.get(name) === handle) runningTasks.delete(name);
      finishing.delete(tracked);
    });
    finishing.add(tracked);
    log({ level: "info", job: task.reconstruction_id, task: task.key, delivery: task.delivery, event: "task_accepted" });
    return reply.code(202).send({ accepted: true, duplicate: false });
  });

  return {
    app,
    running,
    runningTasks,
    threads,
    async shutdown(graceMs) {
      draining = true;
      const timeout = new Promise((r) => setTimeout(r, graceMs).unref());
      await Promise.race([Promise.all([...finishing]), timeout]);
      // Jobs still running are abandoned; the edge's watchdog re-dispatches them.
      for (const job of running.values()) job.cancel("shutdown");
      for (const task of runningTasks.values()) task.cancel("shutdown");
      await threads.close();
      await app.close();
    },
  };
}
