/**
 * Kendall's tau-b, as scipy.stats.kendalltau(x, y, variant="b") computes it (the statistic only):
 * tau_b = (C - D) / sqrt((n0 - n1) * (n0 - n2)), with n0 = n(n-1)/2 pairs, n1 / n2 the pairs tied
 * in x / in y (joint ties count in both). NaN when fewer than 2 items or either list is constant,
 * as scipy returns. O(n^2): BEAM's lists hold tens of items.
 */
export function kendallTauB(x: number[], y: number[]): number {
  if (x.length !== y.length) throw new Error(`kendallTauB: lists differ in length (${x.length} vs ${y.length})`);
  const n = x.length;
  if (n < 2) return Number.NaN;
  let concordant = 0;
  let discordant = 0;
  let tiedX = 0;
  let tiedY = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const dx = Math.sign(x[i]! - x[j]!);
      const dy = Math.sign(y[i]! - y[j]!);
      if (dx === 0) tiedX++;
      if (dy === 0) tiedY++;
      if (dx !== 0 && dy !== 0) {
        if (dx === dy) concordant++;
        else discordant++;
      }
    }
  }
  const pairs = (n * (n - 1)) / 2;
  const denom = Math.sqrt((pairs - tiedX) * (pairs - tiedY));
  return denom === 0 ? Number.NaN : (concordant - discordant) / denom;
}
