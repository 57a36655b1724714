import { BroadcastChannel } from "node:worker_threads";

// A signal from intake to the worker so a new order starts at once, whichever thread of the
// process the worker runs on (the production server gives it one of its own, decision 019);
// the worker also polls, so a lost signal (or another instance's delivery) only delays, never
// loses, work. A channel delivers to every other channel of its name, in this thread too.
const CHANNEL = "tag-guard:worker-wake";

let sender: BroadcastChannel | undefined;

export function wakeWorker(): void {
  if (!sender) {
    sender = new BroadcastChannel(CHANNEL);
    sender.unref();
  }
  sender.postMessage(null);
}

export function onWake(listener: () => void): () => void {
  const receiver = new BroadcastChannel(CHANNEL);
  receiver.onmessage = () => listener();
  receiver.unref();
  return () => receiver.close();
}
