import { parseAst } from "vite";
import type { Messages } from "./translator";

// Which of a locale file's messages the browser needs: those its code can look up. A loader's,
// an action's, the CSV's, the worker's or an email's text is looked up on the server and reaches
// the page as data, so the browser's language chunk leaves it out (vite.config.ts's
// clientMessagesPlugin, at build time). The server keeps every message.
//
// A key's name reaches t() as a string in the code: whole ("dashboard.title"), as the head of a
// template (`outcome.${key}`, which keeps every "outcome." key), or as the parent of the keys
// used (worded("outcome", value); a plural object "orders.count"). Any such string anywhere in
// the browser's code keeps the keys it names, whether or not it ends up in a t() call: a string
// that is not a key costs nothing but what it keeps.

/** Every string literal, and every template literal's text before its first `${`, in JavaScript. */
export function stringsIn(code: string): Set<string> {
  return stringsOf(parseAst(code));
}

/** The same, of a parsed module (Rollup's ESTree, as a build plugin is handed it). */
export function stringsOf(ast: unknown): Set<string> {
  const strings = new Set<string>();
  const pending: unknown[] = [ast];
  while (pending.length > 0) {
    const node = pending.pop();
    if (Array.isArray(node)) pending.push(...(node as unknown[]));
    else if (node && typeof node === "object") {
      const { type, value, quasis } = node as {
        type?: string;
        value?: unknown;
        quasis?: { value: { cooked?: string } }[];
      };
      if (type === "Literal" && typeof value === "string" && value) strings.add(value);
      const head = type === "TemplateLiteral" ? quasis?.[0]?.value.cooked : undefined;
      if (head) strings.add(head);
      for (const child of Object.values(node)) if (child && typeof child === "object") pending.push(child);
    }
  }
  return strings;
}

/** The messages whose key one of `strings` names, in the catalogue's own shape. */
export function clientMessages(messages: Messages, strings: ReadonlySet<string>): Messages {
  const heads = [...strings].filter((text) => text.endsWith("."));
  // Walked from the top: a key named keeps everything under it.
  const named = (key: string) => strings.has(key) || heads.some((head) => key.startsWith(head));
  const pick = (tree: Messages, prefix: string): Messages | undefined => {
    const kept: Messages = {};
    for (const [name, value] of Object.entries(tree)) {
      const key = prefix ? `${prefix}.${name}` : name;
      if (named(key)) kept[name] = value;
      else if (typeof value !== "string") {
        const inner = pick(value, key);
        if (inner) kept[name] = inner;
      }
    }
    return Object.keys(kept).length > 0 ? kept : undefined;
  };
  return pick(messages, "") ?? {};
}
