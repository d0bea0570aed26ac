/** Cosine similarity (vectors need not be unit length; a zero vector is similar to nothing). */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length)
    throw new Error(`vector dimensions differ (${a.length} vs ${b.length}): the memory store was built with another embedder`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
