// Moved to sandbox/storefront/server.ts so the demo can run it too; kept for existing imports.
export * from "../../sandbox/storefront/server";
