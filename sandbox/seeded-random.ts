// A small seeded random source (mulberry32) for the stand-ins' probabilistic faults: the same
// seed draws the same sequence, so a chaos run that went wrong can be replayed with its seed.

export type Random = () => number;

/** Numbers in [0, 1), the same sequence for the same seed. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A seed of its own for each part of a run, derived from the run's seed and the part's name. */
export function deriveSeed(seed: number, name: string): number {
  let hash = seed >>> 0;
  for (const char of name) hash = Math.imul(hash ^ char.charCodeAt(0), 0x9e3779b1) >>> 0;
  return hash;
}

/** Picks a key by weight (weights need not sum to 1); undefined when every weight is 0. */
export function pickWeighted<K extends string>(random: Random, weights: Partial<Record<K, number>>): K | undefined {
  const entries = Object.entries(weights).filter((entry): entry is [K, number] => (entry[1] as number) > 0);
  const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
  if (total <= 0) return undefined;
  let draw = random() * total;
  for (const [key, weight] of entries) {
    draw -= weight;
    if (draw < 0) return key;
  }
  return entries[entries.length - 1]![0];
}
