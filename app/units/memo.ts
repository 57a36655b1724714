// Values that are costly to make and never change for their key (an Intl formatter, a
// language's message), made once per key. Keys may come from requests or recorded data, so the
// memory is capped: past the cap it starts again, which costs time, never a wrong answer.

/** A memory of up to `cap` keys: `memo(key, make)` answers what `make` gave for that key first. */
export function memoCache<T>(cap = 500): (key: string, make: () => T) => T {
  const made = new Map<string, T>();
  return (key, make) => {
    if (made.has(key)) return made.get(key) as T;
    if (made.size >= cap) made.clear();
    const value = make();
    made.set(key, value);
    return value;
  };
}
