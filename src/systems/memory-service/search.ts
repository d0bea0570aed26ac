/**
 * A question's evidence from a memory service: the question verbatim, searched in every owner of
 * its episode (both speakers' stores under per-speaker owners), each owner's memories a block of
 * their own, labelled with whose store it is and dated. The turns behind each memory come from
 * rawrag's own record of the adds that wrote it (ingest-log.ts), else from the metadata the service
 * returned; they give coverage and the pollution rate. What a vendor's evaluation shows after the
 * memories (a summary, a preference note: the reply's appendix) follows them in the block. Search latency and empty searches are counted
 * for the summary: a run whose searches mostly return nothing is warned about loudly.
 */
import { coverage } from '../../core/coverage.js';
import type { Evidence, EvidenceBlock, IngestedEpisode } from '../../core/ingested-episode.js';
import type { ItemRecord } from '../../core/item.js';
import type { Question } from '../../core/schema.js';
import { countTokens } from '../../retrieval/tokenizer.js';
import type { ServiceSettings } from './config.js';
import type { IngestLog } from './ingest-log.js';
import type { EpisodePlan } from './plan.js';
import type { MemoryService, ServiceMemory, ServiceSearch } from './service.js';
import { ascending, quantileSorted } from '../../util/quantile.js';

export function memoryHeader(system: string, speaker: string | null = null): string {
  return speaker
    ? `Memories of ${speaker} recalled by ${system} (from ${speaker}'s own store; most relevant first; each dated by the conversation it came from):`
    : `Memories recalled by ${system} (most relevant first; each dated by the conversation it came from):`;
}

function memoryLine(h: ServiceMemory): string {
  const who = h.speaker && !h.memory.startsWith(`${h.speaker}:`) ? `${h.speaker}: ` : '';
  return `- ${h.date ? `[${h.date}] ` : ''}${who}${h.memory}`;
}

export function memoriesBlock(
  system: string,
  hits: readonly ServiceMemory[],
  speaker: string | null = null,
  appendix: string | null = null,
): string {
  const lines = hits.map(memoryLine);
  return [memoryHeader(system, speaker), ...(lines.length ? lines : ['- (nothing recalled)']), ...(appendix ? [appendix] : [])].join('\n');
}

/** A search reply as memories, appendix and the service's own answer (a service may answer with memories alone). */
export function searchReply(reply: ServiceMemory[] | ServiceSearch): {
  memories: ServiceMemory[];
  appendix: string | null;
  answer?: string;
} {
  if (Array.isArray(reply)) return { memories: reply, appendix: null };
  return {
    memories: reply.memories,
    appendix: reply.appendix?.trim() ? reply.appendix : null,
    ...(typeof reply.answer === 'string' ? { answer: reply.answer } : {}),
  };
}

/** Searches counted for the summary: how many, how many found nothing in any owner, and their latency. */
export class SearchFigures {
  count = 0;
  empty = 0;
  private readonly ms: number[] = [];

  record(ms: number[], hits: number): void {
    this.count++;
    if (hits === 0) this.empty++;
    this.ms.push(...ms);
  }

  latency(): Quantiles | null {
    return quantiles(this.ms);
  }
}

export interface Quantiles {
  n: number;
  total: number;
  p50: number;
  p95: number;
}

/** n, total, p50 and p95 (nearest rank) of a list of milliseconds; null when empty. */
export function quantiles(ms: readonly number[]): Quantiles | null {
  if (ms.length === 0) return null;
  const s = ascending(ms);
  const at = (q: number) => Math.round(quantileSorted(s, q, 'nearest-rank'));
  return { n: s.length, total: Math.round(s.reduce((a, b) => a + b, 0)), p50: at(0.5), p95: at(0.95) };
}

export interface SearchContext {
  service: MemoryService;
  settings: ServiceSettings;
  ep: IngestedEpisode;
  plan: EpisodePlan;
  log: IngestLog;
  searches: SearchFigures;
  noCoverage?: string;
}

export async function evidenceOf(q: Question, item: ItemRecord, ctx: SearchContext): Promise<Evidence> {
  const { service, settings, ep, plan, log } = ctx;
  const position = new Map(ep.episode.turns.map((t, i) => [t.id, i]));
  const found = await Promise.all(
    plan.owners.map(async (o) => {
      const t0 = performance.now();
      const { memories: hits, appendix, answer } = searchReply(await service.search(o.owner, q.text, settings.top_k));
      const ms = performance.now() - t0;
      // rawrag's own record of the adds behind each memory wins over the service's (possibly replaced) metadata.
      const withTurns = hits.map((h) => ({ ...h, turnIds: log.turnsOfMemory(o.owner, h.id) ?? h.turnIds }));
      return { owner: o, hits: withTurns, appendix, answer, ms };
    }),
  );
  ctx.searches.record(
    found.map((f) => f.ms),
    found.reduce((n, f) => n + f.hits.length, 0),
  );
  const sorted = (ids: string[]) => [...new Set(ids.filter((t) => position.has(t)))].sort((a, b) => position.get(a)! - position.get(b)!);
  const blocks: EvidenceBlock[] = found.map((f) => ({
    text: memoriesBlock(service.system, f.hits, f.owner.speaker, f.appendix),
    turns: sorted(f.hits.flatMap((h) => h.turnIds)).map((t) => position.get(t)!),
    kind: 'memory',
  }));
  const allHits = found.flatMap((f) => f.hits);
  const turns = sorted(allHits.flatMap((h) => h.turnIds));
  const gold = new Set(q.evidence);
  const text = blocks.map((b) => b.text).join('\n\n');
  const tokens = countTokens(text);
  item.retrieved = [];
  item.evidence_turns = turns;
  item.evidence_tokens = tokens;
  item.coverage = ctx.noCoverage ? null : coverage(turns, q.evidence);
  item.coverage_at_k = {};
  item.timings.search_ms = Math.round(Math.max(...found.map((f) => f.ms)));
  // Pollution: shown memories none of whose source turns holds gold evidence (unknown without gold or turn mapping).
  item.metrics.pollution =
    ctx.noCoverage || gold.size === 0 || allHits.length === 0
      ? null
      : allHits.filter((h) => !h.turnIds.some((t) => gold.has(t))).length / allHits.length;
  item.details.service = {
    owners: found.map((f) => ({
      owner: f.owner.owner,
      speaker: f.owner.speaker,
      hits: f.hits.map((h) => ({ id: h.id, score: h.score, memory: h.memory, date: h.date, turns: h.turnIds })),
      ...(f.appendix ? { appendix: f.appendix } : {}),
    })),
  };
  // The service's own answer (its agent answered), the first owner's that gave one.
  const answer = found.find((f) => f.answer !== undefined)?.answer;
  return { turnIndices: [], turnIds: [], blocks, tokens, ...(answer !== undefined ? { answer } : {}) };
}
