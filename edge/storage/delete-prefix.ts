/** @module Removes every R2 object under a prefix, a listing page (≤ 1,000 keys) at a time. */

/** Deletes all objects whose key starts with `prefix`; returns how many were deleted. */
export async function deletePrefix(bucket: R2Bucket, prefix: string): Promise<number> {
  let deleted = 0;
  for (;;) {
    // Always list from the start: the previous page is gone, so no cursor is needed.
    const listing = await bucket.list({ prefix, limit: 1000 });
    if (listing.objects.length === 0) return deleted;
    await bucket.delete(listing.objects.map((o) => o.key));
    deleted += listing.objects.length;
    if (!listing.truncated) return deleted;
  }
}
