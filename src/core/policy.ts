/**
 * How RAW-RAG treats a benchmark, as data. The pipeline reads these fields; it never asks which
 * benchmark it is running.
 */
export interface Policy {
  /**
   * `window`: token windows over the serialised history (the paper's default);
   * `turn`: every turn is its own chunk (MemoryAgentBench FactConsolidation: one numbered fact each).
   */
  chunking: 'window' | 'turn';
  /** `message`: `[date] speaker: text` lines; `plain`: the turn text only (documents, facts). */
  serialisation: 'message' | 'plain';
  /** Expand selected windows to the full turns they touch (off for MemoryAgentBench). */
  expandToTurns: boolean;
  /** Present evidence in rank order or in the order it happened (MEME: chronological). */
  order: 'rank' | 'chronological';
  /** Show a turn shared by overlapping windows once (default) or once per window (`--no-dedup`). Set by the user only. */
  dedupTurns?: boolean;
  /** Evidence budget in cl100k tokens (`--max-evidence-tokens`); absent or 0 = no cap. Set by the user only. */
  maxEvidenceTokens?: number;
}

export const DEFAULT_POLICY: Policy = {
  chunking: 'window',
  serialisation: 'message',
  expandToTurns: true,
  order: 'rank',
};
