/**
 * A run's phases, in the order work flows through them: the history taken in by the system under
 * test (`ingest`, counted in turns), each episode's memory or index made ready (`index`, in
 * episodes), each question's evidence found and answered (`answer`), each answer judged (`judge`).
 * Phases overlap (one episode's questions are answered while another's history is ingested); each
 * has its own done/total. The pipeline counts them; a source whose ingest takes long (an LLM
 * extracting batch by batch, a memory service acknowledging adds) says how far it has got through
 * `SourceContext.ingestProgress`, in its own units, and the pipeline turns that into turns.
 */
export type Phase = 'ingest' | 'index' | 'answer' | 'judge';

export const PHASES: readonly Phase[] = ['ingest', 'index', 'answer', 'judge'];

/** What each phase counts. */
export const PHASE_UNITS: Readonly<Record<Phase, string>> = {
  ingest: 'turns',
  index: 'episodes',
  answer: 'questions',
  judge: 'questions',
};

/** One phase's figures at a moment. */
export interface PhaseFigures {
  phase: Phase;
  done: number;
  total: number;
  unit: string;
  /** Items (or turns) a second over the recent past; null until measurable. */
  rate_per_s: number | null;
  /** Seconds left in this phase at that rate; null until measurable (0 once done). */
  eta_s: number | null;
  /** USD this process spent on the phase's requests; null when a price is unknown; absent when it sent none. */
  cost_usd?: number | null;
}
