import { readFileSync } from "node:fs";
import { Pool } from "undici";
import type { OrderDelivery } from "./deliveries";

// Sends deliveries over a fixed number of keep-alive connections and notes when each was
// answered, so a benchmark can measure from delivery to outcome.

export async function deliverAll(
  appUrl: string,
  deliveries: OrderDelivery[],
  connections: number,
): Promise<{ deliveredAt: Map<string, number>; startedAt: number }> {
  const pool = new Pool(appUrl, { connections, pipelining: 1 });
  const deliveredAt = new Map<string, number>();
  const startedAt = Date.now();
  let next = 0;
  const lane = async () => {
    while (next < deliveries.length) {
      const delivery = deliveries[next++]!;
      const response = await pool.request({
        method: "POST",
        path: "/webhooks/orders/create",
        headers: delivery.headers,
        body: delivery.body,
      });
      await response.body.dump();
      if (response.statusCode !== 200) throw new Error(`a delivery was answered ${response.statusCode}`);
      deliveredAt.set(delivery.orderId, Date.now());
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, lane));
  } finally {
    await pool.close();
  }
  return { deliveredAt, startedAt };
}

/** Samples a process's resident memory (Linux /proc) until stopped; returns the samples in MB. */
/**
 * CPU time the process has spent so far (user and system, every thread), in ms, from
 * /proc/PID/stat; null where there is no /proc. Ticks are the kernel's USER_HZ, 100 on Linux.
 */
export function cpuTimeMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces) in parentheses; utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

export function sampleRss(pid: number, everyMs = 500): { stop(): number[] } {
  const samples: number[] = [];
  const read = () => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
      if (kb) samples.push(Math.round(kb / 1024));
    } catch {
      // the process is gone: nothing to sample
    }
  };
  read();
  const timer = setInterval(read, everyMs);
  return {
    stop() {
      clearInterval(timer);
      read();
      return samples;
    },
  };
}
