import { syntheticCapture, type CaptureCart } from "./run-scenario";

// Where cart attributes come from in the demo. The browser-driven storefront step plugs in
// here; without it, the attributes are written as the storefront extension writes them.
export async function chooseCapture(log: (line: string) => void): Promise<{ capture: CaptureCart; close(): Promise<void> }> {
  log("Storefront step: cart attributes written as the click-capture extension writes them");
  return { capture: syntheticCapture, close: async () => {} };
}
