/** An episode after ingest: its visible turns serialised and cut into retrieval units (src/retrieval/chunk.ts makes it). */
import type { Episode } from './schema.js';

export interface ChunkingConfig {
  tokenizer: string;
  size: number;
  stride: number;
}

export interface Chunk {
  /** Position in the episode's chunk list; the final tie-break everywhere. */
  index: number;
  /** Stable id: `<episode>#<index>`. */
  id: string;
  text: string;
  /** Turns touched, as indices into the episode's turn list: firstTurn..lastTurn inclusive. */
  firstTurn: number;
  lastTurn: number;
  /** Token range in the episode's token stream (window chunking), end exclusive. */
  tokenStart: number;
  tokenEnd: number;
  /**
   * A derived index unit (an extracted fact, a session summary) instead of a window: the turns it
   * came from (turn indices), which count for coverage; the reader is shown its own text, not the turns.
   */
  sourceTurns?: number[];
}

export interface IngestedEpisode {
  episode: Episode;
  /** Only turns[0, visibleTurns) were ingested (phase protocols); = turns.length otherwise. */
  visibleTurns: number;
  /** Serialised text of each visible turn (what expansion shows the reader). */
  lines: string[];
  /** Token offset where each turn starts; turnTokenStart[visibleTurns] = total tokens. */
  turnTokenStart: number[];
  chunks: Chunk[];
}

/**
 * One block the reader is shown, with the turns behind it: the one channel from every system to
 * every benchmark's reader prompt (rendered by `renderEvidence`, src/core/protocol.ts).
 * `history` = raw conversation text (a whole serialised turn, or a window's text without
 * expansion): an adapter may lay its turns out in its own format (sessions with dates).
 * `memory` = a system's own unit (memory items, a fact, a summary): shown as its text.
 */
export interface EvidenceBlock {
  text: string;
  /** Indices (into the episode's turns) of the turns behind the block. */
  turns: number[];
  kind: 'history' | 'memory';
}

/** What the reader is shown for one question. */
export interface Evidence {
  /** Indices (into the episode's turns) of the raw turns shown, in presentation order. */
  turnIndices: number[];
  /** Their ids, same order. */
  turnIds: string[];
  /** The blocks shown, in order. */
  blocks: EvidenceBlock[];
  /** cl100k tokens of the blocks, from the ingest token counts (no re-encoding on the hot path). */
  tokens: number;
  /** The system's own answer (a source whose capabilities say `answersItself`), else absent. */
  answer?: string;
}
