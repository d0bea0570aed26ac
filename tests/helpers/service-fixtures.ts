/**
 * One fixture per memory-service system for the conformance suite (tests/e2e/memory-services.test.ts):
 * how to start its loopback peer, the `-S` options that point the system at it, and a check that
 * what the peer received follows the system's vendor protocol. A service system registered without
 * a fixture here fails the suite. A fixture's peer is anything with the suite's handle on it (a
 * MemoryServiceFake, or a fault-injecting proxy in front of a sidecar).
 */
import { expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './cli.js';
import type { Dataset } from '../../src/core/schema.js';
import type { RecordedRequest } from './loopback-server.js';
import type { ServiceFault } from './memory-service-fake.js';
import { FakeMem0 } from './fake-mem0.js';
import { FakeProtocolService } from './fake-protocol-service.js';

/** What the suite needs of a service's loopback peer. */
export interface ServicePeer {
  url: string;
  requests: RecordedRequest[];
  faults: unknown[];
  inject(f: ServiceFault): void;
  isAdd(r: RecordedRequest): boolean;
  /** Adds performed, as `<owner> <what>`: an entry twice = an add applied twice. */
  applied: string[];
  appliedTwice(): string[];
  totalHeld(): number;
  blindSearch: boolean;
  close(): Promise<void>;
}

export interface ProtocolCheck {
  dataset: Dataset;
  /** The episode(s) the run ingested. */
  episodes: string[];
  /** Search requests each question caused (one per owner searched). */
  questions: number;
}

export interface ServiceFixture {
  start(): Promise<ServicePeer>;
  /** `-S` pairs for a run against `peer` (url first). */
  options(peer: ServicePeer): string[];
  /** Environment the system needs (a key the peer checks). */
  env?: Record<string, string | undefined>;
  /** The vendor protocol, seen from the service's side: owners, roles, content, timestamps, batch sizes, waits, search depth. */
  checkProtocol(peer: ServicePeer, c: ProtocolCheck): void;
}

/** Turns of the ingested episodes. */
const turnsOf = (c: ProtocolCheck) => c.dataset.episodes.filter((e) => c.episodes.includes(e.id)).flatMap((e) => e.turns);

export const SERVICE_FIXTURES: Record<string, ServiceFixture> = {
  mem0: {
    start: () => new FakeMem0().start(),
    options: (p) => [`url=${p.url}`],
    checkProtocol(peer, c) {
      // Mem0's own LoCoMo evaluation (evaluation/src/memzero/add.py, search.py @9315e3036^): two owners
      // per conversation, every message in both with mirrored roles, `Name: text` without captions, two
      // messages per add within a session, the session's date as metadata `timestamp`, Mem0's custom
      // instructions; each question searched in both owners with top_k 30.
      const adds = peer.requests.filter((r) => peer.isAdd(r) && r.fault === null);
      const turns = new Map(turnsOf(c).map((t) => [t.id, t]));
      const owners = [...new Set(adds.map((a) => a.body.user_id as string))];
      expect(owners).toHaveLength(2 * c.episodes.length);
      const instructions = readFileSync(join(ROOT, 'configs/prompts/mem0-custom-instructions.txt'), 'utf8');
      const userSpeakers = new Map<string, Set<string>>();
      for (const a of adds) {
        const ids = a.body.metadata.turn_ids as string[];
        expect(a.body.messages).toHaveLength(ids.length);
        expect(ids.length).toBeLessThanOrEqual(2);
        const sessionTurns = [...turns.values()].filter((t) => t.session === turns.get(ids[0]!)!.session);
        if (ids.length === 1) expect(sessionTurns[sessionTurns.length - 1]!.id).toBe(ids[0]);
        expect(a.body.metadata).toMatchObject({ rawrag_add: expect.any(String), timestamp: turns.get(ids[0]!)!.date });
        expect(a.body.prompt).toBe(instructions);
        a.body.messages.forEach((m: { role: string; content: string }, i: number) => {
          const t = turns.get(ids[i]!)!;
          expect(m.content).toBe(`${t.speaker}: ${t.text}`);
          if (m.role === 'user') userSpeakers.set(a.body.user_id, (userSpeakers.get(a.body.user_id) ?? new Set()).add(t.speaker));
          else expect(m.role).toBe('assistant');
        });
      }
      // Each owner is one speaker's store (that speaker alone as `user`), and holds every turn.
      for (const o of owners) {
        expect(userSpeakers.get(o)?.size).toBe(1);
        expect(adds.filter((a) => a.body.user_id === o).reduce((n, a) => n + a.body.messages.length, 0)).toBe(
          turnsOf({ ...c, episodes: c.episodes.filter((e) => o.includes(`-${e}~`)) }).length,
        );
      }
      expect(new Set(owners.map((o) => [...userSpeakers.get(o)!][0])).size).toBe(owners.length);
      const searches = peer.requests.filter((r) => r.path === '/search' && r.fault === null);
      expect(searches.length).toBe(c.questions * 2);
      for (const q of searches) expect(q.body).toMatchObject({ top_k: 30, filters: { user_id: expect.any(String) } });
      expect(new Set(searches.map((q) => q.body.filters.user_id))).toEqual(new Set(owners));
    },
  },
  http: {
    // /ready answers "not yet" twice per owner: no search may come before the owner is ready.
    start: () => new FakeProtocolService({ readyAfterPolls: 2 }).start(),
    options: (p) => [`url=${p.url}`, 'name=toy-memory'],
    checkProtocol(peer, c) {
      const adds = peer.requests.filter((r) => peer.isAdd(r) && r.fault === null);
      expect(adds.reduce((n, a) => n + a.body.turn_ids.length, 0)).toBe(turnsOf(c).length);
      // One add per session (the protocol's default batch), each message with its raw fields.
      expect(new Set(adds.map((a) => a.body.session)).size).toBe(adds.length);
      expect(adds[0]!.body.messages[0]).toMatchObject({
        speaker: expect.any(String),
        text: expect.any(String),
        turn_id: expect.any(String),
      });
      const firstSearch = peer.requests.findIndex((r) => r.path === '/search');
      const readies = peer.requests.map((r, i) => [r, i] as const).filter(([r]) => r.path === '/ready');
      expect(readies.length).toBeGreaterThanOrEqual(3);
      expect(readies[readies.length - 1]![1]).toBeLessThan(firstSearch);
    },
  },
};
