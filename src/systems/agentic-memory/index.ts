/**
 * The built-in agentic memory system (docs/agentic-memory.md): an LLM extracts memory items at
 * ingest into per-run SQLite stores, a validation layer merges and supersedes, and recall injects
 * a few weighted items in place of the retrieved history.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { SystemDescriptor } from '../../core/system.js';
import type { ModelEntry } from '../../providers/models.js';
import type { ProviderSession } from '../../providers/session.js';
import { InputError } from '../../util/errors.js';
import { parsePositiveList, parseUnitList, splitList } from '../../util/lists.js';
import { MEMORY_SECTION, MemorySchema, memoryConfig, type MemoryConfig } from './config.js';
import { estimateExtraction, renderExtractionEstimate } from './estimate.js';
import { createAgenticMemorySource } from './source.js';
import { MEMORY_DB_FILE } from './store.js';
import { purgeStoreOwner, showStore, storeDecisions } from './inspect.js';
import { memoryIngestLines } from './summary.js';
import { exportMemoryStore } from './export.js';
import { addOnlyFigures } from '../../benchmarks/paper-system-figures.js';

type RecallWeights = MemoryConfig['weights'];

/** Parses `0.4/0.3/0.2/0.1,1/0/0/0` (cosine/entity/recency/importance) into recall weights. */
export function parseWeightsList(value: string, flag: string): RecallWeights[] {
  return splitList(value, flag).map((p) => {
    const xs = p.split('/').map((x) => x.trim());
    const ns = xs.map(Number);
    if (xs.length !== 4 || xs.some((x) => !/^\d*\.?\d+$/.test(x)))
      throw new InputError(`'${p}' is not four non-negative weights cosine/entity/recency/importance`, { place: flag });
    return { cosine: ns[0]!, entity: ns[1]!, recency: ns[2]!, importance: ns[3]! };
  });
}

/** `on,off` -> [undefined, false]: on is the section's default (absent), so it is the reference variant, config hash included. */
export function parseOnOffList(value: string, flag: string): Array<false | undefined> {
  return splitList(value, flag).map((v) => {
    if (v === 'on' || v === 'true') return undefined;
    if (v === 'off' || v === 'false') return false;
    throw new InputError(`'${v}' is not on or off`, { place: flag });
  });
}

const weightsLabel = (w: RecallWeights) => `${w.cosine}/${w.entity}/${w.recency}/${w.importance}`;

export const agenticMemory: SystemDescriptor<ProviderSession, ModelEntry> = {
  name: 'agentic-memory',
  // The paper's add-only control was run on Mem0; here it is this memory's own (-S mutations=false).
  paperRows: [
    {
      kind: 'ablation',
      ...addOnlyFigures(),
      title: 'add-only memory (UPDATE proposals carried out as ADD) against the same memory with updates',
      paperSystem: 'mem0',
      sweep: '-S mutations=on,off',
      variant: 'mutations=off',
    },
  ],
  description: 'LLM extraction at ingest, weighted recall of memory items',
  about: { kind: 'built-in' },
  config: { key: MEMORY_SECTION, schema: MemorySchema },
  sweep: [
    {
      key: 'mutations',
      description: 'memory mutations on (UPDATE supersedes) and/or off (add-only), comma-separated, e.g. on,off (reference on)',
      config: ['memory', 'mutations'],
      parse: parseOnOffList,
      label: (v) => `mutations=${v === false ? 'off' : 'on'}`,
    },
    {
      key: 'items',
      description: 'items injected per question, comma-separated, e.g. 3,5,10 (reference 5)',
      config: ['memory', 'items'],
      parse: parsePositiveList,
      label: (v) => `items=${String(v)}`,
    },
    {
      key: 'tokens',
      description: 'injection budgets in cl100k tokens, comma-separated, e.g. 400,800 (reference 800)',
      config: ['memory', 'tokens'],
      parse: parsePositiveList,
      label: (v) => `tokens=${String(v)}`,
    },
    {
      key: 'dedupThreshold',
      description: 'de-duplication cosines, comma-separated, e.g. 0.8,0.9 (reference 0.9)',
      config: ['memory', 'dedupThreshold'],
      parse: parseUnitList,
      label: (v) => `dedup=${String(v)}`,
    },
    {
      key: 'weights',
      description: 'recall weights cosine/entity/recency/importance, comma-separated, e.g. 1/0/0/0,0.5/0.5/0/0 (reference 0.4/0.3/0.2/0.1)',
      config: ['memory', 'weights'],
      parse: parseWeightsList,
      label: (v) => `weights=${weightsLabel(v as RecallWeights)}`,
    },
  ],
  create: (cfg, session, opts) => createAgenticMemorySource(cfg, session, opts),
  estimate({ cfg, dataset, questions, groups, session }) {
    // Embeds items and questions, ranks no windows and reranks nothing; shows at most its injection budget.
    const budget = memoryConfig(cfg).tokens;
    const evidenceTokens = new Map<string, number>();
    for (const { ep, questions: qs } of groups) {
      const history = ep.turnTokenStart[ep.turnTokenStart.length - 1]!;
      for (const q of qs) evidenceTokens.set(q.id, Math.min(history, budget));
    }
    const extraction = estimateExtraction({ episodes: dataset.episodes, questions }, cfg, session);
    return {
      rows: [],
      evidenceTokens,
      ingest: { cost_usd: extraction.cost_usd, lines: [renderExtractionEstimate(extraction)], data: { extraction } },
    };
  },
  summaryLines: memoryIngestLines,
  store: {
    exists: (runDir) => existsSync(join(runDir, MEMORY_DB_FILE)),
    show: showStore,
    purge: purgeStoreOwner,
    decisions: storeDecisions,
  },
  exportStore: exportMemoryStore,
};
