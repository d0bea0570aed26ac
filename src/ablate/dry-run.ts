/**
 * `rawrag ablate --dry-run`: per variant, the calls and cost it would ADD to the ablation.
 * Retrieval runs for real with the embedded retriever (free) so that evidence sets repeated
 * across variants are found and not charged twice; with a remote retriever the local one stands
 * in for its rankings (call counts are exact, evidence repeats approximate) and nothing is sent.
 * Per-call prices and prompt sizes come from `rawrag run --dry-run`'s estimator, scaled by what
 * each variant adds.
 */
import type { RunConfig } from '../config/schema.js';
import { estimateRun, type RoleEstimate } from '../pipeline/estimate.js';
import type { TransportOptions } from '../providers/transport.js';
import { addCost } from '../providers/usage.js';
import { createLocalRetriever } from '../retrieval/local/index.js';
import { isLocalRetriever } from '../retrieval/retrievers.js';
import type { Retriever } from '../core/retriever.js';
import { markdownTable } from '../util/table.js';
import { runAblation } from './engine.js';
import type { AblationHooks } from './types.js';
import { sweepsConfig, type Variant } from './variants.js';

export interface VariantEstimate {
  variant: string;
  roles: RoleEstimate[];
  cost_usd: number | null;
}

export interface AblationEstimate {
  questions: number;
  variants: VariantEstimate[];
  cost_usd: number | null;
  notes: string[];
}

export async function estimateAblation(
  req: {
    base: RunConfig;
    variants: Variant[];
    out: string;
    transport?: Partial<TransportOptions>;
    verbose?: boolean;
    rejudgeUnchanged?: boolean;
  },
  hooks: AblationHooks,
): Promise<AblationEstimate> {
  if (sweepsConfig(req.variants)) return estimateConfigVariants(req);
  const notes: string[] = [];
  const remote = !isLocalRetriever(req.base.retrieval.retriever);
  // A stand-in that ranks locally but is counted like the remote retriever (reranker present, no free depth).
  const standIn: Retriever | undefined = remote ? remoteStandIn(req.base.retrieval.retriever) : undefined;
  if (remote)
    notes.push(
      `evidence repeats across variants estimated with the local retriever's rankings (retriever '${req.base.retrieval.retriever}' was not called)`,
    );
  const outcome = await runAblation(
    { ...req, dryRun: true, transport: { ...req.transport, noCache: true } },
    hooks,
    standIn ? { retriever: standIn, rankingsDiffer: true } : {},
  );
  let questions = 0;
  const variants: VariantEstimate[] = [];
  for (const [i, o] of outcome.variants.entries()) {
    hooks.log(`estimating the calls of variant ${i + 1} of ${outcome.variants.length} (${o.variant.name})`);
    const alone = await estimateRun(o.variant.cfg, req.transport ?? {});
    questions = alone.questions;
    const n = Math.max(1, alone.questions);
    const share: Record<string, number> = {
      embed: o.adds.indexBuilds > 0 ? 1 : 0,
      rerank: o.adds.rerankCalls / n,
      reader: o.adds.newEvidenceSets / n,
      judge: o.adds.newEvidenceSets / n,
    };
    const roles = alone.roles.map((r) => scale(r, share[r.role] ?? 1));
    const cost = roles.reduce<number | null>((s, r) => addCost(s, r.cost_usd), 0);
    variants.push({ variant: o.variant.name, roles, cost_usd: cost });
    for (const note of alone.notes) if (!notes.includes(note)) notes.push(note);
  }
  const cost = variants.reduce<number | null>((s, v) => addCost(s, v.cost_usd), 0);
  return { questions, variants, cost_usd: cost, notes };
}

/**
 * System-knob sweeps (`memory.*`, ...) run each variant as a plain run: every variant reads and judges all its
 * questions; the ingest extraction is charged to the reference only (the others get it from the
 * response cache, whose requests do not depend on the swept values).
 */
async function estimateConfigVariants(req: { variants: Variant[]; transport?: Partial<TransportOptions> }): Promise<AblationEstimate> {
  const notes: string[] = [];
  const variants: VariantEstimate[] = [];
  let questions = 0;
  for (const v of req.variants) {
    const alone = await estimateRun(v.cfg, req.transport ?? {});
    questions = alone.questions;
    const ingest = v.isDefault ? (alone.ingest?.cost_usd ?? 0) : 0;
    const cost = alone.roles.reduce<number | null>((s, r) => addCost(s, r.cost_usd), ingest);
    variants.push({ variant: v.name, roles: alone.roles, cost_usd: cost });
    if (v.isDefault && alone.ingest) {
      const x = alone.ingest;
      notes.push(
        `the reference's cost includes the ingest LLM work (${x.cost_usd === null ? 'cost unknown' : `$${x.cost_usd.toFixed(4)}`}: ${x.lines[0] ?? ''}); ` +
          'the other variants get it from the response cache',
      );
    }
    for (const note of alone.notes) if (!notes.includes(note)) notes.push(note);
  }
  const cost = variants.reduce<number | null>((s, v) => addCost(s, v.cost_usd), 0);
  return { questions, variants, cost_usd: cost, notes };
}

function scale(r: RoleEstimate, f: number): RoleEstimate {
  return {
    ...r,
    calls: Math.round(r.calls * f),
    input_tokens: Math.round(r.input_tokens * f),
    output_tokens: Math.round(r.output_tokens * f),
    search_units: Math.round(r.search_units * f),
    cost_usd: r.cost_usd === null ? null : r.cost_usd * f,
  };
}

function remoteStandIn(name: string): Retriever {
  // Word-level ranking is enough to count evidence repeats; the sentence encoder would only add time.
  const local = createLocalRetriever({ dense: false });
  return {
    ...local,
    name,
    reranker: local.reranker ?? { name: 'stand-in', rerank: async (_q, candidates, _ep, topN) => candidates.slice(0, topN) },
    cheapDeepRanking: false,
  };
}

export function renderAblationEstimate(benchmark: string, e: AblationEstimate): string {
  const usd = (x: number | null) => (x === null ? 'unknown' : `$${x.toFixed(x < 1 ? 4 : 2)}`);
  const calls = (v: VariantEstimate, role: string) => v.roles.find((r) => r.role === role)?.calls ?? 0;
  const rows = e.variants.map((v) => [
    v.variant,
    calls(v, 'embed'),
    calls(v, 'rerank'),
    calls(v, 'reader'),
    calls(v, 'judge'),
    usd(v.cost_usd),
  ]);
  return [
    `dry run: ablation on ${benchmark} — ${e.variants.length} variants, ${e.questions} questions each`,
    '',
    markdownTable(['variant', 'embed calls', 'rerank calls', 'reader calls', 'judge calls', 'est. cost added'], rows),
    '',
    `estimated total: ${usd(e.cost_usd)} (calls each variant adds: shared retrieval and repeated evidence are charged once; before cache hits)`,
    ...e.notes.map((n) => `NOTE: ${n}`),
    'nothing was sent and no run directory was written',
  ].join('\n');
}
