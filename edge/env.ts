/**
 * @module The Worker's bindings and configuration, checked once with a schema.
 *
 * Each Durable Object binding is typed by the interface of what its callers may ask
 * (objects/*-rpc.ts, scheduling/scheduler-rpc.ts), which the object's class implements: the
 * objects import this module for their own Env, so it imports none of them.
 */
import { z } from "zod";
import type { Container } from "@cloudflare/containers";
import type { AccountRpc } from "./objects/account-rpc.js";
import type { ReconstructionRpc } from "./objects/reconstruction-rpc.js";
import type { RateLimiterRpc } from "./objects/rate-limiter-rpc.js";
import type { UploadRpc } from "./objects/upload-rpc.js";
import type { UserRpc } from "./objects/user-rpc.js";
import type { SchedulerRpc } from "./scheduling/scheduler-rpc.js";
import type { TaskMessage } from "../shared/tasks.js";
import type { WebhookMessage } from "../shared/webhooks.js";

export interface Env {
  ACCOUNTS: DurableObjectNamespace<AccountRpc>;
  RECONSTRUCTIONS: DurableObjectNamespace<ReconstructionRpc>;
  RATE_LIMITER: DurableObjectNamespace<RateLimiterRpc>;
  /** tus uploads, one object per upload (edge/objects/upload.ts). */
  UPLOADS: DurableObjectNamespace<UploadRpc>;
  /** Dashboard users and their sessions, one object per email (edge/dashboard/users.ts). */
  USERS: DurableObjectNamespace<UserRpc>;
  /** Workers static assets: the dashboard's bundled scripts and styles (scripts/build-dashboard.mjs). */
  ASSETS: Fetcher;
  /** The waiting line of jobs for compute, one object named `jobs` (edge/scheduling/scheduler-object.ts). */
  SCHEDULER: DurableObjectNamespace<SchedulerRpc>;
  BUCKET: R2Bucket;
  /** One message per task delivery (edge/compute/task-queue.ts); sent by the ReconstructionObject. */
  TASKS: Queue<TaskMessage>;
  /** Webhook deliveries (edge/webhooks/consumer.ts). */
  WEBHOOKS: Queue<WebhookMessage>;
  BASE_URL: string;
  CDN_URL: string;
  ADMIN_TOKEN: string;
  SIGNING_SECRET: string;
  COMPUTE_SECRET: string;
  /** One base URL, or several separated by commas (local dev runs several compute processes). */
  COMPUTE_URL?: string;
  /** Production only: the compute Container (used when COMPUTE_URL is unset). */
  COMPUTE_CONTAINER?: DurableObjectNamespace<Container>;
  TRIAL_CREDITS?: string;
  RATE_LIMIT_REQUESTS?: string;
  RATE_LIMIT_CREATES?: string;
  RATE_LIMIT_WINDOW_SECONDS?: string;
  MAX_FILES_PER_REQUEST?: string;
  MAX_IMAGE_BYTES?: string;
  MAX_VIDEO_BYTES?: string;
  MAX_REQUEST_BYTES?: string;
  DOWNLOAD_TTL_SECONDS?: string;
  DISPATCH_TIMEOUT_SECONDS?: string;
  DISPATCH_MAX_BACKOFF_SECONDS?: string;
  /** Jobs in flight at most (production: the containers kept for jobs); unset: as many as compute accepts. */
  COMPUTE_MAX_JOBS?: string;
  DISPATCH_BUSY_POLL_SECONDS?: string;
  DISPATCH_UNREACHABLE_SECONDS?: string;
  /** Task leases and deliveries (read by ReconstructionObject, edge/objects/reconstruction-tasks.ts). */
  TASK_LEASE_SECONDS?: string;
  TASK_MAX_DELIVERIES?: string;
  /** "true" / "false"; unset: private webhook URLs allowed only when BASE_URL is on loopback (edge/webhooks/url-policy.ts). */
  WEBHOOK_ALLOW_PRIVATE_URLS?: string;
  WEBHOOK_RETRY_SCHEDULE_SECONDS?: string;
  WEBHOOK_DISABLE_AFTER_SECONDS?: string;
  /** tus expiration: an upload untouched this long is deleted (read by UploadObject). */
  UPLOAD_TTL_SECONDS?: string;
  SIGNIN_LIMIT_PER_ADDRESS?: string;
  SIGNIN_LIMIT_PER_ACCOUNT?: string;
  SIGNIN_LIMIT_WINDOW_SECONDS?: string;
  SIGNUP_LIMIT_PER_ADDRESS?: string;
  SIGNUP_LIMIT_WINDOW_SECONDS?: string;
}

const intVar = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** `http://a:8788,http://b:8788` → each a URL, without trailing slashes; unset or blank → undefined. */
const UrlList = z
  .string()
  .optional()
  .transform((value) => (value ?? "").split(",").map((url) => url.trim().replace(/\/+$/, "")).filter((url) => url.length > 0))
  .pipe(z.array(z.string().url()))
  .transform((urls) => (urls.length > 0 ? urls : undefined));

/** Variables as strings in, typed config out. Defaults are the local-dev ones of README.md. */
export const ConfigSchema = z.object({
  BASE_URL: z.string().url().default("http://127.0.0.1:8787"),
  CDN_URL: z.string().url().default("http://127.0.0.1:8787/cdn"),
  ADMIN_TOKEN: z.string().min(8),
  SIGNING_SECRET: z.string().min(16),
  COMPUTE_SECRET: z.string().min(8),
  /** Compute over HTTP, tried in turn from a random one; unset in production (the Container binding). */
  COMPUTE_URL: UrlList,
  TRIAL_CREDITS: z.coerce.number().int().nonnegative().default(5),
  RATE_LIMIT_REQUESTS: intVar(120),
  RATE_LIMIT_CREATES: intVar(10),
  RATE_LIMIT_WINDOW_SECONDS: intVar(60),
  MAX_FILES_PER_REQUEST: intVar(1000),
  MAX_IMAGE_BYTES: intVar(50 * 1024 * 1024),
  MAX_VIDEO_BYTES: intVar(500 * 1024 * 1024),
  MAX_REQUEST_BYTES: intVar(500 * 1024 * 1024),
  DOWNLOAD_TTL_SECONDS: intVar(900),
  /** How long the queue consumer waits for compute's 202 before it counts the try as failed. */
  DISPATCH_TIMEOUT_SECONDS: intVar(15),
  /** Cap of the exponential backoff between dispatch tries (and of compute's Retry-After). */
  DISPATCH_MAX_BACKOFF_SECONDS: intVar(300),
  /**
   * Jobs handed to compute at once, at most; unset, the scheduler hands jobs over until compute
   * answers busy. Production sets it to the containers kept for jobs (wrangler.jsonc).
   */
  COMPUTE_MAX_JOBS: z.coerce.number().int().positive().optional(),
  /** How often the scheduler asks a busy compute again (compute's Retry-After is capped to it). */
  DISPATCH_BUSY_POLL_SECONDS: intVar(5),
  /**
   * How long compute may be unreachable or broken (no answer, 5xx other than 503) during a job's
   * wait before that job fails with `dispatch_failed` and its credit is refunded. Busy is never it.
   */
  DISPATCH_UNREACHABLE_SECONDS: intVar(900),
  /** Dashboard sign-in attempts per client address and per email, per window. */
  SIGNIN_LIMIT_PER_ADDRESS: intVar(20),
  SIGNIN_LIMIT_PER_ACCOUNT: intVar(10),
  SIGNIN_LIMIT_WINDOW_SECONDS: intVar(900),
  /** Dashboard sign-ups per client address, per window: each one grants trial credits. */
  SIGNUP_LIMIT_PER_ADDRESS: intVar(10),
  SIGNUP_LIMIT_WINDOW_SECONDS: intVar(3600),
});
export type Config = z.infer<typeof ConfigSchema>;

const cache = new WeakMap<object, Config>();

/** Parses once per env object; a misconfigured Worker fails loudly on its first request. */
export function configOf(env: Env): Config {
  let config = cache.get(env);
  if (!config) {
    config = ConfigSchema.parse(env);
    config.BASE_URL = config.BASE_URL.replace(/\/+$/, "");
    config.CDN_URL = config.CDN_URL.replace(/\/+$/, "");
    cache.set(env, config);
  }
  return config;
}
