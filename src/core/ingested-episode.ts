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

/** What the reader is shown for one question: the assembled evidence (or a memory system's recalled block). */
export interface Evidence {
  /** Indices (into the episode's turns) of the turns shown, in presentation order. */
  turnIndices: number[];
  /** Their ids, same order. */
  turnIds: string[];
  /** The text blocks shown, in order: whole turns when expanded, chunk texts otherwise. */
  blocks: string[];
  /** cl100k tokens of the blocks, from the ingest token counts (no re-encoding on the hot path). */
  tokens: number;
  /** A memory system's injected block, shown by every reader prompt in place of the raw history. */
  recalled?: string;
}
