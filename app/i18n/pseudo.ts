// The pseudo-locale's strings: each English string accented and bracketed, its {placeholders}
// kept, so a page in it is still readable and any text that did not come through t() (or
// Polaris's translations) stands out unbracketed. The brackets are what the browser test looks for.

export const PSEUDO_OPEN = "⟦";
export const PSEUDO_CLOSE = "⟧";

const ACCENTED: Record<string, string> = {
  a: "á",
  e: "é",
  i: "í",
  o: "ó",
  u: "ú",
  y: "ý",
  c: "ç",
  n: "ñ",
  A: "Á",
  E: "É",
  I: "Í",
  O: "Ó",
  U: "Ú",
  Y: "Ý",
  C: "Ç",
  N: "Ñ",
};

function pseudoString(text: string): string {
  // Split on placeholders so that {name} and {{name}} stay as the interpolation expects them.
  const accented = text
    .split(/(\{\{?\w+\}?\})/)
    .map((part, index) => (index % 2 === 1 ? part : part.replace(/[a-zA-Z]/g, (letter) => ACCENTED[letter] ?? letter)))
    .join("");
  return `${PSEUDO_OPEN}${accented}${PSEUDO_CLOSE}`;
}

/** A catalogue with every string pseudo-translated, its shape (plural objects too) unchanged. */
export function pseudoize<T>(messages: T): T {
  if (typeof messages === "string") return pseudoString(messages) as T;
  if (Array.isArray(messages)) return messages.map((item: unknown) => pseudoize(item)) as T;
  if (typeof messages === "object" && messages !== null)
    return Object.fromEntries(Object.entries(messages).map(([key, value]) => [key, pseudoize(value)])) as T;
  return messages;
}
