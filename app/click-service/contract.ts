// Run-time shape of the Click Verification Service responses (shared/spec, sections 2.1 and 2.2).
// The service is another party's system: nothing it sends is trusted until it passes these.
import { z } from "zod";

export const CLICK_STATUSES = ["pending", "verified", "expired"] as const;

// The spec names the three geo fields but does not promise each is present, so all are optional.
export const geoSchema = z.object({
  country: z.string().optional(),
  city: z.string().optional(),
  region: z.string().optional(),
});

const isoTimestamp = z
  .string()
  .refine((value) => !Number.isNaN(Date.parse(value)), { message: "must be an ISO 8601 timestamp" });

export const clickRecordSchema = z.object({
  clickId: z.string(),
  expectedTag: z.string(),
  creatorId: z.string(),
  timestamp: isoTimestamp,
  status: z.enum(CLICK_STATUSES),
  referrer: z.string().nullable().optional(),
  geo: geoSchema.nullable().optional(),
});

export const verificationResultSchema = z.object({
  clickId: z.string(),
  expectedTag: z.string(),
  arrivedTag: z.string(),
  isHijacked: z.boolean(),
  verdict: z.string(),
  creatorId: z.string(),
  recorded: z.boolean(),
});

export type ClickStatus = (typeof CLICK_STATUSES)[number];
export type ClickGeo = z.infer<typeof geoSchema>;
export type ClickRecord = z.infer<typeof clickRecordSchema>;
export type VerificationResult = z.infer<typeof verificationResultSchema>;

export const LOOKUP_CLICK_PATH = "/api/v1/merchant/lookup-click";
export const VERIFY_CLICK_PATH = "/api/v1/merchant/verify-click";

/** Exact error messages the spec fixes (section 5 and 7). */
export const CONTRACT_ERRORS = {
  clickIdRequired: "click_id is required",
  apiKeyRequired: "API key required",
  invalidApiKey: "Invalid API key",
  clickNotFound: "Click not found or expired",
} as const;

/** A click is looked up only within this long after it happened (section 8). */
export const CLICK_LIFETIME_MS = 60 * 60 * 1000;
