/**
 * @module Deleting an account from the dashboard: every reconstruction's files (inputs, outputs
 * and work objects in R2) and every tus upload (its `uploads/<id>/` objects and its UploadObject state),
 * then the account (keys, ledger, webhook endpoints and deliveries, so its API keys fail at once), then the
 * user and its sessions. Files go first: if anything fails midway the account still exists and
 * the user can retry, rather than files being left behind with no owner to delete them.
 */
import type { Env } from "../env.js";
import { inputPrefix, outputPrefix, workPrefix } from "../../shared/storage-keys.js";

async function deletePrefix(bucket: R2Bucket, prefix: string): Promise<void> {
  for (;;) {
    const listing = await bucket.list({ prefix, limit: 1000 });
    if (listing.objects.length > 0) await bucket.delete(listing.objects.map((o) => o.key));
    if (!listing.truncated) return;
  }
}

export async function deleteAccountEverywhere(env: Env, accountId: string, userName: string): Promise<void> {
  const account = env.ACCOUNTS.get(env.ACCOUNTS.idFromName(accountId));
  let before: number | null = null;
  for (;;) {
    const batch = await account.chargedReconstructions(100, before, []);
    const prefixes = batch.flatMap((r) => [inputPrefix(r.reconstruction_id), outputPrefix(r.reconstruction_id), workPrefix(r.reconstruction_id)]);
    await Promise.all(prefixes.map((prefix) => deletePrefix(env.BUCKET, prefix)));
    if (batch.length < 100) break;
    before = batch[batch.length - 1].row;
  }
  for (const uploadId of await account.uploadIds()) {
    await env.UPLOADS.get(env.UPLOADS.idFromName(uploadId)).purge(accountId);
  }
  await account.deleteAccount();
  await env.USERS.get(env.USERS.idFromName(userName)).remove();
}
