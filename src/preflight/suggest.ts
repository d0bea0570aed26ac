/** "Did you mean ...?": the known name closest to a typed one, when it is close enough to be a typo. */

/** Edit distance (insertions, deletions, substitutions), case-insensitive. */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  let prev = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const row = [i];
    for (let j = 1; j <= t.length; j++) row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (s[i - 1] === t[j - 1] ? 0 : 1)));
    prev = row;
  }
  return prev[t.length]!;
}

/**
 * The closest of `known` to `name` within a typo's reach (2 edits, 3 for names of 12 characters
 * or more), ties broken by the order given; null when none is that close or `name` is itself known.
 */
export function didYouMean(name: string, known: Iterable<string>): string | null {
  const reach = name.length >= 12 ? 3 : 2;
  let best: { name: string; d: number } | null = null;
  for (const k of known) {
    if (k === name) return null;
    const d = editDistance(name, k);
    if (d <= reach && (best === null || d < best.d)) best = { name: k, d };
  }
  return best?.name ?? null;
}
