/**
 * `--system raw-rag-graph`: RAW-RAG with an entity graph built at ingest (the paper's "+ graph
 * expansion" ablation). An LLM lists each session's entities (with the turns mentioning them) and
 * the relations between them, kept in SQLite in the run directory (graph.ts). After reranking, the
 * evidence is expanded with the turns of its entities' neighbours: neighbours by number of
 * relations, then turns in history order, while the token budget lasts.
 */
import { z } from 'zod';
import { parsePositiveList } from '../../util/lists.js';
import { InputError } from '../../util/errors.js';
import { splitList } from '../../util/lists.js';
import type { Augmentation } from '../raw-rag/augmented.js';
import { citedTurns } from '../raw-rag/augmented.js';
import { augmentedSystem, ingestSettingsShape, sectionOf } from '../raw-rag/augmented-system.js';
import { addOnCost } from '../../benchmarks/paper-figures.js';
import { addOnFigures } from '../../benchmarks/paper-system-figures.js';
import { entityKey, graphSize, readGraph, writeGraph, type Mention, type Relation } from './graph.js';

export const GRAPH_SECTION = 'graph';

export const GraphSchema = z
  .object({
    ...ingestSettingsShape,
    budget: z
      .number()
      .int()
      .nonnegative()
      .default(1024)
      .describe("cl100k tokens of neighbour turns added to a question's evidence at most (0 = no expansion)"),
    neighbours: z.number().int().positive().default(8).describe('neighbour entities followed per question at most'),
  })
  .strict();

const GraphReply = z
  .object({
    entities: z.array(z.object({ name: z.string().trim().min(1), turns: z.array(z.string()) }).strict()),
    relations: z.array(
      z.object({ source: z.string().trim().min(1), relation: z.string().trim().min(1), target: z.string().trim().min(1) }).strict(),
    ),
  })
  .strict();
type GraphReply = z.infer<typeof GraphReply>;

const augmentation: Augmentation<GraphReply> = {
  system: 'RAW-RAG+graph',
  modelFlag: '-S extractor',
  section: GRAPH_SECTION,
  tag: 'g',
  step: { name: 'entity_graph', prompt: 'raw-rag-graph', schema: GraphReply },
  settings: (cfg) => sectionOf(cfg, GRAPH_SECTION, GraphSchema),
  plan(ep, replies, { cfg, store }) {
    const gcfg = sectionOf(cfg, GRAPH_SECTION, GraphSchema);
    const mentions: Mention[] = [];
    const relations: Relation[] = [];
    for (const { batch, value } of replies) {
      for (const e of value.entities) for (const turn of citedTurns(ep, batch, e.turns)) mentions.push({ entity: entityKey(e.name), turn });
      for (const r of value.relations) relations.push({ a: entityKey(r.source), b: entityKey(r.target), relation: r.relation.trim() });
    }
    const owner = ep.episode.id;
    writeGraph(store, owner, ep.visibleTurns, mentions, relations);
    const graph = readGraph(store, owner, ep.visibleTurns);
    return {
      units: [],
      keepWindows: true,
      expand(shown) {
        const own = new Set(shown.flatMap((t) => graph.entitiesOf.get(t) ?? []));
        const score = new Map<string, number>();
        for (const e of own) for (const [n, c] of graph.neighbours.get(e) ?? []) if (!own.has(n)) score.set(n, (score.get(n) ?? 0) + c);
        const followed = [...score.entries()]
          .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
          .slice(0, gcfg.neighbours)
          .map(([n]) => n);
        const have = new Set(shown);
        const turns: number[] = [];
        let tokens = 0;
        for (const n of followed) {
          for (const t of graph.turnsOf.get(n) ?? []) {
            if (have.has(t)) continue;
            const cost = ep.turnTokenStart[t + 1]! - ep.turnTokenStart[t]!;
            if (tokens + cost > gcfg.budget) continue;
            have.add(t);
            turns.push(t);
            tokens += cost;
          }
        }
        return { turns, details: { entities: [...own].sort(), neighbours: followed, tokens } };
      },
    };
  },
  report: (store) => ({ units: graphSize(store) }),
};

function budgetList(list: string, flag: string): number[] {
  return splitList(list, flag).map((v) => {
    if (!/^\d+$/.test(v)) throw new InputError(`'${v}' is not a token budget (a whole number >= 0)`, { place: flag });
    return Number(v);
  });
}

export const rawRagGraph = augmentedSystem({
  name: 'raw-rag-graph',
  // The paper's ablation (its Ablations section): this operation added to RAW-RAG on MemoryAgentBench.
  paperRows: [
    {
      kind: 'add-on',
      ...addOnFigures('raw-rag-graph'),
      title: `graph expansion on RAW-RAG's backbone (the three add-ons cost ${addOnCost()})`,
    },
  ],
  description: "RAW-RAG whose reranked evidence is expanded with the turns of its entities' neighbours (LLM-built entity graph)",
  augmentation,
  schema: GraphSchema,
  sweep: [
    {
      key: 'budget',
      description: 'expansion budgets in tokens, comma-separated, e.g. 0,512,1024 (reference 1024)',
      config: [GRAPH_SECTION, 'budget'],
      parse: budgetList,
      label: (v) => `budget=${String(v)}`,
    },
    {
      key: 'neighbours',
      description: 'neighbour entities followed, comma-separated, e.g. 4,8 (reference 8)',
      config: [GRAPH_SECTION, 'neighbours'],
      parse: parsePositiveList,
      label: (v) => `neighbours=${String(v)}`,
    },
  ],
  outputPerTurn: 20,
  unitsPerTurn: 0,
});
