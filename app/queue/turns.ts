// Turns on the event loop for the worker's jobs: one job's stretch of work per loop iteration.
//
// On SQLite a statement runs synchronously, so a job's reads and writes between two outside
// calls run as one uninterrupted stretch, and jobs that become ready together (a claim, answers
// arriving at once) run back to back while webhook deliveries wait in the socket queue behind
// them. A job that takes a turn before each stretch waits for the next iteration of the loop,
// where Node reads the sockets first; turns are handed out one per iteration, in order. With
// nothing else to do an iteration costs microseconds, so the worker loses little; with
// deliveries arriving, each waits behind one stretch, not behind all of them.
//
// One turn per iteration still lets the worker fill the loop when its jobs are ready back to
// back; a hold (intake-first.server.ts) keeps the next turn back for a moment while intake needs
// the loop, so the loop has time between the worker's stretches with nothing of the worker's in it.

const waiting: (() => void)[] = [];
let handing = false;
let holdFor: () => number = () => 0;

/**
 * Sets what decides, before each turn, how many milliseconds to keep it back (0: hand it out
 * now); one for the process, as the loop is. Returns a function that removes it.
 */
export function holdTurns(decide: () => number): () => void {
  holdFor = decide;
  return () => {
    if (holdFor === decide) holdFor = () => 0;
  };
}

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
  const hold = holdFor();
  if (hold > 0) {
    setTimeout(handOut, hold);
    return;
  }
  const next = waiting.shift();
  // Set from inside the check phase, this runs on the loop's next iteration, after its I/O.
  if (waiting.length > 0) setImmediate(handOut);
  else handing = false;
  next?.();
}
