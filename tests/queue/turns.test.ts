import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { holdTurns, nextTurn } from "../../app/queue/turns";

// The worker's turns on the event loop: handed out one per iteration, in the order asked, so a
// socket's data is read between two jobs' stretches of work rather than after all of them.

/** Counts the loop's iterations (one tick per check phase) until stopped. */
function iterationCounter() {
  let iteration = 0;
  let running = true;
  const tick = () => {
    iteration += 1;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    now: () => iteration,
    stop: () => {
      running = false;
    },
  };
}

describe("nextTurn", () => {
  it("hands out turns one per iteration of the loop, in the order they were asked for", async () => {
    const counter = iterationCounter();
    const seen: [number, number][] = [];
    await Promise.all([0, 1, 2, 3, 4].map((n) => nextTurn().then(() => seen.push([n, counter.now()]))));
    counter.stop();
    expect(seen.map(([n]) => n)).toEqual([0, 1, 2, 3, 4]);
    const iterations = seen.map(([, at]) => at);
    for (let i = 1; i < iterations.length; i++) expect(iterations[i]).toBeGreaterThan(iterations[i - 1]!);
  });

  it("lets a request that arrives while turns are waiting be answered before the last of them", async () => {
    const server = createServer((_req, res) => res.end("ok"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const events: string[] = [];
      // A round trip on a socket needs a few iterations of the loop; jobs that take turns leave
      // those iterations to it, as jobs running back to back would not.
      const answered = new Promise<void>((resolve, reject) => {
        request({ host: "127.0.0.1", port, path: "/" }, (res) => {
          res.resume();
          res.on("end", () => {
            events.push("answer");
            resolve();
          });
        })
          .on("error", reject)
          .end();
      });
      const jobs = Array.from({ length: 200 }, (_, n) =>
        nextTurn().then(() => {
          events.push(`job ${n}`);
        }),
      );
      await Promise.all([answered, ...jobs]);
      expect(events.indexOf("answer")).toBeLessThan(events.indexOf("job 199"));
      expect(events.indexOf("answer")).toBeGreaterThan(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("keeps turns back while the hold says so, then hands them out in the order asked", async () => {
    let held = true;
    let consulted = 0;
    const release = holdTurns(() => {
      consulted += 1;
      return held ? 1 : 0;
    });
    try {
      const seen: number[] = [];
      const turns = [0, 1, 2].map((n) => nextTurn().then(() => seen.push(n)));
      await expect.poll(() => consulted).toBeGreaterThan(3);
      expect(seen).toEqual([]);
      held = false;
      await Promise.all(turns);
      expect(seen).toEqual([0, 1, 2]);
    } finally {
      release();
    }
  });

  it("no longer asks a hold once it is released", async () => {
    let consulted = 0;
    const release = holdTurns(() => {
      consulted += 1;
      return 1;
    });
    release();
    await nextTurn();
    expect(consulted).toBe(0);
  });
});
