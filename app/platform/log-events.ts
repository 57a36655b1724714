// Every event the app logs, by its stable name: the `event` field of each JSON line. An
// operator filters and alerts on these names, so a name once shipped is not renamed; the
// message beside it is for reading and may be reworded. docs/operations.md lists them all
// (tests/platform/log-events.test.ts keeps the two in step).

export const LOG_EVENTS = {
  // The server and the instance
  "server.listening": "the server accepts requests on its port",
  "request.refused": "a request whose target or Host no layer can read was answered 400",
  "http.request": "one request answered by Remix (not the intake lanes): method, path, status, length, time",
  "instance.ready": "the database answers and its migrations are current: the instance takes traffic",
  "instance.not_ready": "the instance stopped taking traffic: the database stopped answering",
  "instance.migrations_behind": "the database lacks migrations this build needs: the instance refuses to start",
  "instance.migrations_ahead": "the database has migrations this build does not know (a newer release migrated)",
  "instance.migrations_unknown": "the database could not be asked about its migrations at start; asked again",
  "instance.shutting_down": "a stop signal arrived: readiness fails, requests in flight finish, then the process ends",
  "instance.stop_failed": "the background work or the database did not stop cleanly after the last request",
  "metrics.listening": "the metrics endpoint accepts scrapes on METRICS_HOST:METRICS_PORT",
  "metrics.scrape_failed": "a scrape could not be answered whole",
  // The database
  "database.unavailable": "the database stopped answering this instance",
  "database.available": "the database answers again, after being unavailable for the given seconds",
  "database.checkpoints_on_loop": "SQLite checkpoints fell back to the event loop",
  "database.write_lock_stuck": "SQLite writers waited 30 s for a turn: the process stops for the host to restart it",
  // Webhooks
  "webhook.not_recorded": "a delivery could not be stored and was answered 503: Shopify delivers it again",
  "webhook.received": "a delivery answered by the bench's template-style reference route (built into the bench only)",
  "webhook.group_not_recorded": "a group of deliveries could not be stored (the database refused the transaction)",
  // The worker and its queue
  "worker.started": "the background worker runs (on its own thread or beside intake)",
  "worker.thread_failed": "the worker's thread threw",
  "worker.thread_exited": "the worker's thread ended unasked: the process stops for the host to restart it",
  "job.failed": "a job failed unexpectedly and goes back in the queue with backoff",
  "job.release_failed": "a failed job could not be put back (its lease runs out instead)",
  "job.lease_lost": "another worker took a job over (this one paused or lost the database)",
  "job.lease_renewal_failed": "a running job's lease could not be renewed",
  "queue.tick_failed": "the job runner could not claim jobs",
  "queue.next_due_failed": "the job runner could not read when the next job falls due",
  // Sweeps
  "reconciliation.bring_forward_failed": "the reconciliation sweeps could not be brought forward at start",
  "commissions.approval_failed": "the commission approval sweep failed",
  "retention.landing_failed": "the landing record's retention sweep failed",
  "retention.pixel_failed": "the pixel reports' retention sweep failed",
  "rollup.fold_failed":
    "folding the admin's summaries (orders by hour, commissions by creator) failed; their sums stay right, their reads grow until a fold succeeds",
  "retention.lifecycle_failed": "the lifecycle webhooks' retention sweep failed",
  // Shops
  "shopify.library": "a message of Shopify's app library",
  "shopify.metafield_definition_failed": "the hijack evidence metafield could not be defined at install",
  "shop.timezone_unread": "the shop's time zone could not be read",
  "i18n.admin_locale_unsaved": "the language the shop's admin was opened in could not be kept",
  "pixel.connected": "the web pixel was created or updated for a shop",
  "pixel.not_connected": "the web pixel could not be connected for a shop",
  "settings.storefront_config_not_published": "saved settings could not be published to the storefront's metafield",
  "settings.pixel_settings_not_saved": "saved settings could not be given to the web pixel",
  "sessions.table_unreadable": "the Session table could not be read at start",
  "sessions.unopenable": "a stored Shopify session could not be opened; it counts as absent",
  "lifecycle.uninstall_duplicate": "an app/uninstalled body already handled, under another event id",
  "lifecycle.uninstall_ask_later": "an app/uninstalled could not be judged now (Shopify unreachable): answered 503",
  "lifecycle.uninstall_replay": "an app/uninstalled from before the last install: nothing changed",
  "lifecycle.uninstall_before_install": "an app/uninstalled triggered before the last install: nothing to do",
  "lifecycle.scopes_update_superseded": "an app/scopes_update older than one already applied: nothing to do",
  "lifecycle.session_unreadable": "the shop's offline session could not be read to ask Shopify",
  "privacy.shop_redact_premature": "a shop/redact for a shop installed or uninstalled under a day ago: nothing deleted",
  "codes.switched_off": "a leaked discount code was switched off",
  "payouts.run_parked": "a payout run waits for the merchant: the provider's answer cannot settle it",
  "payouts.checked": "the merchant looked up a payout that waited for them and said it was paid, or not",
  "payouts.webhook_refused": "a PayPal webhook was refused: its signature did not verify, or it could not be checked",
  "payouts.schedule_failed":
    "a scheduled payout run was refused (a balance changed, PayPal's credentials unreadable): the period is written as failed",
  "payouts.schedule_gave_up":
    "a payout schedule's job stopped after repeated failures: saving the schedule starts it again",
} as const satisfies Record<string, string>;

export type LogEvent = keyof typeof LOG_EVENTS;
