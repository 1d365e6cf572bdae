/**
 * @module The Hono environment every route, middleware and the app share: the Worker's bindings
 * and the per-request variables. Its own module beside env.ts, so that routes import it without
 * importing the app that mounts them (imports stay one way: app → routes → app-env).
 */
import type { Env } from "./env.js";

export type AppEnv = { Bindings: Env; Variables: { requestId: string; accountId?: string } };
