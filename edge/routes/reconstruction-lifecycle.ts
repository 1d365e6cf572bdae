/**
 * @module POST /v1/reconstruction/{id}/cancel and DELETE /v1/reconstruction/{id}
 * (docs/API.md "Reconstruction lifecycle").
 *
 * Cancel moves a pending or processing reconstruction to `failed` with the code `cancelled`;
 * the ReconstructionObject refunds the credit once (a ledger row) and refuses compute's next
 * report, which is compute's signal to stop. Delete cancels when needed, removes every input,
 * output and work object from R2, and only then tombstones the record, so a DELETE that fails
 * half-way can be repeated (the id keeps answering until everything is gone). An id that
 * belongs to another account answers 404, exactly like an unknown one.
 */
import { Hono, type Context } from "hono";
import type { AppEnv } from "../app-env.js";
import { requireApiKey } from "../access/auth.js";
import { ApiError } from "../errors.js";
import { rateLimit } from "../access/rate-limit.js";
import { deletePrefix } from "../storage/delete-prefix.js";
import { ReconstructionId } from "../../shared/records.js";
import { inputPrefix, outputPrefix, workPrefix } from "../../shared/storage-keys.js";

export const reconstructionLifecycleRoutes = new Hono<AppEnv>();

const notFound = () => new ApiError("not_found", "No reconstruction with this id.", "Check the id returned when the reconstruction was created.");

/** The reconstruction's object for a well-formed id; a malformed id is a 404 like any unknown one. */
function stubOf(c: Context<AppEnv>, rawId: string) {
  const id = ReconstructionId.safeParse(rawId);
  if (!id.success) throw notFound();
  return { id: id.data, stub: c.env.RECONSTRUCTIONS.get(c.env.RECONSTRUCTIONS.idFromName(id.data)) };
}

reconstructionLifecycleRoutes.post("/:id/cancel", requireApiKey(), rateLimit("request"), async function cancelReconstruction(c) {
  const { stub } = stubOf(c, c.req.param("id"));
  const outcome = await stub.cancel(c.get("accountId")!);
  if (outcome.kind === "not_found") throw notFound();
  if (outcome.kind === "already_terminal") {
    throw new ApiError("already_terminal", `The reconstruction is already ${outcome.record.status}; there is nothing to cancel.`, "Delete it with DELETE /v1/reconstruction/{id} if you no longer need it.");
  }
  return c.json(outcome.record, 200);
});

reconstructionLifecycleRoutes.delete("/:id", requireApiKey(), rateLimit("request"), async function deleteReconstruction(c) {
  const accountId = c.get("accountId")!;
  const { id, stub } = stubOf(c, c.req.param("id"));
  const outcome = await stub.cancel(accountId);
  if (outcome.kind === "not_found") throw notFound();
  // The record is terminal now, so compute can write no further output (internal PUT refuses).
  await deletePrefix(c.env.BUCKET, inputPrefix(id));
  await deletePrefix(c.env.BUCKET, outputPrefix(id));
  await deletePrefix(c.env.BUCKET, workPrefix(id));
  await stub.markDeleted(accountId);
  return c.body(null, 204);
});
