/**
 * One fixture per memory-service system for the conformance suite (tests/e2e/memory-services.test.ts):
 * how to start its loopback peer, the `-S` options that point the system at it, and a check that
 * what the peer received follows the system's vendor protocol. A service system registered without
 * a fixture here fails the suite. A fixture's peer is anything with the suite's handle on it (a
 * MemoryServiceFake, or a fault-injecting proxy in front of a sidecar).
 */
import { expect } from 'vitest';
import type { Dataset } from '../../src/core/schema.js';
import type { RecordedRequest } from './loopback-server.js';
import type { ServiceFault } from './memory-service-fake.js';
import { FakeMem0 } from './fake-mem0.js';
import { FakeProtocolService } from './fake-protocol-service.js';
import { SIDECAR_FIXTURES } from './sidecar-fixtures.js';

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
      const adds = peer.requests.filter((r) => peer.isAdd(r) && r.fault === null);
      // Every turn of the episode is added (once per owner), two messages per add, with rawrag's metadata.
      const owners = new Set(adds.map((a) => a.body.user_id as string));
      const messages = adds.reduce((n, a) => n + a.body.messages.length, 0);
      expect(messages).toBe(turnsOf(c).length * owners.size);
      for (const a of adds) expect(a.body.messages.length).toBeLessThanOrEqual(2);
      expect(adds.every((a) => typeof a.body.metadata?.rawrag_add === 'string')).toBe(true);
      const searches = peer.requests.filter((r) => r.path === '/search');
      expect(searches.length).toBe(c.questions * owners.size);
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
  // The paper's library-only opponents, each a sidecar in front of its library's stand-in (tests/helpers/sidecar-fixtures.ts).
  ...SIDECAR_FIXTURES,
};
