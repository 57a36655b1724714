import { EventEmitter } from "node:events";

// In-process signal from intake to worker so a new order starts at once; the worker also
// polls, so a lost signal (or another instance's delivery) only delays, never loses, work.
const signal = new EventEmitter();
signal.setMaxListeners(0);

export function wakeWorker(): void {
  signal.emit("wake");
}

export function onWake(listener: () => void): () => void {
  signal.on("wake", listener);
  return () => signal.off("wake", listener);
}
