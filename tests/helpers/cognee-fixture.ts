/**
 * The conformance suite's fixture of Cognee (tests/helpers/service-fixtures.ts registers it): its
 * sidecar (integrations/sidecars/cognee.py) in front of cognee's stand-in (tests/fixtures/sidecars/cognee/),
 * behind the fault-injecting proxy, checked from the stand-in's call log against rawrag's declared
 * Cognee protocol (src/systems/cognee/protocol.md). The real library runs in tests/real/cognee.test.ts.
 */
import { expect } from 'vitest';
import type { Turn } from '../../src/core/schema.js';
import type { ProtocolCheck, ServiceFixture, ServicePeer } from './service-fixtures.js';
import { SidecarPeer, type StandinCall } from './sidecar-peer.js';

/** A session's document as the protocol adds it: its name and date first, then a paragraph per turn. */
export function cogneeDocument(turns: Turn[]): string {
  const first = turns[0]!;
  const line = (t: Turn) => `${t.speaker}: ${t.text}` + t.captions.map((c) => ` [image: ${c}]`).join('');
  return [`Conversation session ${first.session}${first.date ? `, ${first.date}` : ''}.`, ...turns.map(line)].join('\n\n');
}

function checkCognee(peer: ServicePeer, c: ProtocolCheck): void {
  const calls: StandinCall[] = (peer as SidecarPeer).calls();
  const turns = c.dataset.episodes.filter((e) => c.episodes.includes(e.id)).flatMap((e) => e.turns);
  // One document per session, in order, one dataset per conversation.
  const adds = calls.filter((x) => x.call === 'add');
  const sessions = [...new Set(turns.map((t) => t.session))];
  expect(adds.map((a) => a.adds![0])).toEqual(sessions.map((s) => cogneeDocument(turns.filter((t) => t.session === s))));
  expect(turns.some((t) => t.captions.length > 0)).toBe(true);
  const datasets = [...new Set(adds.map((a) => a.scope))];
  expect(datasets).toHaveLength(c.episodes.length);
  for (const d of datasets) expect(d).not.toMatch(/[. ]/);
  // cognify once per dataset, after its last document, before its first question.
  for (const d of datasets) {
    const cognified = calls.filter((x) => x.call === 'cognify' && x.scope === d);
    expect(cognified).toHaveLength(1);
    const at = calls.indexOf(cognified[0]!);
    expect(at).toBeGreaterThan(calls.indexOf(adds.filter((a) => a.scope === d).pop()!));
    const searches = calls.filter((x) => x.call === 'search' && x.scope === d);
    expect(searches.length).toBeGreaterThan(0);
    expect(calls.indexOf(searches[0]!)).toBeGreaterThan(at);
  }
  // Each question searched verbatim: CHUNKS, top_k 15 (cognee.search's default), in its conversation's dataset.
  const searches = calls.filter((x) => x.call === 'search');
  expect(searches).toHaveLength(c.questions);
  const questions = new Set(c.dataset.questions.map((q) => q.text));
  for (const s of searches) {
    expect(questions.has(s.query as string)).toBe(true);
    expect(s).toMatchObject({ query_type: 'CHUNKS', top_k: 15 });
  }
}

export const COGNEE_FIXTURE: ServiceFixture = {
  start: () => new SidecarPeer('cognee').start(),
  options: (p) => [`url=${p.url}`],
  checkProtocol: checkCognee,
  appliedIsItems: true,
};
