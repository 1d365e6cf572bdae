/**
 * @module GET /v1/reconstructions (the caller's reconstructions, newest first, cursor-paged,
 * optionally one status) and GET /v1/reconstruction/{id}/report (per input and per stage).
 * Same order of checks as every /v1 route: 401, 429, then the request's own (404, 400, 409).
 */
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../app-env.js";
import { requireApiKey } from "../access/auth.js";
import { ApiError } from "../errors.js";
import { listReconstructions } from "../listing/list.js";
import { readReport } from "../listing/report.js";
import { rateLimit } from "../access/rate-limit.js";
import { ListQuery, LIST_MAX_LIMIT } from "../../shared/listing.js";
import { ownedStatus } from "./reconstructions.js";

export const reconstructionListRoutes = new Hono<AppEnv>();

reconstructionListRoutes.get("/", requireApiKey(), rateLimit("request"), async function listOwnReconstructions(c) {
  const query = parseListQuery(c.req.query());
  return c.json(await listReconstructions(c.env, c.get("accountId")!, query));
});

/** Parses `limit`, `cursor`, `status`; any other parameter or a bad value is a 400 that says which. */
export function parseListQuery(raw: Record<string, string>): ListQuery {
  const parsed = ListQuery.strict().safeParse(raw);
  if (!parsed.success) {
    throw new ApiError(
      "invalid_request",
      `Bad list query: ${z.prettifyError(parsed.error).replace(/\s+/g, " ")}`,
      `Use limit (1–${LIST_MAX_LIMIT}), cursor (the next_cursor of the previous page) and status (pending, processing, completed, failed).`,
    );
  }
  return parsed.data;
}

export const reconstructionReportRoutes = new Hono<AppEnv>();

reconstructionReportRoutes.get("/:id/report", requireApiKey(), rateLimit("request"), async function getReport(c) {
  const record = await ownedStatus(c, c.req.param("id"));
  if (record.status === "pending" || record.status === "processing") {
    throw new ApiError("not_ready", `The reconstruction is ${record.status}; its report is written when it ends.`, "Poll the status URL until status is completed or failed.");
  }
  const report = await readReport(c.env.BUCKET, record);
  if (!report) throw new ApiError("not_found", "This reconstruction has no report (its processing never ran).", "See `error` in the status record.");
  return c.json(report);
});
