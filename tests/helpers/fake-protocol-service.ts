/**
 * A loopback service speaking rawrag's own memory protocol (src/systems/http/protocol.ts): /add,
 * /search, /list, /delete and the optional /ready, request bodies checked against the protocol's
 * request schemas (a missing or extra field is a 422, as a strict server would answer). One memory
 * per message; word-overlap search. It does not recognise a repeated add_id on purpose: an add
 * applied twice shows in `applied`, so a test sees whether rawrag ever sent one twice. With
 * `readyAfterPolls`, /ready answers `ready: false` that many times per owner first (a library that
 * indexes at the end).
 */
import type { z } from 'zod';
import type { RecordedRequest } from './loopback-server.js';
import { MemoryServiceFake } from './memory-service-fake.js';
import { AddRequest, OwnerRequest, SearchRequest } from '../../src/systems/http/protocol.js';

interface Memory {
  id: string;
  memory: string;
  date: string | null;
  turn_ids: string[];
  add_id: string;
}

const words = (s: string) => new Set(s.toLowerCase().match(/[a-z0-9]+/g) ?? []);

export class FakeProtocolService extends MemoryServiceFake {
  readonly owners = new Map<string, Memory[]>();
  readonly readyPolls = new Map<string, number>();

  constructor(private readonly opts: { readyAfterPolls?: number; noReady?: boolean; delayMs?: number } = {}) {
    super(opts.delayMs);
  }

  isAdd(r: RecordedRequest): boolean {
    return r.method === 'POST' && r.path === '/add';
  }

  totalHeld(): number {
    return [...this.owners.values()].reduce((n, m) => n + m.length, 0);
  }

  private checked<T>(schema: z.ZodType<T>, body: unknown): T | [number, unknown] {
    const r = schema.safeParse(body);
    return r.success ? r.data : [422, { detail: r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`) }];
  }

  protected route(r: RecordedRequest): [number, unknown] {
    if (r.method !== 'POST') return [405, { detail: 'method not allowed' }];
    switch (r.path) {
      case '/add': {
        const b = this.checked(AddRequest, r.body);
        if (Array.isArray(b)) return b;
        this.applied.push(`${b.owner} ${b.add_id}`);
        const list = this.owners.get(b.owner) ?? [];
        this.owners.set(b.owner, list);
        const events = b.messages.map((m, i) => {
          const mem = { id: `${b.owner}/${list.length}`, memory: m.content, date: b.date, turn_ids: [b.turn_ids[i]!], add_id: b.add_id };
          list.push(mem);
          return { id: mem.id, event: 'ADD', memory: mem.memory };
        });
        return [200, { events }];
      }
      case '/search': {
        const b = this.checked(SearchRequest, r.body);
        if (Array.isArray(b)) return b;
        if (this.blindSearch) return [200, { results: [] }];
        const q = words(b.query);
        const scored = (this.owners.get(b.owner) ?? []).map((m) => ({ ...m, score: [...words(m.memory)].filter((w) => q.has(w)).length }));
        return [200, { results: scored.sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : 1)).slice(0, b.limit) }];
      }
      case '/list': {
        const b = this.checked(OwnerRequest, r.body);
        if (Array.isArray(b)) return b;
        return [200, { memories: this.owners.get(b.owner) ?? [] }];
      }
      case '/delete': {
        const b = this.checked(OwnerRequest, r.body);
        if (Array.isArray(b)) return b;
        const n = this.owners.get(b.owner)?.length ?? 0;
        this.owners.delete(b.owner);
        return [200, { deleted: n, removed: [`${n} memories of ${b.owner}`] }];
      }
      case '/ready': {
        if (this.opts.noReady) return [404, { detail: 'Not Found' }];
        const b = this.checked(OwnerRequest, r.body);
        if (Array.isArray(b)) return b;
        const polls = (this.readyPolls.get(b.owner) ?? 0) + 1;
        this.readyPolls.set(b.owner, polls);
        const ready = polls > (this.opts.readyAfterPolls ?? 0);
        return [200, ready ? { ready: true } : { ready: false, state: `indexing (${polls})` }];
      }
      default:
        return [404, { detail: 'Not Found' }];
    }
  }
}
