/** The agentic memory system's lines in a run's printed summary. */

/** The agentic memory system's ingest (summary.memory): what extraction cost, beside RAW-RAG's embedding-only ingest. */
export function memoryIngestLines(summary: Record<string, unknown>): string[] {
  const m = summary.memory as
    | {
        store: string;
        extractor: string;
        ingest: {
          extraction_calls: number;
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
          events: number;
        } | null;
      }
    | undefined;
  if (!m) return [];
  const i = m.ingest;
  const cost = i.cost_usd === null ? 'cost unknown' : `$${i.cost_usd.toFixed(4)}`;
  const items = m.items
    ? `; items: ${m.items.stored} stored (${m.items.active} active, ${m.items.superseded} superseded${forgottenPart(m.items)}), ${m.items.merged} merged, ${m.items.dropped} dropped, from ${m.items.events} events`
    : '';
  return [
    '',
    `Agentic memory ingest (${m.extractor}, whole store): ${i.extraction_calls} extraction calls${i.failed_batches ? ` (+${i.failed_batches} failed)` : ''}, ${i.prompt_tokens} prompt + ${i.completion_tokens} completion tokens, ${cost}${items}`,
    `memory store: ${m.store}`,
  ];
}

/** `, 3 forgotten: 2 decayed, 0 evicted, 1 over the write cap` (stores written before forgetting existed: nothing). */
function forgottenPart(items: { forgotten?: number; forgotten_by?: { decayed: number; evicted: number; write_cap: number } }): string {
  if (items.forgotten === undefined) return '';
  const by = items.forgotten_by;
  return `, ${items.forgotten} forgotten${by ? `: ${by.decayed} decayed, ${by.evicted} evicted, ${by.write_cap} over the write cap` : ''}`;
}
