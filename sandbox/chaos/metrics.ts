import { scrape, total, type Sample } from "../prometheus";

// What the instances' metrics endpoints (GET /metrics on METRICS_PORT) said during the run, as
// an operator's Prometheus would have scraped them: each instance every few seconds, while it
// lives. An instance killed with kill -9 starts again with its counters at zero, so each process's
// last scrape is kept and the figures add up every process's.

export interface ScrapedMetrics {
  /** Scrape rounds made during the run. */
  scrapes: number;
  /** Webhook deliveries answered, by status (tagguard_webhook_deliveries_total): the 503s of the database restarts among them. */
  deliveries: Record<string, number>;
  /** Seconds each process found the database not answering (tagguard_database_unavailable_seconds_total), largest first. */
  databaseUnavailableSeconds: number[];
  /** Job runs by result (tagguard_jobs_total). */
  jobs: Record<string, number>;
  /** verify-click requests by outcome (tagguard_click_service_requests_total). */
  verifyClick: Record<string, number>;
  /** Tag writes by result, and Shopify's throttles. */
  tagWrites: Record<string, number>;
  throttles: number;
  /** What the reconciliation sweep found, by kind. */
  reconciled: Record<string, number>;
}

export interface MetricsScraper {
  /** A process started: its endpoint is scraped from now on. */
  watch(metricsUrl: string): void;
  /** Scrapes every process still answering; a dead one keeps its last scrape. */
  scrapeAll(): Promise<void>;
  figures(): ScrapedMetrics;
}

export function metricsScraper(): MetricsScraper {
  const last = new Map<string, Sample[]>();
  let scrapes = 0;
  const byLabel = (samples: Sample[], name: string, label: string, where: Record<string, string> = {}) => {
    const counts: Record<string, number> = {};
    for (const sample of samples)
      if (sample.name === name && Object.entries(where).every(([key, value]) => sample.labels[key] === value)) {
        const value = sample.labels[label] ?? "";
        counts[value] = Math.round(((counts[value] ?? 0) + sample.value) * 1000) / 1000;
      }
    return counts;
  };
  return {
    watch(metricsUrl) {
      last.set(metricsUrl, []);
    },
    async scrapeAll() {
      scrapes += 1;
      await Promise.all(
        [...last.keys()].map(async (url) => {
          const samples = await scrape(url).catch(() => null);
          if (samples) last.set(url, samples);
        }),
      );
    },
    figures() {
      const all = [...last.values()].flat();
      return {
        scrapes,
        deliveries: byLabel(all, "tagguard_webhook_deliveries_total", "status"),
        databaseUnavailableSeconds: [...last.values()]
          .map((samples) => Math.round(total(samples, "tagguard_database_unavailable_seconds_total") * 10) / 10)
          .sort((a, b) => b - a),
        jobs: byLabel(all, "tagguard_jobs_total", "result"),
        verifyClick: byLabel(all, "tagguard_click_service_requests_total", "outcome", { operation: "verify_click" }),
        tagWrites: byLabel(all, "tagguard_shopify_tag_writes_total", "result"),
        throttles: total(all, "tagguard_shopify_throttled_total"),
        reconciled: byLabel(all, "tagguard_reconciliation_found_total", "kind"),
      };
    },
  };
}
