/**
 * One owner's history onto a memory service, resumably. Each acknowledged add is recorded durably
 * (ingest-log.ts) before the next is sent, so a resumed run sends only what was never acknowledged;
 * an add whose reply was lost (a dropped connection, a torn reply, a kill) is first looked for on the
 * service — found, it is recorded as recovered, not re-sent. After the last add: wait until the
 * service says the memories are searchable (the adapter's `awaitReady`), keep a snapshot of the
 * complete store where the service can list, then mark the owner complete with its timings.
 */
import { backoffMs, classifyFailure, RetriesExhausted } from '../../providers/retry.js';
import { sleep } from '../../util/sleep.js';
import type { IngestLog } from './ingest-log.js';
import type { DecisionWriter } from './decisions.js';
import type { OwnerPlan } from './plan.js';
import { AcceptedAddFailed, type AddCall, type AddHooks, type AddOutcome, type MemoryService } from './service.js';
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
  /** Hears adds acknowledged (or found done before), for the run's ingest progress. */
  added?: (n: number) => void;
}

/** The memories the service holds from `call` (its key in their metadata): the adapter's own look, else a listing. */
async function heldFrom(service: MemoryService, call: AddCall): Promise<string[]> {
  if (service.findAdd) return service.findAdd(call);
  const listed = await service.list(call.owner);
  return (listed ?? []).filter((m) => m.addKey === call.key).map((m) => m.id);
}

type Done = { outcome: AddOutcome; recovered: boolean; found?: string[] };

/**
 * One add: retried on 429 / 5xx / timeouts / resets / torn replies, but after a lost reply only
 * when the service does not hold it. Once the service has accepted the add for background work
 * (`accepted`), it is never sent again here: a failed wait is the add's error, and the next run
 * waits on its ticket; only a service that says the accepted add failed gets it again.
 */
async function addWithRecovery(service: MemoryService, call: AddCall, hooks: AddHooks): Promise<Done> {
  for (let attempt = 0; ; attempt++) {
    let accepted = false;
    try {
      const outcome = await service.addOnce(call, {
        accepted(ticket) {
          accepted = true;
          hooks.accepted(ticket);
        },
      });
      return { outcome, recovered: false };
    } catch (e) {
      const info = classifyFailure(e);
      const failedThere = e instanceof AcceptedAddFailed;
      if ((accepted && !failedThere) || (!failedThere && !info.retryable) || attempt >= service.retry.maxRetries)
        throw service.addFailure(call, new RetriesExhausted(e, attempt + 1, info));
      // A 429 was refused before any work, a failed background add stored nothing; anything else may have been done with the reply lost.
      if (info.status !== 429 && !failedThere) {
        const found = await heldFrom(service, call);
        if (found.length) return { outcome: { events: null }, recovered: true, found };
      }
      await sleep(backoffMs(attempt, service.retry, info.retryAfterMs));
    }
  }
}

/** An add accepted by an earlier run: wait for its result; if the service says it failed, send it again. */
async function resumeAccepted(
  service: MemoryService,
  call: AddCall,
  ticket: string,
  ctx: OwnerContext,
  hooks: AddHooks,
): Promise<Done | null> {
  if (!service.awaitAccepted) return null;
  try {
    return { outcome: await service.awaitAccepted(call, ticket, ctx.signal), recovered: false };
  } catch (e) {
    if (e instanceof AcceptedAddFailed) return addWithRecovery(service, call, hooks).then(count(ctx, call));
    throw service.addFailure(call, new RetriesExhausted(e, 1, { retryable: false }));
  }
}

/** Counts an add sent by this process in the run's figures (not a recovered one). */
const count =
  (ctx: OwnerContext, call: AddCall) =>
  (done: Done): Done => {
    if (!done.recovered) {
      ctx.figures.adds_sent++;
      ctx.figures.messages_sent += call.messages.length;
    }
    return done;
  };

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
      ctx.added?.(1);
      continue;
    }
    const hooks: AddHooks = {
      accepted: (ticket) => log.append({ type: 'accepted', ...meta, key: call.key, ticket, at: new Date().toISOString() }),
    };
    const ticket = state.pending.get(call.key);
    let earlier: Done | null = ticket !== undefined ? await resumeAccepted(ctx.service, call, ticket, ctx, hooks) : null;
    if (!earlier && mayBeDone) {
      const found = await heldFrom(ctx.service, call);
      if (found.length) earlier = { outcome: { events: null }, recovered: true, found };
    }
    const done: Done = earlier ?? (await addWithRecovery(ctx.service, call, hooks).then(count(ctx, call)));
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
      ...(done.recovered ? { recovered: true as const, found: done.found ?? [] } : {}),
      at: new Date().toISOString(),
    };
    // Acknowledged first (durably), then its decisions: a kill between the two is repaired by the next rebuild.
    log.append(line);
    ctx.decisions.append(line);
    ctx.added?.(1);
  }
}

/** Ingests one owner; nothing when it is complete already. Returns its add and add-to-ready times (ms). */
export async function ingestOwner(plan: OwnerPlan, ctx: OwnerContext): Promise<{ addMs: number; readyMs: number } | null> {
  if (ctx.log.owner(plan.owner)?.complete) {
    ctx.added?.(plan.calls.length);
    return null;
  }
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
