/**
 * App Bridge as the page finds it. Older App Bridge versions (and admin surfaces without a save
 * bar or toasts) lack these, so every use is optional and the page keeps its own Save button,
 * banners and the browser's own leave prompt.
 */
export function appBridge(): { saveBar?: Partial<typeof shopify.saveBar>; toast?: Partial<typeof shopify.toast> } {
  if (typeof window === "undefined") return {};
  return (window as { shopify?: Partial<typeof shopify> }).shopify ?? {};
}
