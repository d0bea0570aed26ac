/** F1 over token multisets (SQuAD-style): the core both LoCoMo's and MemoryAgentBench's official F1 share. */
export function multisetF1(pred: readonly string[], gold: readonly string[]): number {
  const counts = new Map<string, number>();
  for (const t of gold) counts.set(t, (counts.get(t) ?? 0) + 1);
  let same = 0;
  for (const t of pred) {
    const c = counts.get(t) ?? 0;
    if (c > 0) {
      same++;
      counts.set(t, c - 1);
    }
  }
  if (same === 0) return 0;
  const precision = same / pred.length;
  const recall = same / gold.length;
  return (2 * precision * recall) / (precision + recall);
}
