/**
 * `--system raw-rag-facts`: RAW-RAG with atomic fact extraction at ingest (the paper's "+ fact
 * extraction" ablation). An LLM lists the atomic facts of each session (or N turns); each fact is
 * an index unit that keeps the turns it came from. `replace` (the paper's variant): the facts are
 * the index; `add`: they sit beside the raw windows. Retrieval, reranking and assembly are RAW-RAG's.
 */
import { z } from 'zod';
import { InputError } from '../../util/errors.js';
import { splitList } from '../../util/lists.js';
import type { Augmentation } from '../raw-rag/augmented.js';
import { citedTurns } from '../raw-rag/augmented.js';
import { augmentedSystem, ingestSettingsShape, sectionOf } from '../raw-rag/augmented-system.js';
import { addOnCost } from '../../benchmarks/paper-figures.js';
import { addOnFigures } from '../../benchmarks/paper-system-figures.js';

export const FACTS_SECTION = 'facts';

export const FactsSchema = z
  .object({
    ...ingestSettingsShape,
    mode: z
      .enum(['replace', 'add'])
      .default('replace')
      .describe("replace: facts instead of the raw windows (the paper's variant); add: facts beside them"),
  })
  .strict();
export type FactsConfig = z.infer<typeof FactsSchema>;

const FactsReply = z
  .object({
    facts: z.array(z.object({ fact: z.string().trim().min(1), source_turns: z.array(z.string()) }).strict()),
  })
  .strict();
type FactsReply = z.infer<typeof FactsReply>;

const augmentation: Augmentation<FactsReply> = {
  system: 'RAW-RAG+facts',
  modelFlag: '-S extractor',
  section: FACTS_SECTION,
  tag: 'f',
  step: { name: 'atomic_facts', prompt: 'raw-rag-facts', schema: FactsReply },
  settings: (cfg) => sectionOf(cfg, FACTS_SECTION, FactsSchema),
  plan(ep, replies, { cfg }) {
    const units = replies.flatMap(({ batch, value }) =>
      value.facts.map((f) => {
        const turns = citedTurns(ep, batch, f.source_turns);
        // The fact is dated by the last turn it came from, as a window's turns are.
        const date = ep.episode.turns[turns[turns.length - 1]!]!.date ?? 'unknown';
        return { text: `[${date}] ${f.fact}`, sourceTurns: turns };
      }),
    );
    return { units, keepWindows: sectionOf(cfg, FACTS_SECTION, FactsSchema).mode === 'add' };
  },
};

export const rawRagFacts = augmentedSystem({
  name: 'raw-rag-facts',
  // The paper's ablation (its Ablations section): this operation added to RAW-RAG on MemoryAgentBench.
  paperRows: [
    {
      kind: 'add-on',
      ...addOnFigures('raw-rag-facts'),
      title: `atomic fact extraction on RAW-RAG's backbone (the three add-ons cost ${addOnCost()})`,
    },
  ],
  description: 'RAW-RAG over LLM-extracted atomic facts (each keeps its source turns); -S mode=replace | add',
  augmentation,
  schema: FactsSchema,
  sweep: [
    {
      key: 'mode',
      description: 'facts modes, comma-separated: replace,add (reference replace)',
      config: [FACTS_SECTION, 'mode'],
      parse: (list, flag) => splitList(list, flag).map((v) => (v === 'replace' || v === 'add' ? v : badMode(v, flag))),
      label: (v) => `facts=${String(v)}`,
    },
  ],
  outputPerTurn: 30,
  unitsPerTurn: 0.7,
});

function badMode(v: string, flag: string): never {
  throw new InputError(`'${v}' is not a facts mode (replace | add)`, { place: flag });
}
