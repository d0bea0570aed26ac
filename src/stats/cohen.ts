/** Cohen's kappa for two raters' binary labels of the same items (judge vs judge, judge vs human labels). */

export interface Agreement {
  n: number;
  /** Share of items both label alike. */
  agreement: number | null;
  /**
   * (p_o - p_e) / (1 - p_e); null (undefined) when n = 0 or when a rater gives one label to every
   * item: then p_o = p_e whatever the other rater does, so the formula returns 0 (or 0/0) and says
   * nothing about agreement. `undefined_because` says which.
   */
  kappa: number | null;
  /** Why kappa is undefined; null when it is defined. */
  undefined_because:
    'no items' | 'a gives one label to every item' | 'b gives one label to every item' | 'both give one label to every item' | null;
  /** Items labelled 1 by a and 0 by b, and the reverse. */
  a_only: number;
  b_only: number;
}

export function cohenKappa(a: boolean[], b: boolean[]): Agreement {
  if (a.length !== b.length) throw new RangeError(`cohenKappa: ${a.length} vs ${b.length} labels`);
  const n = a.length;
  let both = 0;
  let neither = 0;
  let aOnly = 0;
  let bOnly = 0;
  for (let i = 0; i < n; i++) {
    if (a[i] && b[i]) both++;
    else if (!a[i] && !b[i]) neither++;
    else if (a[i]) aOnly++;
    else bOnly++;
  }
  if (n === 0) return { n, agreement: null, kappa: null, undefined_because: 'no items', a_only: 0, b_only: 0 };
  const po = (both + neither) / n;
  const pa = (both + aOnly) / n;
  const pb = (both + bOnly) / n;
  const aConstant = pa === 0 || pa === 1;
  const bConstant = pb === 0 || pb === 1;
  const undefined_because =
    aConstant && bConstant
      ? 'both give one label to every item'
      : aConstant
        ? 'a gives one label to every item'
        : bConstant
          ? 'b gives one label to every item'
          : null;
  const pe = pa * pb + (1 - pa) * (1 - pb);
  return { n, agreement: po, kappa: undefined_because ? null : (po - pe) / (1 - pe), undefined_because, a_only: aOnly, b_only: bOnly };
}
