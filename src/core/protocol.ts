/**
 * A benchmark's scoring protocol as data + small functions: how its reader is prompted, how its
 * judge is prompted and parsed, which offline metrics apply. The reader/judge machinery in
 * src/reader-judge/ runs any protocol; adapters in src/benchmarks/<benchmark>/ supply them.
 * Prompt texts live verbatim in configs/prompts/ with their sources cited.
 */
import type { Question, Turn } from './schema.js';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** One block as the reader prompt sees it: its text, the turns behind it, and its kind (src/core/ingested-episode.ts EvidenceBlock). */
export interface ShownBlock {
  text: string;
  turns: Turn[];
  kind: 'history' | 'memory';
}

/** What the reader is shown: the blocks in presentation order. */
export interface EvidenceView {
  blocks: ShownBlock[];
}

/** A run of consecutive blocks of one kind; a history run also lists its turns once each, in order. */
export type EvidenceSegment = { kind: 'history'; blocks: ShownBlock[]; turns: Turn[] } | { kind: 'memory'; blocks: ShownBlock[] };

export function evidenceSegments(view: EvidenceView): EvidenceSegment[] {
  const out: EvidenceSegment[] = [];
  for (const b of view.blocks) {
    const last = out[out.length - 1];
    if (last && last.kind === b.kind) last.blocks.push(b);
    else out.push(b.kind === 'history' ? { kind: 'history', blocks: [b], turns: [] } : { kind: 'memory', blocks: [b] });
  }
  for (const seg of out) {
    if (seg.kind !== 'history') continue;
    const seen = new Set<Turn>();
    for (const b of seg.blocks) for (const t of b.turns) if (!seen.has(t)) seen.add(t) && seg.turns.push(t);
  }
  return out;
}

/** How a benchmark lays out raw history; everything else is shown as its text. */
export interface EvidenceLayout {
  /** Default: the blocks' texts, one a line. */
  history?: (seg: { blocks: ShownBlock[]; turns: Turn[] }) => string;
}

/** The evidence as one text for a reader prompt: every adapter renders through this, so no system's blocks are dropped. */
export function renderEvidence(view: EvidenceView, layout: EvidenceLayout = {}): string {
  return evidenceSegments(view)
    .map((seg) => (seg.kind === 'history' && layout.history ? layout.history(seg) : seg.blocks.map((b) => b.text).join('\n')))
    .join('\n');
}

export interface ReaderProtocol {
  /** e.g. `locomo-rag-v1`; recorded in manifests. */
  id: string;
  /** Where the prompt text comes from (repository @ commit, file). */
  source: string;
  render(q: Question, evidence: EvidenceView): ChatMessage[];
  /** Extracts the answer from the reader's reply (default: the trimmed reply). */
  parseAnswer?(reply: string, q: Question): string;
  /**
   * The official reader's completion budget (`max_tokens`) for q; null = the upstream sends none
   * (and neither does rawrag). Absent = null. A per-question value (MemoryAgentBench: per source)
   * is data of the question, read here. `reader.maxTokens` in a config overrides it.
   */
  maxTokens?(q: Question): number | null;
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
  /** Whether `--judge-prompt` replaces this question's prompt (default yes; LoCoMo: not the adversarial judge's). */
  customPromptApplies?(q: Question): boolean;
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
  /** What `rawrag protocol <benchmark>` prints beside the values read from the protocols. */
  card?: ProtocolCard;
}

/**
 * The official protocol as a user compares it with the paper: the parts that are not already
 * values of the protocols (prompt files, the upstream's own settings, the denominator rule).
 */
export interface ProtocolCard {
  reader: RoleCard;
  judge: RoleCard | null;
  /** Which questions the headline divides by, and what happens to failed items. */
  denominator: string;
  /** The headline figure and how it is aggregated. */
  headline: string;
}

export interface RoleCard {
  /** The model the upstream protocol uses for this role (null = the user's choice, e.g. the reader under test). */
  upstreamModel: string | null;
  /** Human statement of the max_tokens rule when it is not one number (per source, per template). */
  maxTokensRule?: string;
  /** configs/prompts/ file names (without .txt) this role sends. */
  prompts: string[];
  /** SOURCE note in configs/prompts/ citing the upstream. */
  sourceNote: string;
}

/** A config's reader budget: a number, 'none' (send no max_tokens) or null (the protocol's official value). */
export type ReaderMaxTokensSetting = number | 'none' | null;

/** The max_tokens the reader sends for q: the config's override, else the protocol's official value; null = none sent. */
export function readerMaxTokens(setting: ReaderMaxTokensSetting, protocol: ReaderProtocol, q: Question): number | null {
  if (setting === 'none') return null;
  if (typeof setting === 'number') return setting;
  return protocol.maxTokens?.(q) ?? null;
}

/** The judge model: the config's, else the benchmark's official judge, else the LoCoMo/Mem0 judge. */
export function judgeModelFor(configured: string | null, officialJudge: string | undefined): string {
  return configured ?? officialJudge ?? FALLBACK_JUDGE_MODEL;
}

/** Mem0's LoCoMo judge model; the judge for benchmarks that name none. */
export const FALLBACK_JUDGE_MODEL = 'gpt-4o-mini';
