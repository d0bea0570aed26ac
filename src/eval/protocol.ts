/**
 * A benchmark's scoring protocol as data + small functions: how its reader is prompted, how its
 * judge is prompted and parsed, which offline metrics apply. The reader/judge machinery in
 * src/eval/ runs any protocol; adapters in src/datasets/<benchmark>/ supply them.
 * Prompt texts live verbatim in configs/prompts/ with their sources cited.
 */
import type { Question, Turn } from '../datasets/schema.js';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** What the reader is shown: the assembled evidence, as text blocks and as the turns behind them. */
export interface EvidenceView {
  /** Text blocks in presentation order (whole serialised turns, or chunk texts without expansion). */
  blocks: string[];
  /** The turns shown, in presentation order (for layouts that group by session and date). */
  turns: Turn[];
  /** A memory system's recalled block (Evidence.recalled): when present, prompts show it instead of the history. */
  recalled?: string;
}

export interface ReaderProtocol {
  /** e.g. `locomo-rag-v1`; recorded in manifests. */
  id: string;
  /** Where the prompt text comes from (repository @ commit, file). */
  source: string;
  render(q: Question, evidence: EvidenceView): ChatMessage[];
  /** Extracts the answer from the reader's reply (default: the trimmed reply). */
  parseAnswer?(reply: string, q: Question): string;
}

export interface JudgeProtocol {
  id: string;
  source: string;
  /** The judge request for one answer; null = this question is scored without an LLM judge. */
  render(q: Question, answer: string): ChatMessage[] | null;
  /** Ask for a JSON object reply (OpenAI `response_format: {type: 'json_object'}`). */
  jsonMode?: boolean;
  /** The official judge's completion budget (`max_tokens`); absent = none sent. */
  maxTokens?: number;
  /** Verdict in [0, 1] from the judge's reply; throws when the reply cannot be read (an error, not WRONG). */
  parse(reply: string, q: Question): number;
  /**
   * Judges that need several requests per answer (BEAM: one request per rubric item, and pairwise
   * equivalence checks whose sequence depends on earlier replies). When present, the judge stage
   * calls this once per judge run INSTEAD of render + parse, passing `ask`, which sends one request
   * with the run's model, temperature 0, replicate index and cache, and returns the reply text.
   * `render` then only gives the first request (for previews and estimates; null = not judged).
   * Throws when a reply cannot be read (an error, not WRONG).
   */
  judge?(q: Question, answer: string, ask: JudgeAsk): Promise<JudgeOutcome>;
  /** Requests one judge run sends for q (default 1); `--dry-run` estimates multiply by it. */
  requestsPerRun?(q: Question): number;
}

/** Sends one judge request; see JudgeProtocol.judge. */
export type JudgeAsk = (messages: ChatMessage[], opts?: { jsonMode?: boolean; maxTokens?: number }) => Promise<string>;

/** One judge run's result from a multi-request judge. */
export interface JudgeOutcome {
  /** Verdict in [0, 1] (what `parse` returns for single-request judges). */
  verdict: number;
  /** What to keep beside the verdict: per-request verdicts and replies, score variants, ... */
  details?: Record<string, unknown>;
}

/** An offline metric computed for every answer (token F1, exact match, ...). */
export interface Metric {
  name: string;
  score(answer: string, q: Question): number | null;
}

export interface Scoring {
  reader: ReaderProtocol;
  judge: JudgeProtocol | null;
  metrics: Metric[];
  /** The item score for questions the judge does not score: this metric's value. */
  fallbackMetric?: string;
}
