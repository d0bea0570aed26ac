/** The agentic memory system's lines in a run's printed summary. */

/** The agentic memory system's ingest (summary.memory): what extraction cost, beside RAW-RAG's embedding-only ingest. */
export function memoryIngestLines(summary: Record<string, unknown>): string[] {
  const m = summary.memory as
    | {
        store: string;
        extractor: string;
        ingest: {
          extraction_calls: number;
          cache_hits?: number;
          failed_batches: number;
          prompt_tokens: number;
          completion_tokens: number;
          cost_usd: number | null;
        };
        items: {
          stored: number;
          active: number;
          superseded: number;
          forgotten?: number;
          forgotten_by?: { decayed: number; evicted: number; write_cap: number };
          merged: number;
          dropped: number;
          invalid?: number;
          miscited?: number;
          events: number;
        } | null;
        warnings?: string[];
      }
    | undefined;
  if (!m) return [];
  const i = m.ingest;
  const cost = i.cost_usd === null ? 'cost unknown' : `$${i.cost_usd.toFixed(4)}`;
  const items = m.items
    ? `; items: ${m.items.stored} stored (${m.items.active} active, ${m.items.superseded} superseded${forgottenPart(m.items)}), ${m.items.merged} merged, ${m.items.dropped} dropped${checkedPart(m.items)}, from ${m.items.events} events`
    : '';
  const hits = i.cache_hits ? ` (+${i.cache_hits} batches answered by the cache)` : '';
  return [
    '',
    `Agentic memory ingest (${m.extractor}, whole store): ${i.extraction_calls} extraction requests sent${hits}${i.failed_batches ? `, ${i.failed_batches} batches failed` : ''}, ${i.prompt_tokens} prompt + ${i.completion_tokens} completion tokens, ${cost}${items}`,
    ...(m.warnings ?? []).map((w) => `warning: ${w}`),
    `memory store: ${m.store}`,
  ];
}

/** `, 2 invalid, 1 mis-cited` when the reply check dropped anything. */
function checkedPart(items: { invalid?: number; miscited?: number }): string {
  const parts = [items.invalid ? `${items.invalid} invalid` : '', items.miscited ? `${items.miscited} mis-cited` : ''].filter(Boolean);
  return parts.length ? `, ${parts.join(', ')}` : '';
}

/** `, 3 forgotten: 2 decayed, 0 evicted, 1 over the write cap` (stores written before forgetting existed: nothing). */
function forgottenPart(items: { forgotten?: number; forgotten_by?: { decayed: number; evicted: number; write_cap: number } }): string {
  if (items.forgotten === undefined) return '';
  const by = items.forgotten_by;
  return `, ${items.forgotten} forgotten${by ? `: ${by.decayed} decayed, ${by.evicted} evicted, ${by.write_cap} over the write cap` : ''}`;
}
