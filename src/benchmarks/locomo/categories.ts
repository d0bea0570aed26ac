/** LoCoMo's QA categories by their numeric id in the release (the names Mem0's evaluation uses). */
export const CATEGORY_NAMES: Record<number, string> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
  5: 'adversarial',
};
