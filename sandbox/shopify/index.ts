export { startShopifyStandin } from "./server";
export { DEFAULT_API_VERSION } from "./schema";
export type {
  FaultPlan,
  RecordedRequest,
  ShopifyStandin,
  ShopifyStandinOptions,
  StandinChaosPlan,
  ValidationFailure,
} from "./server";
export { buildOrderCreatePayload } from "./order-payload";
export type { OrderDescription, OrderLineDescription, OrderWebhookPayload } from "./order-payload";
export { signWebhook, webhookHeaders } from "./webhooks";
export type { WebhookHeaderOptions } from "./webhooks";
export { signSessionToken, verifySessionToken } from "./session-token";
export { ShopifyStandinStore } from "./store";
export { TOKEN_LIFETIMES } from "./tokens";
export type { IssueOptions, TokenRecord } from "./tokens";
export { buildOrderCancelledPayload, buildRefundCreatePayload } from "./refund-payload";
export { buildOrderEditedPayload, editedOrderPayload } from "./edit-payload";
export type { RefundDescription, RefundLineDescription } from "./refund-payload";
