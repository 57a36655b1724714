// The two contract endpoints (shared/spec section 4), with the contract's exact messages.
import { CONTRACT_ERRORS, type VerificationResult } from "../../app/click-service/contract";
import { field, readJsonObject, sendError, sendJson } from "./http-io";
import type { RouteContext } from "./router";
import { toClickRecord, type VerificationRecord } from "./state";

/** Answers 401 itself and returns false when the request may not go on. */
function authorised({ req, res, state }: RouteContext): boolean {
  const key = req.headers["x-api-key"];
  // An empty header carries no key at all, so it gets the same answer as a missing one.
  if (key === undefined || key === "") {
    sendError(res, 401, CONTRACT_ERRORS.apiKeyRequired);
    return false;
  }
  if (typeof key !== "string" || !state.activeKeys.has(key)) {
    sendError(res, 401, CONTRACT_ERRORS.invalidApiKey);
    return false;
  }
  return true;
}

export function lookupClick(ctx: RouteContext): void {
  if (!authorised(ctx)) return;
  const values = ctx.query.getAll("click_id");
  if (values.length > 1) return sendError(ctx.res, 400, "click_id must be a single value");
  const clickId = values[0];
  if (clickId === undefined || clickId === "") return sendError(ctx.res, 400, CONTRACT_ERRORS.clickIdRequired);
  const click = ctx.state.liveClick(clickId);
  if (!click) return sendError(ctx.res, 404, CONTRACT_ERRORS.clickNotFound);
  sendJson(ctx.res, 200, toClickRecord(click));
}

export async function verifyClick(ctx: RouteContext): Promise<void> {
  // Auth first: an unauthenticated caller learns nothing, not even whether its body parses.
  if (!authorised(ctx)) return;
  const { res, state } = ctx;
  const raw = await readJsonObject(ctx.req, res);
  if (!raw) return;
  const { body, rawBody } = raw;
  const clickId = field(body, "click_id");
  if (typeof clickId === "string" && clickId !== "" && ctx.record) state.noteClick(ctx.record, clickId);
  const arrivedTag = field(body, "arrived_tag");
  const conversion = field(body, "conversion");
  const orderId = field(body, "order_id");
  const orderValue = field(body, "order_value");
  if (clickId === undefined || clickId === "") return sendError(res, 400, CONTRACT_ERRORS.clickIdRequired);
  if (typeof clickId !== "string") return sendError(res, 400, "click_id must be a string");
  if (arrivedTag === undefined) return sendError(res, 400, "arrived_tag is required");
  if (typeof arrivedTag !== "string") return sendError(res, 400, "arrived_tag must be a string");
  if (conversion !== undefined && typeof conversion !== "boolean")
    return sendError(res, 400, "conversion must be a boolean");
  if (orderId !== undefined && typeof orderId !== "string") return sendError(res, 400, "order_id must be a string");
  if (orderValue !== undefined && (typeof orderValue !== "number" || !Number.isFinite(orderValue))) {
    return sendError(res, 400, "order_value must be a finite number");
  }

  const click = state.liveClick(clickId);
  if (!click) return sendError(res, 404, CONTRACT_ERRORS.clickNotFound);

  // Exact comparison: case, Unicode form and whitespace as sent. An empty arrived tag is a
  // stripped tag and therefore a hijack, unless the expected tag is empty too.
  const isHijacked = arrivedTag !== click.expectedTag;
  click.status = "verified";
  const entry: VerificationRecord = {
    clickId,
    arrivedTag,
    ...(conversion === undefined ? {} : { conversion: conversion as boolean }),
    ...(orderId === undefined ? {} : { orderId: orderId as string }),
    ...(orderValue === undefined ? {} : { orderValue: orderValue as number }),
    rawBody,
    isHijacked,
    receivedAt: state.clock().toISOString(),
  };
  state.record(state.verifications, entry);

  const result: VerificationResult = {
    clickId,
    expectedTag: click.expectedTag,
    arrivedTag,
    isHijacked,
    verdict: isHijacked
      ? `Hijacked: arrived tag ${JSON.stringify(arrivedTag)} does not match expected tag ${JSON.stringify(click.expectedTag)}`
      : "Tag matches the creator's link",
    creatorId: click.creatorId,
    recorded: true,
  };
  sendJson(res, 200, result);
}
