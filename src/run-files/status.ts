/**
 * A run's status as every place shows it (the run's summary, `rawrag runs`, the report index,
 * `rawrag view`, `rawrag stats`, the paper map): a run whose items failed is never "complete". The
 * manifest says `incomplete` when any selected question has no item or a failed one
 * (src/pipeline/lifecycle.ts); older manifests said `complete` with failed items, so the label is
 * derived from the status and the failed count together.
 */
export interface StatusFacts {
  /** manifest.json `status` (null: none recorded). */
  status: string | null;
  /** Items that failed (manifest `questions.errors`, else summary `errors`). */
  failed: number;
}

/** `complete` only without failures; a `complete` of an older manifest with failed items is `incomplete`. */
export function effectiveStatus(f: StatusFacts): string | null {
  return f.status === 'complete' && f.failed > 0 ? 'incomplete' : f.status;
}

/** `complete`, `incomplete (39 failed)`, `interrupted (2 failed)`, or `—` when unknown. */
export function statusLabel(f: StatusFacts): string {
  const s = effectiveStatus(f) ?? '—';
  return f.failed > 0 ? `${s} (${f.failed} failed)` : s;
}

/** The facts from a manifest and (optionally) its summary. */
export function statusFacts(manifest: Record<string, unknown> | null, summary?: Record<string, unknown> | null): StatusFacts {
  const q = manifest?.questions as { errors?: unknown } | undefined;
  const failed = typeof q?.errors === 'number' ? q.errors : typeof summary?.errors === 'number' ? summary.errors : 0;
  return { status: typeof manifest?.status === 'string' && manifest.status !== '' ? manifest.status : null, failed };
}
