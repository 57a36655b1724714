import en from "./en.json";

// Every merchant-facing string lives in en.json; t() looks one up by its dotted key and fills
// {placeholders}. A missing key shows the key itself, so a gap is visible, never blank. A string
// that depends on {count} is an object of plural forms ("one", "other"), chosen by the
// language's own rules.

type Messages = { [key: string]: string | Messages };

const plurals = new Intl.PluralRules("en");

function lookup(messages: Messages, key: string, count?: number): string | undefined {
  let node: string | Messages | undefined = messages;
  for (const part of key.split(".")) {
    if (typeof node !== "object" || node === null) return undefined;
    node = node[part];
  }
  if (typeof node === "object" && node !== null) {
    const form = count === undefined ? "other" : plurals.select(count);
    node = node[form] ?? node.other;
  }
  return typeof node === "string" ? node : undefined;
}

export function t(key: string, vars: Record<string, string | number> = {}): string {
  const template = lookup(en as Messages, key, typeof vars.count === "number" ? vars.count : undefined) ?? key;
  return template.replace(/\{(\w+)\}/g, (match, name: string) => (name in vars ? String(vars[name]) : match));
}

/** True when the key exists (for outcome names and the like that come from data). */
export function hasMessage(key: string): boolean {
  return lookup(en as Messages, key) !== undefined;
}

/** The message `prefix.value` when en.json has it, else the raw value: a step or result added later still shows. */
export function worded(prefix: string, value: string): string {
  return hasMessage(`${prefix}.${value}`) ? t(`${prefix}.${value}`) : value;
}
