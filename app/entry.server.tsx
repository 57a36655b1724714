import { PassThrough } from "node:stream";
import { createReadableStreamFromReadable, type EntryContext } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { isbot } from "isbot";
import { renderToPipeableStream } from "react-dom/server";
import { addDocumentResponseHeaders } from "./shopify.server";

export const streamTimeout = 5000;

// Reached by the production server through the build (server.mjs), which answers webhook intake
// before Remix, starts the instance on its main thread (the migrations checked, the database
// monitored, the metrics endpoint, the worker's thread) and the worker on that thread. Nothing
// starts when this module is imported.
export { intakeLanes } from "./verification/intake-lanes.server";
export { startBackgroundWork } from "./background.server";
export { beginShutdown, endInstance, startInstance } from "./instance/start.server";
export { logRequest } from "./platform/access-log.server";
export { runInRequestLocale } from "./i18n/translators.server";
export { logger } from "./platform/logger.server";
export { countWebhookAnswer } from "./webhooks/remix-answers.server";

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
) {
  addDocumentResponseHeaders(request, responseHeaders);
  const userAgent = request.headers.get("user-agent");
  const callbackName = isbot(userAgent ?? "") ? "onAllReady" : "onShellReady";

  return new Promise((resolve, reject) => {
    const { pipe, abort } = renderToPipeableStream(<RemixServer context={remixContext} url={request.url} />, {
      [callbackName]: () => {
        const body = new PassThrough();
        const stream = createReadableStreamFromReadable(body);
        responseHeaders.set("Content-Type", "text/html");
        resolve(new Response(stream, { headers: responseHeaders, status: responseStatusCode }));
        pipe(body);
      },
      onShellError(error) {
        reject(error);
      },
      onError(error) {
        responseStatusCode = 500;
        console.error(error);
      },
    });
    setTimeout(abort, streamTimeout + 1000);
  });
}
