// Turns on the event loop for the worker's jobs: one job's stretch of work per loop iteration.
//
// On SQLite a statement runs synchronously, so a job's reads and writes between two outside
// calls run as one uninterrupted stretch, and jobs that become ready together (a claim, answers
// arriving at once) run back to back while webhook deliveries wait in the socket queue behind
// them. A job that takes a turn before each stretch waits for the next iteration of the loop,
// where Node reads the sockets first; turns are handed out one per iteration, in order. With
// nothing else to do an iteration costs microseconds, so the worker loses little; with
// deliveries arriving, each waits behind one stretch, not behind all of them.

const waiting: (() => void)[] = [];
let handing = false;

/** Resolves on a later iteration of the event loop, after the turns asked for before it. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!handing) {
      handing = true;
      setImmediate(handOut);
    }
  });
}

function handOut(): void {
  const next = waiting.shift();
  // Set from inside the check phase, this runs on the loop's next iteration, after its I/O.
  if (waiting.length > 0) setImmediate(handOut);
  else handing = false;
  next?.();
}
