/**
 * `--system raw-rag-summaries`: RAW-RAG with session summaries (the paper's "+ summary
 * augmentation" ablation). An LLM summarises each session; the summary is an extra index unit next
 * to the raw windows, shown with the session's date, and keeps the turns it cites (coverage).
 */
import { z } from 'zod';
import type { Augmentation } from '../raw-rag/augmented.js';
import { citedTurns } from '../raw-rag/augmented.js';
import { augmentedSystem, ingestSettingsShape, sectionOf } from '../raw-rag/augmented-system.js';
import { addOnCost } from '../../benchmarks/paper-figures.js';
import { addOnFigures } from '../../benchmarks/paper-system-figures.js';

export const SUMMARIES_SECTION = 'summaries';

export const SummariesSchema = z.object({ ...ingestSettingsShape }).strict();

const SummaryReply = z.object({ summary: z.string().trim().min(1), source_turns: z.array(z.string()) }).strict();
type SummaryReply = z.infer<typeof SummaryReply>;

const augmentation: Augmentation<SummaryReply> = {
  system: 'RAW-RAG+summaries',
  modelFlag: '-S extractor',
  section: SUMMARIES_SECTION,
  tag: 's',
  step: { name: 'session_summary', prompt: 'raw-rag-summaries', schema: SummaryReply },
  settings: (cfg) => sectionOf(cfg, SUMMARIES_SECTION, SummariesSchema),
  plan(ep, replies) {
    const units = replies.map(({ batch, value }) => {
      const date = ep.episode.turns[batch.first]!.date ?? 'unknown';
      return { text: `[${date}] Session summary: ${value.summary}`, sourceTurns: citedTurns(ep, batch, value.source_turns) };
    });
    return { units, keepWindows: true };
  },
};

export const rawRagSummaries = augmentedSystem({
  name: 'raw-rag-summaries',
  // The paper's ablation (its Ablations section): this operation added to RAW-RAG on MemoryAgentBench.
  paperRows: [
    {
      kind: 'add-on',
      ...addOnFigures('raw-rag-summaries'),
      title: `summary augmentation on RAW-RAG's backbone (the three add-ons cost ${addOnCost()})`,
    },
  ],
  description: 'RAW-RAG with an LLM summary of each session added to the index (shown with its date)',
  augmentation,
  schema: SummariesSchema,
  outputPerTurn: 8,
  unitsPerTurn: 0.05,
});
