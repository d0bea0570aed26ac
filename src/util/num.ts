/** Rounds to `digits` decimal places (figures in summaries and logs; never used for scoring). */
export function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
