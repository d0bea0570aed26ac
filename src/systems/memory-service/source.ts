/**
 * A memory service as an evidence source (src/core/evidence-source.ts), shared by every service
 * adapter (Mem0, the HTTP protocol). Ingest: the owner's history is added call by call, in
 * order; each acknowledged add is recorded durably (ingest-log.ts) before the next is sent, so a
 * resumed run sends only what was never acknowledged, and an add whose reply was lost (a dropped
 * connection, a kill) is first looked for on the service — found, it is recorded, not re-sent.
 * Query: the question verbatim, the top `limit` memories, shown with their dates in place of the
 * raw history; the turns behind them give coverage.
 */

import type { EpisodeEvidence, EvidenceSource } from '../../core/evidence-source.js';
import type { IngestedEpisode } from '../../core/ingested-episode.js';
import { coverage } from '../../core/coverage.js';
import { backoffMs, classifyFailure, RetriesExhausted } from '../../providers/retry.js';
import { countTokens } from '../../retrieval/tokenizer.js';
import { DecisionWriter } from './decisions.js';
import { sleep } from './http.js';
import { IngestLog } from './ingest-log.js';
import { ownerOf, planAdds, runTag } from './plan.js';
import type { AddCall, AddEvent, MemoryService, ServiceMemory } from './service.js';
import type { ServiceSettings } from './config.js';

export function memoryHeader(system: string): string {
  return `Memories recalled by ${system} (most relevant first; each dated by the conversation it came from):`;
}

export function memoriesBlock(system: string, hits: readonly ServiceMemory[]): string {
  const lines = hits.map((h) => `- ${h.date ? `[${h.date}] ` : ''}${h.memory}`);
  return [memoryHeader(system), ...(lines.length ? lines : ['- (nothing recalled)'])].join('\n');
}

interface IngestFigures {
  adds_sent: number;
  adds_skipped: number;
  adds_recovered: number;
  messages_sent: number;
}

export function serviceSource(service: MemoryService, settings: ServiceSettings, opts: { runDir: string }): EvidenceSource {
  const runId = runTag(opts.runDir);
  let log: IngestLog | null = null;
  let decisions: DecisionWriter | null = null;
  // Opened at the first episode: the run directory exists by then, and a dry run never gets here.
  const logOf = (): IngestLog => (log ??= new IngestLog(opts.runDir));
  const decisionsOf = (): DecisionWriter => (decisions ??= new DecisionWriter(opts.runDir, logOf()));
  const figures: IngestFigures = { adds_sent: 0, adds_skipped: 0, adds_recovered: 0, messages_sent: 0 };
  let searches = 0;
  const building = new Map<string, Promise<Record<string, number>>>();

  /** Whether the service already holds what `call` adds (its key is in a memory's metadata). */
  const holds = async (call: AddCall): Promise<boolean> => {
    const listed = await service.list(call.owner);
    return listed !== null && listed.some((m) => m.addKey === call.key);
  };

  /** One add: retried on 429 / 5xx / timeouts / resets, but after a lost reply only when the service does not hold it. */
  const addWithRecovery = async (call: AddCall): Promise<{ events: AddEvent[] | null; recovered: boolean }> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return { events: await service.addOnce(call), recovered: false };
      } catch (e) {
        const info = classifyFailure(e);
        if (!info.retryable || attempt >= service.retry.maxRetries)
          throw service.addFailure(call, new RetriesExhausted(e, attempt + 1, info));
        // A 429 was refused before any work; anything else may have been done with the reply lost.
        if (info.status !== 429 && (await holds(call))) return { events: null, recovered: true };
        await sleep(backoffMs(attempt, service.retry, info.retryAfterMs));
      }
    }
  };

  const ingest = async (ep: IngestedEpisode): Promise<Record<string, number>> => {
    const t0 = performance.now();
    const l = logOf();
    const d = decisionsOf();
    const owner = ownerOf(runId, ep);
    const before = { ...figures };
    let state = l.owner(owner);
    if (state?.complete) return { ms: 0, adds: 0 };
    const plan = planAdds(ep, owner, settings.batch);
    const meta = { owner, episode: ep.episode.id, scope: ep.visibleTurns };
    // An owner begun before (a killed or failed run): the first add not acknowledged may have been done.
    let mayBeDone = state !== undefined;
    if (!state) {
      l.append({ type: 'begin', ...meta, at: new Date().toISOString() });
      state = l.owner(owner)!;
    }
    for (const [index, call] of plan.entries()) {
      if (state.adds.has(call.key)) {
        figures.adds_skipped++;
        continue;
      }
      let done: { events: AddEvent[] | null; recovered: boolean };
      if (mayBeDone && (await holds(call))) done = { events: null, recovered: true };
      else {
        done = await addWithRecovery(call);
        if (!done.recovered) {
          figures.adds_sent++;
          figures.messages_sent += call.messages.length;
        }
      }
      mayBeDone = false;
      if (done.recovered) figures.adds_recovered++;
      const line = {
        type: 'add' as const,
        ...meta,
        key: call.key,
        index,
        messages: call.messages.length,
        turns: call.turnIds,
        events: done.events,
        ...(done.recovered ? { recovered: true as const } : {}),
        at: new Date().toISOString(),
      };
      // Acknowledged first (durably), then its decisions: a kill between the two is repaired by the next rebuild.
      l.append(line);
      d.append(line);
    }
    l.append({ type: 'complete', ...meta, adds: plan.length, at: new Date().toISOString() });
    return {
      ms: Math.round(performance.now() - t0),
      adds: figures.adds_sent - before.adds_sent,
      adds_recovered: figures.adds_recovered - before.adds_recovered,
      messages: figures.messages_sent - before.messages_sent,
    };
  };

  return {
    system: service.system,
    name: `${service.system}@${service.url}`,
    capabilities: { remote: true, llmAtIngest: true, questionRole: 'chat', ranksWindows: false, cheapDeepRanking: false },
    notes: [],
    async open(ep: IngestedEpisode): Promise<EpisodeEvidence> {
      const owner = ownerOf(runId, ep);
      let p = building.get(owner);
      if (!p) {
        p = ingest(ep);
        building.set(owner, p);
        p.catch(() => building.delete(owner));
      }
      const figuresOfEpisode = await p;
      const position = new Map(ep.episode.turns.map((t, i) => [t.id, i]));
      return {
        ingest: figuresOfEpisode,
        async evidenceFor(q, item) {
          const hits = await service.search(owner, q.text, settings.limit);
          searches++;
          const text = memoriesBlock(service.system, hits);
          const turns = [...new Set(hits.flatMap((h) => h.turnIds).filter((t) => position.has(t)))].sort(
            (a, b) => position.get(a)! - position.get(b)!,
          );
          const gold = new Set(q.evidence);
          const tokens = countTokens(text);
          item.retrieved = [];
          item.evidence_turns = turns;
          item.evidence_tokens = tokens;
          item.coverage = coverage(turns, q.evidence);
          item.coverage_at_k = {};
          // Pollution: shown memories none of whose source turns holds gold evidence (unknown without gold).
          item.metrics.pollution =
            gold.size === 0 || hits.length === 0 ? null : hits.filter((h) => !h.turnIds.some((t) => gold.has(t))).length / hits.length;
          item.details.service = {
            owner,
            hits: hits.map((h) => ({ id: h.id, score: h.score, memory: h.memory, date: h.date, turns: h.turnIds })),
          };
          // One memory block: the labelled memories, with the turns they came from.
          return { turnIndices: [], turnIds: [], blocks: [{ text, turns: turns.map((t) => position.get(t)!), kind: 'memory' }], tokens };
        },
      };
    },
    report() {
      // A resumed run that opened no episode still reports what the service acknowledged.
      const totals = logOf().totals();
      return {
        service: {
          system: service.system,
          api: service.api,
          url: service.url,
          limit: settings.limit,
          batch: settings.batch,
          ingest_log: logOf().path,
          acknowledged: totals,
          this_run: { ...figures, searches },
          requests: service.report(),
        },
      };
    },
  };
}
