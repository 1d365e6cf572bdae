/**
 * @module The dashboard's own JSON endpoints (`/dashboard/api/...`): session cookie, CSRF on
 * writes, never an API key, and the same handlers, Durable Objects, limits and error envelope
 * as the API. The upload is the API's creation handler itself, so credit, checks and limits
 * cannot drift apart.
 */
import { Hono } from "hono";
import { listReconstructions } from "../listing/list.js";
import { rateLimit } from "../access/rate-limit.js";
import { parseListQuery } from "../routes/reconstruction-list.js";
import { createReconstruction, ownedStatus } from "../routes/reconstructions.js";
import type { DashboardEnv } from "./session.js";

export const dashboardApi = new Hono<DashboardEnv>();

dashboardApi.post("/reconstructions", rateLimit("create"), async function upload(c) {
  const response = await createReconstruction(c as unknown as Parameters<typeof createReconstruction>[0]);
  // Without JavaScript the form posts here directly (`redirect=1`): go to the new page.
  if (response.status === 202 && c.req.query("redirect") === "1") {
    const { id } = (await response.clone().json()) as { id: string };
    return c.redirect(`/dashboard/reconstructions/${id}`, 303);
  }
  return response;
});

dashboardApi.get("/reconstructions", rateLimit("request"), async (c) =>
  c.json(await listReconstructions(c.env, c.get("user")!.accountId, parseListQuery(c.req.query()))),
);

dashboardApi.get("/reconstructions/:id", rateLimit("request"), async (c) =>
  c.json(await ownedStatus(c as unknown as Parameters<typeof ownedStatus>[0], c.req.param("id"))),
);

