/** @module tus uploads (docs/API.md "Uploads"): the upload id, its public record and the JSON creation body. */
import { z } from "zod";
import { ControlPointsInput } from "./control-points.js";
import { Quality } from "./jobs.js";

/** `upl_` + 24 URL-safe random characters. */
export const UploadId = z
  .string()
  .regex(/^upl_[A-Za-z0-9_-]{20,64}$/)
  .meta({ description: "tus upload id (the last segment of the upload URL)", example: "upl_Q2xp9Zk1mW0xY7bN2cD4eF6g" });
export type UploadId = z.infer<typeof UploadId>;

/** The tus protocol version this server speaks (tus 1.0). */
export const TUS_VERSION = "1.0.0";
/** tus extensions served at /v1/uploads. */
export const TUS_EXTENSIONS = ["creation", "termination", "checksum", "expiration"] as const;
/** Upload-Checksum algorithms (tus names); each is a Web Crypto / DigestStream digest. */
export const TUS_CHECKSUM_ALGORITHMS = { sha1: "SHA-1", md5: "MD5", sha256: "SHA-256" } as const;

/** What GET /v1/uploads/{id} answers (HEAD carries the same facts as tus headers). */
export const UploadRecord = z
  .object({
    id: UploadId,
    upload_url: z.string().url(),
    upload_length: z.number().int().positive(),
    upload_offset: z.number().int().nonnegative(),
    complete: z.boolean(),
    filename: z.string(),
    kind: z.string().nullable().meta({ description: "jpeg, png, heic, mp4 or mov once the first bytes arrived (judged by content); null before" }),
    expires_at: z.string().meta({ description: "ISO 8601 UTC; an upload not used in a reconstruction by then is deleted" }),
  })
  .meta({ id: "UploadRecord" });
export type UploadRecord = z.infer<typeof UploadRecord>;

/** `POST /v1/reconstruction` with `Content-Type: application/json`. */
export const CreateFromUploads = z
  .object({
    uploads: z.array(UploadId).min(1).meta({ description: "Ids of finished tus uploads of the caller, in input order" }),
    quality: Quality.optional(),
    gcp: z
      .string()
      .min(1)
      .max(1024 * 1024)
      .optional()
      .meta({ description: "Ground control points as the text of an OpenDroneMap gcp_list.txt (docs/API.md \"Control points\"); not with control_points" }),
    checkpoints: z.array(z.string().min(1).max(255)).max(10_000).optional().meta({ description: "With gcp: names of the file's points that are checkpoints (role check)" }),
    control_points: ControlPointsInput.optional(),
    output_crs: z.string().min(1).max(64).optional().meta({ description: "EPSG:<code> of a projected coordinate system in metres for the georeferenced outputs", example: "EPSG:32632" }),
  })
  .strict()
  .meta({ id: "CreateFromUploads" });
export type CreateFromUploads = z.infer<typeof CreateFromUploads>;
