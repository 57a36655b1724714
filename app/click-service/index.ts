// Public surface of the click-service client; everything else in this folder is internal.
export { createClickServiceClient } from "./client";
export type { CallOptions, ClickServiceClient, ClickServiceClientOptions } from "./client";
export type { ClickGeo, ClickRecord, ClickStatus, VerificationResult } from "./contract";
export { classifyAddress, destinationProblem, setDefaultDestinationPolicy, STRICT_DESTINATIONS } from "./destination";
export type { DestinationPolicy } from "./destination";
export { redactSecrets } from "./errors";
export type { ClickServiceError, ClickServiceResult, ContractError, RetryableReason } from "./errors";
export { closeClickServicePools, DEFAULT_TIMEOUTS, exchange, poolFor } from "./http";
export type { TimeoutOptions, WireOutcome } from "./http";
export type { VerifyClickInput } from "./request-body";
export { DEFAULT_RETRY } from "./retry";
export type { RetryOptions } from "./retry";
