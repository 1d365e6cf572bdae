/** @module Webhook records of docs/API.md "Webhooks" (Standard Webhooks) and the delivery queue's message. */
import { z } from "zod";
import { StatusRecord } from "./records.js";

export const WEBHOOK_EVENT_TYPES = ["reconstruction.processing", "reconstruction.completed", "reconstruction.failed"] as const;
export const WebhookEventType = z.enum(WEBHOOK_EVENT_TYPES);
export type WebhookEventType = z.infer<typeof WebhookEventType>;

export const WebhookId = z.string().regex(/^wh_[A-Za-z0-9_-]{20,64}$/).meta({ description: "Webhook endpoint id", example: "wh_Yq3tV9bN0cD4eF6gH1kL2mP5" });
const IsoTime = z.string().meta({ description: "ISO 8601 UTC time", example: "2026-11-22T10:00:00.000Z" });

export const CreateWebhookBody = z
  .object({
    url: z.string().max(2048).meta({ description: "Where events are POSTed. https in production; private, loopback and link-local addresses are refused there.", example: "https://example.com/hooks/photogrammetry" }),
    events: z.array(WebhookEventType).min(1).optional().meta({ description: "Event types to receive; all three when omitted." }),
  })
  .strict()
  .meta({ id: "CreateWebhookBody" });
export type CreateWebhookBody = z.infer<typeof CreateWebhookBody>;

export const WebhookEndpoint = z
  .object({
    id: WebhookId,
    url: z.string(),
    events: z.array(WebhookEventType),
    created_at: IsoTime,
    disabled: z.boolean(),
    disabled_reason: z.string().nullable().meta({ description: "Why delivery stopped (e.g. failing for 3 days, or 410 Gone); null while enabled." }),
  })
  .meta({ id: "WebhookEndpoint" });
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

export const WebhookCreated = WebhookEndpoint.extend({
  secret: z.string().regex(/^whsec_[A-Za-z0-9+/]+=*$/).meta({ description: "Signing secret (whsec_ + base64 of 32 random bytes). Shown once.", example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }),
}).meta({ id: "WebhookCreated" });
export type WebhookCreated = z.infer<typeof WebhookCreated>;

export const WebhookList = z.object({ data: z.array(WebhookEndpoint) }).meta({ id: "WebhookList" });

export const WebhookAttempt = z.object({
  attempt: z.number().int().min(1),
  at: IsoTime,
  response_status: z.number().int().nullable().meta({ description: "HTTP status the endpoint answered; null when no answer (timeout, refused)." }),
  error: z.string().nullable(),
  duration_ms: z.number().int().nonnegative(),
});
export type WebhookAttempt = z.infer<typeof WebhookAttempt>;

export const WebhookDelivery = z
  .object({
    id: z.string().meta({ description: "The `webhook-id` header: the same on every attempt of one event." }),
    event_type: WebhookEventType,
    reconstruction_id: z.string(),
    status: z.enum(["pending", "succeeded", "failed"]),
    created_at: IsoTime,
    next_attempt_at: IsoTime.nullable(),
    attempts: z.array(WebhookAttempt),
  })
  .meta({ id: "WebhookDelivery" });
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const WebhookDeliveryList = z.object({ data: z.array(WebhookDelivery) }).meta({ id: "WebhookDeliveryList" });

/** The body POSTed to an endpoint (Standard Webhooks payload: type, timestamp, data). */
export const WebhookPayload = z
  .object({ type: WebhookEventType, timestamp: IsoTime, data: StatusRecord })
  .meta({ id: "WebhookPayload" });
export type WebhookPayload = z.infer<typeof WebhookPayload>;

/** One delivery queue message: which delivery of which account to attempt. */
export const WebhookMessage = z.object({ account_id: z.string().min(1), delivery_id: z.string().regex(/^msg_[A-Za-z0-9_-]{20,64}$/) });
export type WebhookMessage = z.infer<typeof WebhookMessage>;
