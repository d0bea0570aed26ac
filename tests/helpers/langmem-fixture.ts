/**
 * The conformance suite's fixture of LangMem (tests/helpers/service-fixtures.ts registers it): its
 * sidecar (integrations/sidecars/langmem.py) in front of the stand-ins of langmem's tools and
 * langgraph's ReAct agent, store and checkpointer (tests/fixtures/sidecars/langmem, langgraph,
 * langchain_core), behind the fault-injecting proxy; the check reads the stand-ins' call log to see
 * that the sidecar drove the library as Mem0's evaluation drives LangMem (mem0ai/mem0@b3ede5b7
 * evaluation/src/langmem.py), in the default mode (agent).
 */
import { expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Turn } from '../../src/core/schema.js';
import { ROOT } from './cli.js';
import type { ProtocolCheck, ServiceFixture, ServicePeer } from './service-fixtures.js';
import { SidecarPeer } from './sidecar-peer.js';

const turnsOf = (c: ProtocolCheck): Turn[] => c.dataset.episodes.filter((e) => c.episodes.includes(e.id)).flatMap((e) => e.turns);

export function checkLangmem(peer: ServicePeer, c: ProtocolCheck): void {
  const calls = (peer as SidecarPeer).calls();
  const turns = turnsOf(c);
  // L59-80: per conversation two agents (gpt-4o-mini, manage_memory + search_memory), each its own store (1536-d openai embeddings).
  const agents = calls.filter((x) => x.call === 'create_react_agent');
  expect(agents.length).toBeGreaterThanOrEqual(2);
  for (const a of agents) expect(a).toMatchObject({ model: 'openai:gpt-4o-mini', tools: ['manage_memory', 'search_memory'] });
  for (const s of calls.filter((x) => x.call === 'InMemoryStore'))
    expect(s.index).toEqual({ dims: 1536, embed: 'openai:text-embedding-3-small' });
  // L125-135: every turn, in order, '{timestamp} | {speaker}: {text}' to its speaker's agent, on thread-<conversation>.
  const invokes = calls.filter((x) => x.call === 'agent.invoke');
  const fed = invokes.filter(
    (x) => / \| [^:]+: /.test(x.text as string) && turns.some((t) => x.text === `${t.date} | ${t.speaker}: ${t.text}`),
  );
  const lastRun = fed.slice(-turns.length);
  expect(lastRun.map((x) => x.text)).toEqual(turns.map((t) => `${t.date} | ${t.speaker}: ${t.text}`));
  const agentOf = new Map<string, Set<unknown>>();
  lastRun.forEach((x, i) => agentOf.set(turns[i]!.speaker, (agentOf.get(turns[i]!.speaker) ?? new Set()).add(x.agent)));
  expect(agentOf.size).toBe(2);
  for (const ids of agentOf.values()) expect(ids.size).toBe(1);
  expect(new Set([...agentOf.values()].map((s) => [...s][0])).size).toBe(2);
  expect(new Set(invokes.map((x) => x.scope)).size).toBe(c.episodes.length);
  for (const x of invokes) expect(x.scope as string).toMatch(/^thread-/);
  // L41-56: each call's system message is the script's prompt over store.search(("memories",), <last message>).
  const template = readFileSync(join(ROOT, 'configs/prompts/langmem-agent-system.txt'), 'utf8');
  const [head] = template.split('{memories}');
  for (const x of invokes) expect((x.system as string).startsWith(head!)).toBe(true);
  expect(calls.filter((x) => x.call === 'manage_memory').length).toBeGreaterThanOrEqual(turns.length);
  // L85-93, L148-149: each question sent to both agents, after the last turn; their final messages are the memories.
  const questions = new Set(c.dataset.questions.map((q) => q.text));
  const asked = invokes.filter((x) => questions.has(x.text as string));
  expect(asked.length).toBeGreaterThanOrEqual(2 * c.questions);
  const lastTurn = calls.indexOf(lastRun[lastRun.length - 1]!);
  const lastAsks = asked.slice(-2 * c.questions);
  expect(calls.indexOf(lastAsks[0]!)).toBeGreaterThan(lastTurn);
  expect(new Set(lastAsks.map((x) => x.agent)).size).toBe(2);
}

export const LANGMEM_FIXTURE: ServiceFixture = {
  start: () => new SidecarPeer('langmem').start(),
  // Mode agent's searches of one conversation are turns of its agents' threads: the sidecar serves them one at a time,
  // so requests in flight at once only queue there (and, under the suite's 1 s timeout, time out while queued).
  options: (p) => [`url=${p.url}`, 'concurrency=1'],
  checkProtocol: checkLangmem,
  appliedIsItems: true,
};
