/**
 * `rawrag systems check NAME`: a pre-flight of a memory service through the same adapter a run
 * uses. A two-turn probe conversation is added to a fresh owner, waited for (the service's own
 * readiness), searched with a question about it, listed, and deleted (the delete verified by
 * listing again); each step is printed with its time, then a verdict. Nothing of a run is touched.
 */
import type { AddCall, MemoryService, ServiceMessage } from './service.js';
import type { ServiceSettings } from './config.js';

export interface CheckStep {
  step: string;
  ok: boolean;
  ms: number;
  detail: string;
}

const SPEAKERS = ['Ada', 'Ben'] as const;
const TURNS: Array<[string, string]> = [
  ['Ada', 'I adopted a golden retriever last week; his name is Biscuit.'],
  ['Ben', 'Lovely! How is Biscuit settling in at your flat in Leeds?'],
];
const QUESTION = "What is the name of Ada's dog?";

function probeCall(owner: string): AddCall {
  const messages: ServiceMessage[] = TURNS.map(([speaker, text], i) => ({
    role: speaker === SPEAKERS[0] ? 'user' : 'assistant',
    content: `${speaker}: ${text}`,
    speaker,
    text,
    captions: [],
    turnId: `check:${i}`,
    indexInSession: i,
    session: 'session_1',
    date: '1:56 pm on 8 May, 2023',
  }));
  return {
    owner,
    ownerSpeaker: null,
    key: `${owner}#0`,
    messages,
    turnIds: messages.map((m) => m.turnId),
    session: 'session_1',
    date: '1:56 pm on 8 May, 2023',
    timestamp: 1683554160,
    sessionTurns: messages.length,
    nextSessionTimestamp: null,
    speakers: [...SPEAKERS],
  };
}

async function timed<T>(
  steps: CheckStep[],
  step: string,
  f: () => Promise<T>,
  detail: (v: T) => string,
  log: (s: CheckStep) => void,
): Promise<T> {
  const t0 = performance.now();
  try {
    const v = await f();
    const s = { step, ok: true, ms: Math.round(performance.now() - t0), detail: detail(v) };
    steps.push(s);
    log(s);
    return v;
  } catch (e) {
    const s = { step, ok: false, ms: Math.round(performance.now() - t0), detail: (e as Error).message.split('\n')[0]!.slice(0, 400) };
    steps.push(s);
    log(s);
    throw e;
  }
}

/** Runs the probe conversation through `service`; resolves with every step (the last failed one included). */
export async function checkService(service: MemoryService, settings: ServiceSettings, log: (s: CheckStep) => void): Promise<CheckStep[]> {
  const steps: CheckStep[] = [];
  const owner = `rawrag-check-${Date.now().toString(36)}`;
  const call = probeCall(owner);
  try {
    await timed(
      steps,
      'add (2 turns)',
      () => service.addOnce(call),
      (o) =>
        `${o.events?.length ?? 'no'} events${o.events?.length ? `: ${o.events.map((e) => `${e.event} "${e.memory ?? ''}"`).join('; ')}` : ''}`,
      log,
    );
    await timed(
      steps,
      'wait until searchable',
      async () => service.awaitReady?.(owner, [call], settings.readyTimeout * 1000),
      () => (service.awaitReady ? 'ready' : 'searchable once added'),
      log,
    );
    await timed(
      steps,
      `search "${QUESTION}"`,
      async () => {
        const r = await service.search(owner, QUESTION, 5);
        const memories = Array.isArray(r) ? r : r.memories;
        if (memories.length === 0) throw new Error('the search returned no memory of the probe conversation');
        return memories;
      },
      (m) => `${m.length} memories; first: "${m[0]!.memory.slice(0, 120)}"`,
      log,
    );
    await timed(
      steps,
      'list',
      () => service.list(owner),
      (m) => (m === null ? 'the service cannot list' : `${m.length} memories`),
      log,
    );
  } catch {
    // The failed step is recorded; the probe owner is still deleted below.
  }
  try {
    await timed(
      steps,
      'delete',
      async () => {
        await service.deleteOwner(owner);
        const left = await service.list(owner);
        if (left && left.length) throw new Error(`${left.length} memories left after the delete`);
        return left;
      },
      (left) => (left === null ? 'deleted (not verified: the service cannot list)' : 'deleted, 0 memories left'),
      log,
    );
  } catch {
    // recorded
  }
  return steps;
}
