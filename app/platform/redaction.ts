// The one redactor: the logger and the click-service client both remove secrets through it.

const REDACTED = "[redacted]";

/**
 * Removes every spelling of the secrets a server, a library or a log line could carry: raw,
 * JSON-escaped (as inside a serialised log line or error body) and percent-encoded (as in a URL).
 */
export function redactSecrets(text: string, secrets: Iterable<string>): string {
  let out = text;
  for (const secret of secrets) {
    if (!secret) continue;
    const spellings = new Set([secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)]);
    for (const spelling of spellings) out = out.split(spelling).join(REDACTED);
  }
  return out;
}
