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
import { FakeMemMachine } from './fake-memmachine.js';
import { FakeMemos } from './fake-memos.js';
import { FakeEverMemos } from './fake-evermemos.js';
import { FakeMemuCloud, FakeMemuServer } from './fake-memu.js';
import { FakeZepCloud } from './fake-zep.js';
import { FakeSupermemory } from './fake-supermemory.js';
import { FakeLetta } from './fake-letta.js';
import { checkLetta, checkLettaAgent, checkLettaArchival } from './letta-fixture.js';
import { isoUtc, unixSeconds } from '../../src/systems/memory-service/plan.js';
import { loaderCaptions, SIDECAR_FIXTURES } from './sidecar-fixtures.js';
import { COGNEE_FIXTURE } from './cognee-fixture.js';
import { LANGMEM_FIXTURE } from './langmem-fixture.js';

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
  /** The `--system` value when the fixture's key names a variant of it (`letta mode=archival`); default: the key. */
  system?: string;
  start(): Promise<ServicePeer>;
  /** `-S` pairs for a run against `peer` (url first). */
  options(peer: ServicePeer): string[];
  /** Environment the system needs (a key the peer checks). */
  env?: Record<string, string | undefined>;
  /** The vendor protocol, seen from the service's side: owners, roles, content, timestamps, batch sizes, waits, search depth. */
  checkProtocol(peer: ServicePeer, c: ProtocolCheck): void;
  /**
   * `applied` lists the items the library stored (a sidecar's stand-in), not the adds the service
   * performed: the kill -9 check then cannot count one applied entry per acknowledged add.
   */
  appliedIsItems?: true;
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
  memmachine: {
    // A small short-term memory, so searches also return its summary of evicted episodes.
    start: () => new FakeMemMachine({ stmCapacity: 4000 }).start(),
    options: (p) => [`url=${p.url}`],
    checkProtocol: checkMemMachine,
  },
  memos: {
    start: () => new FakeMemos().start(),
    options: (p) => [`url=${p.url}`],
    checkProtocol: checkMemos,
  },
  evermemos: {
    start: () => new FakeEverMemos().start(),
    options: (p) => [`url=${p.url}`],
    checkProtocol: checkEverMemos,
  },
  // MemU's hosted API as MemOS's client drives it (a memorize per session and speaker: many adds for the
  // fault cases); EverMemOS's protocol and memU-server are run in tests/slow/memu-run.test.ts.
  memu: {
    start: () => new FakeMemuCloud({ key: 'memu-suite-key' }).start(),
    options: (p) => [`url=${p.url}`, 'protocol=memos', 'poll_interval=0.02', 'lost_wait=1'],
    env: { MEMU_API_KEY: 'memu-suite-key' },
    checkProtocol: checkMemuMemos,
  },
  // The paper's library-only opponents, each a sidecar in front of its library's stand-in (tests/helpers/sidecar-fixtures.ts).
  ...SIDECAR_FIXTURES,
  // Zep's hosted API (its open-source engine, -S api=graphiti, runs in the real-library tier: tests/real/zep.test.ts).
  zep: {
    start: () => new FakeZepCloud({ key: 'zep-suite-key' }).start(),
    options: (p) => ['api=cloud', `url=${p.url}/api/v2`],
    env: { ZEP_API_KEY: 'zep-suite-key' },
    checkProtocol: checkZep,
  },
  supermemory: {
    start: () => new FakeSupermemory({ key: 'sm-suite-key' }).start(),
    options: (p) => [`url=${p.url}`],
    env: { SUPERMEMORY_API_KEY: 'sm-suite-key' },
    checkProtocol: checkSupermemory,
  },
  // Cognee's sidecar in front of cognee's stand-in (the real library: tests/real/cognee.test.ts).
  cognee: COGNEE_FIXTURE,
  // LangMem's sidecar in front of the stand-ins of langmem and langgraph (its real library: tests/real/langmem.test.ts).
  langmem: LANGMEM_FIXTURE,
  // Letta's V1 server (its real server, started for you, runs in the real-library tier: tests/real/letta.test.ts).
  letta: {
    start: () => new FakeLetta().start(),
    options: (p) => [`url=${p.url}`],
    checkProtocol: checkLetta,
  },
  // Letta's archival memory (-S mode=archival): a passage per session, searched directly.
  'letta mode=archival': {
    system: 'letta',
    start: () => new FakeLetta().start(),
    options: (p) => [`url=${p.url}`, 'mode=archival'],
    checkProtocol: checkLettaArchival,
  },
  // Letta's script whole (-S mode=agent): each question's agent answers through answer_question.
  'letta mode=agent': {
    system: 'letta',
    start: () => new FakeLetta().start(),
    options: (p) => [`url=${p.url}`, 'mode=agent'],
    checkProtocol: checkLettaAgent,
  },
};

type IndexedTurn = { turn: ReturnType<typeof turnsOf>[number]; index: number };

/** The ingested episodes' turns by episode and turn id (ids repeat across episodes), each with its position in its session. */
function turnIndex(c: ProtocolCheck): (addKey: string, turnId: string) => IndexedTurn {
  const byEpisode = new Map<string, Map<string, IndexedTurn>>();
  for (const e of c.dataset.episodes.filter((x) => c.episodes.includes(x.id))) {
    const m = new Map<string, IndexedTurn>();
    let session: string | null = null;
    let i = 0;
    for (const turn of e.turns) {
      i = turn.session === session ? i + 1 : 0;
      session = turn.session;
      m.set(turn.id, { turn, index: i });
    }
    byEpisode.set(e.id, m);
  }
  // An add's key is `<episode>[~speaker]#<n>`.
  return (addKey, turnId) => {
    const episode = addKey.slice(0, addKey.lastIndexOf('#')).replace(/~[^~]*$/, '');
    const hit = byEpisode.get(episode)?.get(turnId);
    if (!hit) throw new Error(`add ${addKey} names turn ${turnId}, not a turn of an ingested episode`);
    return hit;
  };
}

/**
 * MemMachine as restapiv2_locomo_ingest.py / restapiv2_locomo_search.py drive it: a project created
 * before its first add; per session, calls of 10 episodic messages (the session's last call fewer);
 * producer = speaker, timestamp = session time + i s, content = text + caption, string metadata;
 * searches with top_k 50, no context expansion, episodic only; no wait of any kind.
 */
function checkMemMachine(peer: ServicePeer, c: ProtocolCheck): void {
  const turns = turnIndex(c);
  const adds = peer.requests.filter((r) => peer.isAdd(r) && r.fault === null);
  const projects = new Set(adds.map((a) => `${a.body.org_id}/${a.body.project_id}`));
  expect(projects.size).toBe(c.episodes.length);
  for (const a of adds) expect(a.body.org_id).toBe('universal');
  for (const key of projects) {
    const created = peer.requests.findIndex((r) => r.path === '/api/v2/projects' && `${r.body.org_id}/${r.body.project_id}` === key);
    const firstAdd = peer.requests.findIndex((r) => peer.isAdd(r) && `${r.body.org_id}/${r.body.project_id}` === key);
    expect(created).toBeGreaterThanOrEqual(0);
    expect(created).toBeLessThan(firstAdd);
  }
  let messages = 0;
  for (const a of adds) {
    expect(a.body.types).toEqual(['episodic']);
    const sent = a.body.messages as Array<{ producer: string; timestamp: string; content: string; metadata: Record<string, string> }>;
    expect(sent.length).toBeGreaterThanOrEqual(1);
    expect(sent.length).toBeLessThanOrEqual(10);
    const sessionTurns = new Set<string>();
    for (const m of sent) {
      for (const v of Object.values(m.metadata)) expect(typeof v).toBe('string');
      const [id] = JSON.parse(m.metadata.turn_ids!) as string[];
      const { turn, index } = turns(m.metadata.rawrag_add!, id!);
      sessionTurns.add(turn.session);
      expect(m.producer).toBe(turn.speaker);
      expect(m.content).toBe(turn.text + turn.captions.map((x) => ` [Attached ${x}]`).join(''));
      expect(m.timestamp).toBe(isoUtc(unixSeconds(turn.date)! + index));
      expect(m.metadata).toMatchObject({ locomo_session_id: turn.session, source_timestamp: m.timestamp, source_speaker: turn.speaker });
      // A call of fewer than 10 is a session's last.
      if (sent.length < 10 && m === sent[sent.length - 1])
        expect(index + 1).toBe(
          c.dataset.episodes.find((e) => e.turns.includes(turn))!.turns.filter((t) => t.session === turn.session).length,
        );
    }
    expect(sessionTurns.size).toBe(1);
    messages += sent.length;
  }
  expect(messages).toBe(turnsOf(c).length);
  const searches = peer.requests.filter((r) => r.path === '/api/v2/memories/search');
  expect(searches.length).toBe(c.questions);
  for (const s of searches) {
    expect(s.body).toMatchObject({ top_k: 50, expand_context: 0, types: ['episodic'] });
    expect(projects.has(`${s.body.org_id}/${s.body.project_id}`)).toBe(true);
  }
}

/**
 * MemOS as locomo_ingestion.py / utils/client.py / locomo_search.py drive it: each conversation
 * twice, one owner per speaker (user_id = mem_cube_id), mirrored roles, "Speaker: text", chat_time
 * = the session date in ISO UTC, 2 messages per call, then both owners searched with top_k 20 and
 * mode fast — but synchronous adds (rawrag's deviation), so no search reaches an owner before its
 * last add was written, and nothing waits on the scheduler.
 */
function checkMemos(peer: ServicePeer, c: ProtocolCheck): void {
  const turns = turnIndex(c);
  const adds = peer.requests.filter((r) => peer.isAdd(r) && r.fault === null);
  const owners = new Set(adds.map((a) => a.body.user_id as string));
  expect(owners.size).toBe(2 * c.episodes.length);
  const perOwner = new Map<string, number>();
  for (const a of adds) {
    expect(a.body.mem_cube_id).toBe(a.body.user_id);
    expect(a.body.async_mode).toBe('sync');
    expect(typeof a.body.conversation_id).toBe('string');
    const sent = a.body.messages as Array<{ role: string; content: string; chat_time: string }>;
    expect(sent.length).toBeGreaterThanOrEqual(1);
    expect(sent.length).toBeLessThanOrEqual(2);
    const ids = a.body.info.turn_ids as string[];
    expect(ids).toHaveLength(sent.length);
    sent.forEach((m, i) => {
      const { turn } = turns(a.body.info.rawrag_add, ids[i]!);
      const own = (a.body.user_id as string).endsWith(`~${turn.speaker.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`);
      expect(m.role).toBe(own ? 'user' : 'assistant');
      expect(m.content).toBe(`${turn.speaker}: ${turn.text}`);
      expect(m.chat_time).toBe(isoUtc(unixSeconds(turn.date)!));
    });
    perOwner.set(a.body.user_id, (perOwner.get(a.body.user_id) ?? 0) + sent.length);
  }
  // Each owner holds its whole conversation: the episodes' turns, once per speaker.
  expect([...perOwner.values()].reduce((a, b) => a + b, 0)).toBe(2 * turnsOf(c).length);
  const searches = peer.requests.map((r, i) => [r, i] as const).filter(([r]) => r.path === '/product/search');
  expect(searches.length).toBe(2 * c.questions);
  for (const [s, i] of searches) {
    expect(s.body).toMatchObject({ top_k: 20, mode: 'fast', include_preference: true, pref_top_k: 6, mem_cube_id: s.body.user_id });
    const lastAdd = peer.requests.reduce((last, r, j) => (peer.isAdd(r) && r.body.user_id === s.body.user_id ? j : last), -1);
    expect(lastAdd).toBeLessThan(i);
  }
  expect(peer.requests.some((r) => r.path === '/product/scheduler/wait')).toBe(false);
  expect((peer as unknown as FakeMemos).searchesBeforeReady).toBe(0);
}

/**
 * EverMemOS as its loader (evaluation/src/core/loaders.py L127-265) builds a conversation and its
 * HTTP adapter sends it, mapped to v1: one group per conversation, one message per add in order,
 * message_id = the turn id, sender_id `<speaker lower, _>_<conversation>`, role user, the caption
 * before the text, timestamps 30 s apart squeezed into 90 % of the gap to the next session (in
 * unix ms); the group flushed after its last add and before its first search; searches agentic,
 * top_k 10, episodic memories of the group.
 */
function checkEverMemos(peer: ServicePeer, c: ProtocolCheck): void {
  const adds = peer.requests.filter((r) => peer.isAdd(r) && r.fault === null);
  const groups = [...new Set(adds.map((a) => a.body.group_id as string))];
  expect(groups).toHaveLength(c.episodes.length);
  for (const group of groups) {
    const ep = c.dataset.episodes.find((e) => c.episodes.includes(e.id) && group.endsWith(`-${e.id}`))!;
    expect(ep).toBeDefined();
    // The loader's clock, computed here from the dataset: session start + 30 s x position, within 90 % of the gap.
    const sessions = [...new Set(ep.turns.map((t) => t.session))];
    const starts = sessions.map((s) => unixSeconds(ep.turns.find((t) => t.session === s)!.date)!);
    const expected = new Map<string, number>();
    sessions.forEach((s, si) => {
      const turns = ep.turns.filter((t) => t.session === s);
      const gap = si + 1 < starts.length ? starts[si + 1]! - starts[si]! : Infinity;
      const step = turns.length > 1 && gap > 0 && 30 * (turns.length - 1) > 0.9 * gap ? (0.9 * gap) / (turns.length - 1) : 30;
      turns.forEach((t, i) => expected.set(t.id, Math.round((starts[si]! + i * step) * 1000)));
    });
    const mine = adds.filter((a) => a.body.group_id === group);
    const sent = mine.flatMap((a) => a.body.messages as Array<Record<string, any>>);
    for (const a of mine) expect(a.body.messages).toHaveLength(1);
    expect(sent.map((m) => m.message_id)).toEqual(ep.turns.map((t) => t.id));
    sent.forEach((m, i) => {
      const t = ep.turns[i]!;
      expect(m).toEqual({
        message_id: t.id,
        sender_id: `${t.speaker.toLowerCase().replace(/ /g, '_')}_${ep.id}`,
        sender_name: t.speaker,
        role: 'user',
        timestamp: expected.get(t.id),
        content:
          loaderCaptions(t)
            .map((x) => `[${t.speaker} shared an image: ${x}] `)
            .join('') + t.text,
      });
    });
    const at = (pred: (r: RecordedRequest) => boolean) => peer.requests.findIndex(pred);
    const lastAdd = peer.requests.reduce((last, r, j) => (peer.isAdd(r) && r.body?.group_id === group ? j : last), -1);
    const flush = at((r) => r.path === '/api/v1/memories/group/flush' && r.body?.group_id === group && r.fault === null);
    const firstSearch = at(
      (r) =>
        r.path === '/api/v1/memories/search' && r.body?.filters?.group_id === group && r.body?.memory_types?.includes('episodic_memory'),
    );
    expect(flush).toBeGreaterThan(lastAdd);
    expect(flush).toBeLessThan(firstSearch);
  }
  const searches = peer.requests.filter((r) => r.path === '/api/v1/memories/search' && r.body?.memory_types?.includes('episodic_memory'));
  expect(searches).toHaveLength(c.questions);
  for (const s of searches) {
    expect(s.body).toMatchObject({ method: 'agentic', memory_types: ['episodic_memory'], top_k: 10 });
    expect(groups).toContain(s.body.filters.group_id);
  }
  expect((peer as unknown as FakeEverMemos).searchesBeforeReady).toBe(0);
}

/** The requests `peer` saw whose path ends with `tail` (no fault). */
const seen = (peer: ServicePeer, tail: string) => peer.requests.filter((r) => r.fault === null && r.path.endsWith(tail));

/** Each owner's memorized messages in order must be its episode's turns, each as `render` writes it. */
function expectWholeHistory(adds: RecordedRequest[], c: ProtocolCheck, render: (t: ReturnType<typeof turnsOf>[number]) => string): void {
  const owners = [...new Set(adds.map((a) => a.body.user_id as string))];
  expect(owners).toHaveLength(2 * c.episodes.length);
  for (const o of owners) {
    const ep = c.dataset.episodes.find((e) => c.episodes.includes(e.id) && o.includes(`-${e.id}~`))!;
    const sent = adds.filter((a) => a.body.user_id === o).flatMap((a) => a.body.conversation as Array<{ role: string; content: string }>);
    expect(sent.map((m) => m.content)).toEqual(ep.turns.map(render));
    // The store's own speaker is `user`, the other `assistant` (mirrored between the two stores).
    const own = new Set(ep.turns.filter((_, i) => sent[i]!.role === 'user').map((t) => t.speaker));
    expect(own.size).toBe(1);
    expect(o.endsWith(`~${[...own][0]!.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`)).toBe(true);
    for (const m of sent) expect(['user', 'assistant']).toContain(m.role);
  }
}

/** Every memorize's task polled to success before any search of its owner; searches never met a running task. */
function expectPolledBeforeSearch(peer: ServicePeer, statusOk: string): void {
  const adds = peer.requests.filter((r) => peer.isAdd(r) && r.fault === null);
  const polls = peer.requests.filter((r) => r.method === 'GET' && r.path.includes('/memorize/status/') && r.fault === null);
  expect(polls.length).toBeGreaterThanOrEqual(adds.length);
  expect((peer as unknown as { searchesBeforeReady: number }).searchesBeforeReady).toBe(0);
  expect(statusOk).toMatch(/SUCCESS|COMPLETED/);
}

/**
 * MemU's hosted API as MemOS's utils/client.py drives it through the memu-py SDK (/api/v2/memory):
 * per session and speaker one memorize {conversation_text: null, conversation [{role, "Speaker: text",
 * time: null}], user_name = user_id, agent assistant_001, session_date = the session's ISO UTC time},
 * Bearer key; each task polled to SUCCESS before the owner's next memorize and before any search;
 * both owners searched with top_k 20 and min_similarity 0.1.
 */
function checkMemuMemos(peer: ServicePeer, c: ProtocolCheck): void {
  const adds = peer.requests.filter((r) => peer.isAdd(r) && r.fault === null);
  for (const a of adds) {
    expect(a.path).toBe('/api/v2/memory/memorize');
    expect(a.headers.authorization).toBe('Bearer memu-suite-key');
    expect(a.body).toMatchObject({
      conversation_text: null,
      agent_id: 'assistant_001',
      agent_name: 'assistant_001',
      user_name: a.body.user_id,
    });
    for (const m of a.body.conversation) expect(m.time).toBeNull();
  }
  expectWholeHistory(adds, c, (t) => `${t.speaker}: ${t.text}`);
  // One memorize per session and owner, dated by its session (the owner's adds walk its episode's turns in order).
  for (const o of new Set(adds.map((a) => a.body.user_id as string))) {
    const ep = c.dataset.episodes.find((e) => c.episodes.includes(e.id) && o.includes(`-${e.id}~`))!;
    let at = 0;
    for (const a of adds.filter((x) => x.body.user_id === o)) {
      const first = ep.turns[at]!;
      expect(a.body.conversation).toHaveLength(ep.turns.filter((t) => t.session === first.session).length);
      expect(a.body.session_date).toBe(isoUtc(unixSeconds(first.date)!));
      at += a.body.conversation.length;
    }
  }
  expectPolledBeforeSearch(peer, 'SUCCESS');
  const searches = seen(peer, '/retrieve/related-memory-items');
  expect(searches).toHaveLength(2 * c.questions);
  for (const s of searches)
    expect(s.body).toMatchObject({
      agent_id: 'assistant_001',
      top_k: 20,
      min_similarity: 0.1,
      include_categories: null,
      query: expect.any(String),
    });
  expect(new Set(searches.map((s) => s.body.user_id))).toEqual(new Set(adds.map((a) => a.body.user_id)));
}

type LocomoTurn = ReturnType<typeof turnsOf>[number];

/** EverMemOS's content: the image caption before the text (its loader), then "Speaker: " (its adapter). */
const evermemosText = (t: LocomoTurn) =>
  `${t.speaker}: ${loaderCaptions(t)
    .map((x) => `[${t.speaker} shared an image: ${x}] `)
    .join('')}${t.text}`;

/** Unix seconds EverMemOS's loader gives each turn of `turns`: the session's time + 30 s per turn, within 90 % of the gap to the next. */
function evermemosSeconds(turns: LocomoTurn[]): number[] {
  const sessions: LocomoTurn[][] = [];
  for (const t of turns) {
    const last = sessions[sessions.length - 1];
    if (last && last[0]!.session === t.session) last.push(t);
    else sessions.push([t]);
  }
  return sessions.flatMap((s, i) => {
    const start = unixSeconds(s[0]!.date)!;
    const next = i + 1 < sessions.length ? unixSeconds(sessions[i + 1]![0]!.date) : null;
    const n = s.length;
    const gap = next === null ? null : next - start;
    const step = n <= 1 ? 0 : gap === null || gap <= 0 || 30 * (n - 1) <= gap * 0.9 ? 30 : (gap * 0.9) / (n - 1);
    return s.map((_, k) => start + k * step);
  });
}

/**
 * MemU's hosted API as EverMemOS's memu_adapter.py drives it (/api/v0/memory, Bearer): one memorize
 * per speaker's store holding the whole conversation {role mirrored, content "Speaker: [caption] text",
 * name, time = loader time + "Z"}, user_name the store's speaker, agent evaluation_agent_04 /
 * "Memory Evaluation Assistant", session_date the first day; each task polled to SUCCESS before any
 * search; both stores searched with top_k 20 and min_similarity 0.3, each followed by its category overview.
 */
function checkMemuEvermemos(peer: ServicePeer, c: ProtocolCheck): void {
  const adds = peer.requests.filter((r) => peer.isAdd(r) && r.fault === null);
  expect(adds).toHaveLength(2 * c.episodes.length);
  expectWholeHistory(adds, c, evermemosText);
  for (const a of adds) {
    expect(a.path).toBe('/api/v0/memory/memorize');
    expect(a.headers.authorization).toBe('Bearer memu-suite-key');
    expect(a.body).toMatchObject({ agent_id: 'evaluation_agent_04', agent_name: 'Memory Evaluation Assistant' });
    const ep = c.dataset.episodes.find((e) => c.episodes.includes(e.id) && (a.body.user_id as string).includes(`-${e.id}~`))!;
    const sent = a.body.conversation as Array<{ role: string; name: string; time: string }>;
    const seconds = evermemosSeconds(ep.turns);
    sent.forEach((m, i) => {
      expect(m.name).toBe(ep.turns[i]!.speaker);
      expect(m.time.endsWith('Z')).toBe(true);
      expect(Math.abs(Date.parse(m.time) / 1000 - seconds[i]!)).toBeLessThan(0.01);
    });
    expect(a.body.user_name).toBe(ep.turns[sent.findIndex((m) => m.role === 'user')]!.speaker);
    expect(a.body.session_date).toBe(new Date(seconds[0]! * 1000).toISOString().slice(0, 10));
  }
  expectPolledBeforeSearch(peer, 'SUCCESS');
  const searches = seen(peer, '/retrieve/related-memory-items');
  expect(searches).toHaveLength(2 * c.questions);
  for (const s of searches) {
    expect(s.body).toMatchObject({ agent_id: 'evaluation_agent_04', top_k: 20, min_similarity: 0.3, query: expect.any(String) });
    expect('include_categories' in s.body).toBe(false);
  }
  const overviews = seen(peer, '/retrieve/default-categories').filter((r) => r.body.want_memory_items === true);
  expect(overviews.length).toBeGreaterThanOrEqual(2 * c.questions);
}

/**
 * memU-server (fixed): one owner per conversation, its whole history in one POST /memorize
 * {conversation [{role, content {text}, created_at "YYYY-MM-DD HH:MM:SS"}], user_id, agent_id}, the
 * task polled to COMPLETED; POST /retrieve {query} only, while the server holds that one owner; the
 * owner cleared (POST /clear {user_id}) after its questions and before the next conversation's memorize.
 */
function checkMemuServer(peer: ServicePeer, c: ProtocolCheck): void {
  const adds = peer.requests.filter((r) => peer.isAdd(r) && r.fault === null);
  expect(adds).toHaveLength(c.episodes.length);
  for (const a of adds) {
    const ep = c.dataset.episodes.find((e) => c.episodes.includes(e.id) && (a.body.user_id as string).endsWith(`-${e.id}`))!;
    const sent = a.body.conversation as Array<{ role: string; content: { text: string }; created_at: string }>;
    expect(sent.map((m) => m.content.text)).toEqual(ep.turns.map(evermemosText));
    const seconds = evermemosSeconds(ep.turns);
    sent.forEach((m, i) => {
      expect(m.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{6})?$/);
      expect(Math.abs(Date.parse(`${m.created_at.replace(' ', 'T')}Z`) / 1000 - seconds[i]!)).toBeLessThan(0.01);
    });
    expect(a.body.agent_id).toBe('evaluation_agent_04');
  }
  expectPolledBeforeSearch(peer, 'COMPLETED');
  const retrieves = seen(peer, '/retrieve');
  expect(retrieves).toHaveLength(c.questions);
  for (const r of retrieves) expect(Object.keys(r.body)).toEqual(['query']);
  expect(new Set((peer as unknown as FakeMemuServer).usersAtRetrieve)).toEqual(new Set([1]));
  // Each owner cleared before the next conversation is memorized.
  const at = (pred: (r: RecordedRequest) => boolean) => peer.requests.findIndex(pred);
  for (let i = 0; i + 1 < adds.length; i++) {
    const cleared = at((r) => r.path === '/clear' && r.body?.user_id === adds[i]!.body.user_id);
    expect(cleared).toBeGreaterThan(peer.requests.indexOf(adds[i]!));
    expect(cleared).toBeLessThan(peer.requests.indexOf(adds[i + 1]!));
  }
}

/** MemU's other variants (tests/slow/memu-run.test.ts): the hosted API as EverMemOS drives it (the default), memU-server as upstream ships it, and fixed. */
export const MEMU_VARIANTS: Record<'evermemos' | 'server' | 'serverFixed', ServiceFixture> = {
  evermemos: {
    start: () => new FakeMemuCloud({ key: 'memu-suite-key' }).start(),
    options: (p) => [`url=${p.url}`, 'poll_interval=0.02', 'lost_wait=1'],
    env: { MEMU_API_KEY: 'memu-suite-key' },
    checkProtocol: checkMemuEvermemos,
  },
  server: {
    start: () => new FakeMemuServer().start(),
    options: (p) => [`url=${p.url}`, 'api=server', 'poll_interval=0.02', 'lost_wait=1'],
    checkProtocol: checkMemuServer,
  },
  serverFixed: {
    start: () => new FakeMemuServer({ fixed: true }).start(),
    options: (p) => [`url=${p.url}`, 'api=server', 'poll_interval=0.02', 'lost_wait=1'],
    checkProtocol: checkMemuServer,
  },
};

/**
 * Zep as zep_locomo_ingestion.py / zep_locomo_search.py (getzep/zep-papers@4b7f26cc) drive it: one
 * graph per conversation, created before its first add; one `message` episode per turn, `Speaker:
 * text` without captions, created_at = the session's date in ISO UTC; every episode processed
 * (listed) before the first search; each question searched twice: edges with the cross-encoder
 * and nodes with RRF, 20 each.
 */
function checkZep(peer: ServicePeer, c: ProtocolCheck): void {
  const turns = turnIndex(c);
  const adds = peer.requests.filter((r) => peer.isAdd(r) && r.fault === null);
  const graphs = new Set(adds.map((a) => a.body.graph_id as string));
  expect(graphs.size).toBe(c.episodes.length);
  for (const g of graphs) {
    const created = peer.requests.findIndex((r) => r.path === '/api/v2/graph/create' && r.body.graph_id === g);
    const firstAdd = peer.requests.findIndex((r) => peer.isAdd(r) && r.body.graph_id === g);
    expect(created).toBeGreaterThanOrEqual(0);
    expect(created).toBeLessThan(firstAdd);
  }
  const seen = new Set<string>();
  for (const a of adds) {
    const ids = a.body.metadata.turn_ids as string[];
    expect(ids).toHaveLength(1);
    const { turn } = turns(a.body.metadata.rawrag_add, ids[0]!);
    expect(a.body).toMatchObject({ type: 'message', data: `${turn.speaker}: ${turn.text}`, created_at: isoUtc(unixSeconds(turn.date)!) });
    seen.add(`${a.body.graph_id} ${ids[0]}`);
  }
  expect(seen.size).toBe(turnsOf(c).length);
  const searches = peer.requests.filter((r) => r.path === '/api/v2/graph/search' && r.fault === null);
  expect(searches.length).toBe(c.questions * 2);
  expect(searches.filter((s) => s.body.scope === 'edges').every((s) => s.body.reranker === 'cross_encoder' && s.body.limit === 20)).toBe(
    true,
  );
  expect(searches.filter((s) => s.body.scope === 'nodes').every((s) => s.body.reranker === 'rrf' && s.body.limit === 20)).toBe(true);
  expect(searches.filter((s) => s.body.scope === 'nodes')).toHaveLength(c.questions);
  const firstSearch = peer.requests.findIndex((r) => r.path === '/api/v2/graph/search');
  const listed = peer.requests.findIndex((r) => r.path.startsWith('/api/v2/graph/episodes/graph/'));
  expect(listed).toBeGreaterThanOrEqual(0);
  expect(listed).toBeLessThan(firstSearch);
}

/**
 * Supermemory as memorybench's provider drives it (supermemoryai/memorybench@25729a76): one
 * document per session in the conversation's container, "Here is the date ..." then the session's
 * messages as JSON (user = speaker_a, text only, < > escaped), metadata {sessionId, date}; every
 * document read back `done` before the first search; each question one /v4/search, limit 10,
 * threshold 0.3, with chunks.
 */
function checkSupermemory(peer: ServicePeer, c: ProtocolCheck): void {
  const adds = peer.requests.filter((r) => peer.isAdd(r) && r.fault === null);
  const tags = new Set(adds.map((a) => a.body.containerTag as string));
  expect(tags.size).toBe(c.episodes.length);
  const turns = turnsOf(c);
  const sessions = [...new Set(turns.map((t) => t.session))];
  const sent = new Map(adds.map((a) => [a.body.metadata.sessionId as string, a.body]));
  expect([...sent.keys()].sort()).toEqual([...sessions].sort());
  const ep = c.dataset.episodes.find((e) => c.episodes.includes(e.id))!;
  const speakerA = (ep.meta!.speakers as string[])[0]!;
  for (const s of sessions) {
    const st = turns.filter((t) => t.session === s);
    const body = sent.get(s)!;
    const json = JSON.stringify(
      st.map((t) => ({ role: t.speaker === speakerA ? 'user' : 'assistant', content: t.text, speaker: t.speaker })),
    )
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;');
    expect(body.content).toMatch(
      /^Here is the date the following session took place: \d{1,2}:\d\d [ap]m on \d{1,2} \w+, \d{4}\n\nHere is the session as a stringified JSON:\n/,
    );
    expect(body.content.endsWith(json)).toBe(true);
    expect(body.metadata.date).toBe(new Date(unixSeconds(st[0]!.date)! * 1000).toISOString());
  }
  const searches = peer.requests.filter((r) => r.path === '/v4/search' && r.fault === null);
  expect(searches).toHaveLength(c.questions);
  for (const q of searches) expect(q.body).toMatchObject({ limit: 10, threshold: 0.3, include: { chunks: true } });
  const firstSearch = peer.requests.findIndex((r) => r.path === '/v4/search');
  const lastRead = peer.requests
    .map((r, i) => [r, i] as const)
    .filter(([r]) => r.path === '/v3/documents/list')
    .map(([, i]) => i);
  expect(lastRead.some((i) => i < firstSearch)).toBe(true);
}
