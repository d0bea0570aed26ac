/**
 * One object of a system's complete persisted store, as the store oracle reads it
 * (src/systems/store-oracle/): what an agentic memory keeps (items, superseded and forgotten ones
 * included), a memory-management system's facts, summaries or graph nodes, or a line of an
 * external system's exported store (`{"episode", "text", "source_turns"?, "date"?}` per line).
 */
export interface StoreRecord {
  /** The episode (conversation) the object belongs to: the questions of that episode may use it. */
  episode: string;
  /** What the reader would be shown. */
  text: string;
  /** Turn ids the object came from; absent = unknown (the oracle then scores by the answer in the text). */
  source_turns?: string[];
  /** When it was said or written (shown before the text), if known. */
  date?: string | null;
  /**
   * The visibility horizon the object was built under (turns ingested; MEME asks questions at
   * several). Absent = built from the whole episode.
   */
  scope?: number;
  /** The system's own status (`active`, `superseded`, `forgotten`): kept for the record, never filtered on. */
  status?: string;
  /** The system's own id, for tracing. */
  id?: string;
}
