import en from "./en.json";

// Every merchant-facing string lives in en.json; t() looks one up by its dotted key and fills
// {placeholders}. A missing key shows the key itself, so a gap is visible, never blank.

type Messages = { [key: string]: string | Messages };

function lookup(messages: Messages, key: string): string | undefined {
  let node: string | Messages | undefined = messages;
  for (const part of key.split(".")) {
    if (typeof node !== "object" || node === null) return undefined;
    node = node[part];
  }
  return typeof node === "string" ? node : undefined;
}

export function t(key: string, vars: Record<string, string | number> = {}): string {
  const template = lookup(en as Messages, key) ?? key;
  return template.replace(/\{(\w+)\}/g, (match, name: string) => (name in vars ? String(vars[name]) : match));
}

/** True when the key exists (for outcome names and the like that come from data). */
export function hasMessage(key: string): boolean {
  return lookup(en as Messages, key) !== undefined;
}
