/**
 * What every system's evidence goes through before the reader, whatever source made it:
 * - the evidence budget (`--max-evidence-tokens`): a source that did not pack to it (one outside
 *   src/retrieval/assemble.ts) is capped here by the generic rule (src/retrieval/pack.ts);
 * - answer-sufficiency coverage where the question has no gold turns (MemoryAgentBench): the
 *   benchmark's own rule over the text shown (Benchmark.answerSufficiency), so coverage x
 *   utilization exists for every system on such benchmarks (docs/diagnostics.md).
 */
import type { Benchmark } from '../core/benchmark.js';
import { ANSWER_RULE, coverage } from '../core/coverage.js';
import type { Evidence, IngestedEpisode } from '../core/ingested-episode.js';
import type { ItemRecord } from '../core/item.js';
import type { Policy } from '../core/policy.js';
import type { Question } from '../core/schema.js';
import { capEvidence } from '../retrieval/pack.js';

export function checkEvidence(
  q: Question,
  item: ItemRecord,
  evidence: Evidence,
  ctx: { benchmark: Benchmark; policy: Policy; ep: IngestedEpisode },
): Evidence {
  let out = evidence;
  const capped = capEvidence(evidence, ctx.policy.maxEvidenceTokens);
  if (capped !== evidence) {
    item.details.evidence_cap = { budget: ctx.policy.maxEvidenceTokens, tokens_before: evidence.tokens };
    item.evidence_tokens = capped.tokens;
    // What is left behind the kept blocks (raw turns and a memory's source turns), in the order shown.
    const turns = [...new Set(capped.blocks.flatMap((b) => b.turns))].map((t) => ctx.ep.episode.turns[t]!.id);
    item.evidence_turns = turns;
    item.coverage = coverage(turns, q.evidence);
    out = capped;
  }
  if (item.coverage === null && q.evidence.length === 0) {
    const v = answerCoverage(ctx.benchmark, q, shownTexts(out));
    if (v !== null) {
      item.coverage = { all: v === 1, any: v === 1 };
      item.details.coverage_rule = ANSWER_RULE;
    }
  }
  if (ctx.benchmark.shownDiagnostics) Object.assign(item.metrics, ctx.benchmark.shownDiagnostics(q, item.evidence_turns));
  return out;
}

/** The texts the reader is shown. */
export function shownTexts(evidence: Evidence): string[] {
  return evidence.blocks.map((b) => b.text);
}

/** 1 / 0 when the benchmark's rule decides, null when it has none or cannot decide for q. */
export function answerCoverage(benchmark: Benchmark, q: Question, texts: readonly string[]): number | null {
  return benchmark.answerSufficiency ? benchmark.answerSufficiency(q, texts) : null;
}
