/**
 * @module The internal API that compute calls (Bearer COMPUTE_SECRET): inputs, outputs, work
 * objects, job reports, and tasks (internal-tasks.ts).
 *
 * Compute reaches R2 and the state machine only through here (see compute/service/edge-client.ts).
 * Reads are limited to `inputs/`, `outputs/` and `work/`, writes to `outputs/` and `work/`.
 */
import { Hono, type MiddlewareHandler } from "hono";
import { CompletionReport, FailureReport, ProgressReport } from "../../shared/jobs.js";
import { ReconstructionId } from "../../shared/records.js";
import type { AppEnv } from "../app-env.js";
import { configOf } from "../env.js";
import { ApiError } from "../errors.js";
import { workKeyOwner } from "../storage/work-keys.js";
import { internalTaskRoutes } from "./internal-tasks.js";
import { z } from "zod";

export const internalRoutes = new Hono<AppEnv>();

function requireComputeSecret(): MiddlewareHandler<AppEnv> {
  return async function computeSecret(c, next) {
    const expected = new TextEncoder().encode(`Bearer ${configOf(c.env).COMPUTE_SECRET}`);
    const given = new TextEncoder().encode(c.req.header("authorization") ?? "");
    const same = given.byteLength === expected.byteLength && crypto.subtle.timingSafeEqual(given, expected);
    if (!same) throw new ApiError("invalid_api_key", "Internal API: missing or wrong compute secret.", "Send Authorization: Bearer <COMPUTE_SECRET>.");
    await next();
  };
}

internalRoutes.use("*", requireComputeSecret());

/** The R2 key of an internal object path: one file of a reconstruction's inputs or outputs, or a plain work key. */
function objectKey(path: string): string {
  const key = decodeURIComponent(path.replace(/^\/internal\/objects\//, ""));
  const inputOrOutput = /^(inputs|outputs)\/rec_[A-Za-z0-9_-]+\/[^/]+$/.test(key) && !key.endsWith("/..") && !key.endsWith("/.");
  if (!inputOrOutput && !workKeyOwner(key)) throw new ApiError("not_found", "No such object.", "");
  return key;
}

internalRoutes.get("/objects/*", async (c) => {
  const object = await c.env.BUCKET.get(objectKey(new URL(c.req.url).pathname));
  if (!object) throw new ApiError("not_found", "No such object.", "");
  return new Response(object.body, { headers: { "content-length": String(object.size), "content-type": object.httpMetadata?.contentType ?? "application/octet-stream" } });
});

internalRoutes.put("/objects/*", async (c) => {
  const key = objectKey(new URL(c.req.url).pathname);
  if (!key.startsWith("outputs/") && !key.startsWith("work/")) throw new ApiError("invalid_request", "Only outputs and work objects may be written.", "");
  // A cancelled, finished or deleted job writes nothing more (its objects may be being deleted).
  const id = key.split("/")[1]!;
  const writable = await c.env.RECONSTRUCTIONS.get(c.env.RECONSTRUCTIONS.idFromName(id)).acceptsOutputs();
  if (!writable) return c.json({ accepted: false, reason: "the reconstruction no longer accepts outputs" }, 409);
  const length = Number(c.req.header("content-length"));
  if (!c.req.raw.body || !Number.isFinite(length)) throw new ApiError("invalid_request", "A body with Content-Length is required.", "");
  const stored = await c.env.BUCKET.put(key, c.req.raw.body, { httpMetadata: { contentType: c.req.header("content-type") ?? "application/octet-stream" } });
  // Cancelled or deleted while this upload streamed: the delete may already have listed the
  // prefix, so this object would be left behind. Remove it.
  if (!(await c.env.RECONSTRUCTIONS.get(c.env.RECONSTRUCTIONS.idFromName(id)).acceptsOutputs())) {
    await c.env.BUCKET.delete(key);
    return c.json({ accepted: false, reason: "the reconstruction no longer accepts outputs" }, 409);
  }
  return c.json({ key, size: stored?.size ?? length }, 201);
});

// Before the job verbs: `/reconstructions/:id/tasks` is not a verb.
internalRoutes.route("/reconstructions", internalTaskRoutes);

const Verb = z.enum(["start", "progress", "heartbeat", "complete", "fail"]);
const AttemptOnly = z.object({ attempt: z.number().int().min(1) });

internalRoutes.post("/reconstructions/:id/:verb", async (c) => {
  const id = ReconstructionId.safeParse(c.req.param("id"));
  const verb = Verb.safeParse(c.req.param("verb"));
  if (!id.success || !verb.success) throw new ApiError("not_found", "No such reconstruction or report.", "");
  const body: unknown = await c.req.json().catch(() => null);
  const stub = c.env.RECONSTRUCTIONS.get(c.env.RECONSTRUCTIONS.idFromName(id.data));
  const invalid = (message: string) => new ApiError("invalid_request", `Internal report: ${message}`, "");
  let answer: { accepted: boolean; status?: string };
  switch (verb.data) {
    case "start": {
      const parsed = AttemptOnly.safeParse(body);
      if (!parsed.success) throw invalid("start needs {attempt}");
      answer = await stub.start(parsed.data.attempt);
      break;
    }
    case "heartbeat": {
      const parsed = AttemptOnly.safeParse(body);
      if (!parsed.success) throw invalid("heartbeat needs {attempt}");
      answer = await stub.heartbeat(parsed.data.attempt);
      break;
    }
    case "progress": {
      const parsed = ProgressReport.safeParse(body);
      if (!parsed.success) throw invalid("progress does not match ProgressReport");
      answer = await stub.progress(parsed.data);
      break;
    }
    case "complete": {
      const parsed = CompletionReport.safeParse(body);
      if (!parsed.success) throw invalid("complete does not match CompletionReport");
      answer = await stub.complete(parsed.data);
      break;
    }
    case "fail": {
      const parsed = FailureReport.safeParse(body);
      if (!parsed.success) throw invalid("fail does not match FailureReport");
      answer = await stub.fail(parsed.data);
      break;
    }
  }
  // A refusal means "stop this job": it was cancelled, ended, deleted, or a newer attempt owns it.
  return c.json({ ...answer, stop: !answer.accepted }, answer.accepted ? 200 : 409);
});
