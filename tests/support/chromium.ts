// The launcher lives with the sandbox so the demo can use it too (sandbox code never imports
// from tests/); browser tests keep importing it from here.
export * from "../../sandbox/storefront/chromium";
