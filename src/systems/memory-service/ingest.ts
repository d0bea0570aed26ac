/**
 * One owner's history onto a memory service, resumably. Each acknowledged add is recorded durably
 * (ingest-log.ts) before the next is sent, so a resumed run sends only what was never acknowledged;
 * an add whose reply was lost (a dropped connection, a torn reply, a kill) is first looked for on the
 * service — found, it is recorded as recovered, not re-sent. After the last add: wait until the
 * service says the memories are searchable (the adapter's `awaitReady`), keep a snapshot of the
 * complete store where the service can list, then mark the owner complete with its timings.
 */
import { backoffMs, classifyFailure, RetriesExhausted } from '../../providers/retry.js';
import { sleep } from './http.js';
import type { IngestLog } from './ingest-log.js';
import type { DecisionWriter } from './decisions.js';
import type { OwnerPlan } from './plan.js';
import type { AddCall, AddOutcome, MemoryService } from './service.js';
import { appendSnapshot } from './snapshot.js';

export interface IngestFigures {
  adds_sent: number;
  adds_skipped: number;
  adds_recovered: number;
  messages_sent: number;
}

export interface OwnerContext {
  service: MemoryService;
  log: IngestLog;
  decisions: DecisionWriter;
  runDir: string;
  episode: string;
  scope: number;
  readyTimeoutMs: number;
  figures: IngestFigures;
  signal?: AbortSignal;
}

/** Whether the service already holds what `call` adds (its key is in a memory's metadata). */
async function holds(service: MemoryService, call: AddCall): Promise<boolean> {
  const listed = await service.list(call.owner);
  return listed !== null && listed.some((m) => m.addKey === call.key);
}

/** One add: retried on 429 / 5xx / timeouts / resets / torn replies, but after a lost reply only when the service does not hold it. */
async function addWithRecovery(service: MemoryService, call: AddCall): Promise<{ outcome: AddOutcome; recovered: boolean }> {
  for (let attempt = 0; ; attempt++) {
    try {
      return { outcome: await service.addOnce(call), recovered: false };
    } catch (e) {
      const info = classifyFailure(e);
      if (!info.retryable || attempt >= service.retry.maxRetries)
        throw service.addFailure(call, new RetriesExhausted(e, attempt + 1, info));
      // A 429 was refused before any work; anything else may have been done with the reply lost.
      if (info.status !== 429 && (await holds(service, call))) return { outcome: { events: null }, recovered: true };
      await sleep(backoffMs(attempt, service.retry, info.retryAfterMs));
    }
  }
}

/** Sends the owner's adds not yet acknowledged, in order; returns when the last one is acknowledged. */
async function sendAdds(plan: OwnerPlan, ctx: OwnerContext): Promise<void> {
  const { log, figures } = ctx;
  const meta = { owner: plan.owner, episode: ctx.episode, scope: ctx.scope };
  let state = log.owner(plan.owner);
  // An owner begun before (a killed or failed run): the first add not acknowledged may have been done.
  let mayBeDone = state !== undefined;
  if (!state) {
    log.append({ type: 'begin', ...meta, at: new Date().toISOString() });
    state = log.owner(plan.owner)!;
  }
  for (const [index, call] of plan.calls.entries()) {
    if (state.adds.has(call.key)) {
      figures.adds_skipped++;
      continue;
    }
    let done: { outcome: AddOutcome; recovered: boolean };
    if (mayBeDone && (await holds(ctx.service, call))) done = { outcome: { events: null }, recovered: true };
    else {
      done = await addWithRecovery(ctx.service, call);
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
      events: done.outcome.events,
      ...(done.outcome.unread?.length ? { unread: done.outcome.unread } : {}),
      ...(done.recovered ? { recovered: true as const } : {}),
      at: new Date().toISOString(),
    };
    // Acknowledged first (durably), then its decisions: a kill between the two is repaired by the next rebuild.
    log.append(line);
    ctx.decisions.append(line);
  }
}

/** Ingests one owner; nothing when it is complete already. Returns its add and add-to-ready times (ms). */
export async function ingestOwner(plan: OwnerPlan, ctx: OwnerContext): Promise<{ addMs: number; readyMs: number } | null> {
  if (ctx.log.owner(plan.owner)?.complete) return null;
  const t0 = performance.now();
  await sendAdds(plan, ctx);
  const addMs = performance.now() - t0;
  await ctx.service.awaitReady?.(plan.owner, plan.calls, ctx.readyTimeoutMs, ctx.signal);
  const readyMs = performance.now() - t0;
  // The complete store, once searchable: what the store oracle reads (not every service can list).
  const listed = await ctx.service.list(plan.owner);
  if (listed !== null)
    appendSnapshot(
      ctx.runDir,
      { owner: plan.owner, episode: ctx.episode, scope: ctx.scope },
      listed,
      (m) => ctx.log.turnsOfMemory(plan.owner, m.id) ?? m.turnIds,
    );
  ctx.log.append({
    type: 'complete',
    owner: plan.owner,
    episode: ctx.episode,
    scope: ctx.scope,
    adds: plan.calls.length,
    add_ms: Math.round(addMs),
    ready_ms: Math.round(readyMs),
    at: new Date().toISOString(),
  });
  return { addMs, readyMs };
}
