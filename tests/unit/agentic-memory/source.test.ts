/**
 * The agentic memory source end to end against a loopback OpenAI-compatible server: real SDK
 * requests for extraction and embeddings, real SQLite stores in a temp run directory.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { baseItem } from '../../../src/core/item.js';
import { createAgenticMemorySource } from '../../../src/systems/agentic-memory/source.js';
import { MemoryStore } from '../../../src/systems/agentic-memory/store.js';
import { ProviderSession } from '../../../src/providers/session.js';
import { CACHE_FILE } from '../../../src/providers/cache.js';
import { InputError } from '../../../src/util/errors.js';
import { tempDir } from '../../helpers/cli.js';
import { FakeExtractor, isExtractionRequest } from '../../helpers/fake-extractor.js';
import {
  BERLIN,
  DOG,
  PARIS,
  contextFor,
  fixtureScript,
  ingested,
  memoryConfigFor,
  memoryEpisode,
  question,
  sessionFor,
} from './fixture.js';

let fake: FakeExtractor;
let runDir: string;
let cacheDir: string;

beforeEach(async () => {
  fake = await new FakeExtractor(fixtureScript()).start();
  runDir = tempDir('rawrag-mem-run-');
  cacheDir = tempDir('rawrag-mem-cache-');
});
afterEach(async () => {
  await fake.close();
});

async function openOnce(cfg = memoryConfigFor()) {
  const session = sessionFor(fake.url, cacheDir);
  const source = await createAgenticMemorySource(cfg, session, { runDir });
  const ep = ingested(memoryEpisode());
  return { session, source, ep, open: () => source.open(ep, contextFor(cfg)) };
}

describe('agentic memory source', () => {
  it('a malformed extraction is a batch error (recorded, later batches wait), and the retry re-extracts only that batch', async () => {
    const first = await openOnce();
    await expect(first.open()).rejects.toThrow(/extraction failed for 1 of 8 batches of conv-m .*D5:1\.\.D5:2.*not JSON/);
    expect(first.session.usage.report().extract!.requests).toBe(8);
    // The reader's row counts answers only.
    expect(first.session.usage.report().reader).toBeUndefined();
    await first.source.close?.();
    first.session.close();

    const store = new MemoryStore(join(runDir, 'memory.sqlite'));
    const rows = store.db.prepare('SELECT batch_key, status, error FROM extractions ORDER BY batch_index').all() as Array<{
      batch_key: string;
      status: string;
      error: string | null;
    }>;
    // Sessions 1-4 stored, session 5 failed, sessions 6-8 not applied (their replies are cached).
    expect(rows.map((r) => `${r.batch_key}:${r.status}`)).toEqual(['t0-1:ok', 't2-3:ok', 't4-5:ok', 't6-7:ok', 't8-9:error']);
    expect(rows[4]!.error).toMatch(/not JSON/);
    // Nothing extracted from session 5 stands in for its memory.
    expect(store.memories('conv-m').map((m) => m.content)).toEqual([DOG, PARIS]);
    store.close();

    fake.api.requests.length = 0;
    const second = await openOnce();
    const evidence = await second.open();
    // Only the failed batch went out again; batches 6-8 came from the response cache.
    expect(fake.extractionRequests().map((r) => r.body.messages[1].content.split('\n')[1])).toEqual([expect.stringMatching(/^\(D5:1\)/)]);
    expect(fake.attempts.get('D5:1')).toBe(2);
    expect(evidence.ingest).toMatchObject({ extraction_batches: 4, extraction_requests: 1, extraction_cache_hits: 3 });
    await second.source.close?.();
    second.session.close();

    // A third opening (a resumed or repeated run) sends nothing at all.
    fake.api.requests.length = 0;
    const third = await openOnce();
    await third.open();
    expect(fake.api.requests.filter(isExtractionRequest)).toHaveLength(0);
    await third.source.close?.();
    third.session.close();
  });

  it('stores every item with its source event; merges the duplicate; supersedes Paris by Berlin; drops low confidence', async () => {
    const { source, session, open } = await openOnce();
    await open().catch(() => undefined);
    await open();
    const report = source.report!() as { memory: { items: Record<string, number>; ingest: Record<string, number | null> } };
    await source.close?.();
    session.close();
    const store = new MemoryStore(join(runDir, 'memory.sqlite'));
    const all = store.memories('conv-m');
    const byContent = new Map(all.map((m) => [m.content, m]));
    const dog = byContent.get(DOG)!;
    expect(dog.merged_count).toBe(1);
    expect(dog.source_turns).toEqual(['D1:1', 'D2:1']);
    expect(dog.importance).toBe(0.8);
    expect(dog.entities).toEqual(['caroline', 'rex']);
    const paris = byContent.get(PARIS)!;
    const berlin = byContent.get(BERLIN)!;
    expect(paris.status).toBe('superseded');
    expect(paris.superseded_by).toBe(berlin.memory_id);
    expect(berlin.status).toBe('active');
    expect(berlin.attribute).toBe('caroline.home_city');
    expect(berlin.created_at).toBe('12 June, 2023');
    // Every item's source event is in the event log, with the turn it came from.
    for (const m of all) {
      const ev = store.event(m.source_event_id)!;
      expect(ev.turn_ids).toEqual([m.source_turns[0]]);
      expect(ev.event_type).toBe('message');
    }
    expect(store.event('conv-m/D7:1')!.content).toContain('moved to Berlin');
    expect(byContent.has('Melanie might like dogs.')).toBe(false);
    expect(report.memory.items).toMatchObject({ stored: 4, active: 3, superseded: 1, merged: 1, dropped: 1, events: 16 });
    // What was sent: 8 requests, then the malformed batch once more; the 3 batches applied from the cache are not calls.
    expect(report.memory.ingest.extraction_calls).toBe(9);
    expect(report.memory.ingest.cache_hits).toBe(3);
    expect(report.memory.ingest.failed_batches).toBe(0);
    expect(report.memory.ingest.cost_usd).toBeGreaterThan(0);
    // The extraction log's request key is the response cache's key for that reply.
    const keys = (store.db.prepare('SELECT request_key FROM extractions').all() as Array<{ request_key: string }>).map(
      (r) => r.request_key,
    );
    store.close();
    const cache = new Database(join(cacheDir, CACHE_FILE), { readonly: true });
    for (const k of keys) expect(cache.prepare('SELECT 1 FROM responses WHERE key = ?').get(k)).toBeTruthy();
    cache.close();
  });

  it('recall: never a superseded item unless asked; score parts, coverage, pollution and the block on the item', async () => {
    const cfg = memoryConfigFor();
    const { source, session, open } = await openOnce(cfg);
    await open().catch(() => undefined);
    const ev = await open();
    const q = question('Where does Caroline live now?', ['D7:1']);
    const item = baseItem(q, 'locomo');
    const evidence = await ev.evidenceFor(q, item, contextFor(cfg));
    expect(item.recalled!.map((r) => r.content)).not.toContain(PARIS);
    expect(item.recalled![0]!.content).toBe(BERLIN);
    expect(item.recalled![0]!.parts.entity).toBe(1);
    expect(item.recalled![0]!.turns).toEqual(['D7:1']);
    expect(item.retrieved).toEqual([]);
    expect(item.coverage).toEqual({ all: true, any: true });
    // The entity gate: Caroline's 2 active items injected (not Melanie's), only Berlin's source holds gold evidence.
    expect(item.recalled).toHaveLength(2);
    expect(item.metrics.pollution).toBeCloseTo(1 / 2, 10);
    expect(evidence.blocks).toHaveLength(1);
    expect(evidence.blocks[0]!.kind).toBe('memory');
    expect(evidence.blocks[0]!.text).toMatch(
      /^Recalled background \(from memory; where it conflicts with the current conversation, the conversation wins\):\n- \[12 June, 2023\] Caroline moved to Berlin/,
    );
    expect(item.evidence_tokens).toBe(evidence.tokens);
    expect(item.evidence_turns).toEqual(['D1:1', 'D2:1', 'D5:2', 'D7:1'].filter((t) => item.recalled!.some((r) => r.turns.includes(t))));
    // No gold evidence: pollution unknown, coverage unknown.
    const q2 = question('What does Melanie paint?', []);
    const item2 = baseItem(q2, 'locomo');
    await ev.evidenceFor(q2, item2, contextFor(cfg));
    expect(item2.metrics.pollution).toBeNull();
    expect(item2.coverage).toBeNull();
    await source.close?.();
    session.close();

    // Asked for: superseded items may be recalled (same store, same vectors).
    const withOld = memoryConfigFor({ memory: { includeSuperseded: true } });
    const s2 = sessionFor(fake.url, cacheDir);
    const src2 = await createAgenticMemorySource(withOld, s2, { runDir });
    const ev2 = await src2.open(ingested(memoryEpisode()), contextFor(withOld));
    const item3 = baseItem(q, 'locomo');
    const block = await ev2.evidenceFor(q, item3, contextFor(withOld));
    expect(item3.recalled!.map((r) => r.content)).toContain(PARIS);
    expect(block.blocks[0]!.text).toContain('Caroline lives in Paris. (superseded by a newer memory)');
    await src2.close?.();
    s2.close();
  });

  it('other validation or recall knobs in a new run directory rebuild the store from cached replies: no extraction is paid twice', async () => {
    const first = await openOnce();
    await first.open().catch(() => undefined);
    await first.open();
    await first.source.close?.();
    first.session.close();
    fake.api.requests.length = 0;
    const cfg = memoryConfigFor({
      memory: { dedupThreshold: 0.99, items: 2, tokens: 300, weights: { cosine: 1, entity: 0, recency: 0, importance: 0 } },
    });
    const session = sessionFor(fake.url, cacheDir);
    const source = await createAgenticMemorySource(cfg, session, { runDir: tempDir('rawrag-mem-run2-') });
    const ev = await source.open(ingested(memoryEpisode()), contextFor(cfg));
    expect(fake.extractionRequests()).toHaveLength(0);
    expect(ev.ingest).toMatchObject({ extraction_batches: 8, extraction_requests: 0, extraction_cache_hits: 8 });
    const item = baseItem(question('Where does Caroline live now?', ['D7:1']), 'locomo');
    await ev.evidenceFor(question('Where does Caroline live now?', ['D7:1']), item, contextFor(cfg));
    expect(item.recalled).toHaveLength(2);
    expect(item.recalled![0]!.score).toBeCloseTo(item.recalled![0]!.parts.cos, 6);
    await source.close?.();
    session.close();
  });

  it('ingests only the visible turns (a horizon before session 7 still knows Paris as current)', async () => {
    const cfg = memoryConfigFor();
    const session = sessionFor(fake.url, cacheDir);
    const source = await createAgenticMemorySource(cfg, session, { runDir });
    // Horizon 10 turns = sessions 1-5: session 5 fails first, then succeeds.
    const ep = ingested(memoryEpisode(), 10);
    await source.open(ep, contextFor(cfg)).catch(() => undefined);
    const ev = await source.open(ep, contextFor(cfg));
    const q = question('Where does Caroline live?', ['D3:1'], { visibleTurns: 10 });
    const item = baseItem(q, 'locomo');
    await ev.evidenceFor(q, item, contextFor(cfg));
    expect(item.recalled!.map((r) => r.content)).toContain(PARIS);
    expect(item.recalled!.map((r) => r.content).join(' ')).not.toContain('Berlin');
    const asked = fake.extractionRequests().map((r) => r.body.messages[1].content as string);
    expect(asked.some((t) => t.includes('(D6:1)') || t.includes('(D7:1)'))).toBe(false);
    await source.close?.();
    session.close();
  });

  it('429 and 500 replies are retried through the provider layer', async () => {
    fake.api.inject({ kind: 'status', status: 429, headers: { 'retry-after': '0' }, match: isExtractionRequest });
    fake.api.inject({ kind: 'status', status: 500, match: isExtractionRequest });
    const { source, session, open } = await openOnce();
    await open().catch(() => undefined);
    await open();
    expect(
      fake
        .extractionRequests()
        .filter((r) => r.fault !== null)
        .map((r) => r.fault),
    ).toEqual(['status 429', 'status 500']);
    expect(session.usage.report().extract!.retries).toBe(2);
    const store = new MemoryStore(join(runDir, 'memory.sqlite'));
    expect(store.totals()).toMatchObject({ batches_ok: 8, batches_error: 0 });
    store.close();
    await source.close?.();
    session.close();
  });

  it('purge deletes an owner physically: no row, and no trace of its text in the database file', async () => {
    const { source, session, open } = await openOnce();
    await open().catch(() => undefined);
    await open();
    await source.close?.();
    session.close();
    const path = join(runDir, 'memory.sqlite');
    const store = new MemoryStore(path);
    expect(store.ownerCounts('conv-m')).toEqual({ events: 16, memories: 4, extractions: 8 });
    const removed = store.purgeOwner('conv-m');
    expect(removed).toEqual({ events: 16, memories: 4, extractions: 8 });
    store.close();
    const reread = new MemoryStore(path, { readonly: true });
    expect(reread.ownerCounts('conv-m')).toEqual({ events: 0, memories: 0, extractions: 0 });
    reread.close();
    for (const f of readdirSync(runDir).filter((n) => n.startsWith('memory.sqlite'))) {
      expect(readFileSync(join(runDir, f)).includes('Berlin')).toBe(false);
    }
  });

  it('vectors: the remote embedder with its key, else the embedded sentence encoder (said in the notes)', async () => {
    const cfg = memoryConfigFor();
    const remote = await createAgenticMemorySource(cfg, sessionFor(fake.url, cacheDir), { runDir });
    expect(remote.name).toBe('agentic-memory/gpt-4o-mini+openai:text-embedding-3-small');
    expect(remote.system).toBe('agentic-memory/gpt-4o-mini');
    expect(remote.capabilities).toEqual({
      remote: true,
      llmAtIngest: true,
      questionRole: 'embed',
      ranksWindows: false,
      cheapDeepRanking: false,
      configSections: ['memory'],
    });
    // No OpenAI key: the extractor runs on a keyless local endpoint, the embeddings fall back to the local encoder.
    const keyless = new ProviderSession({ cacheDir, baseUrls: { reader: `${fake.url}/v1` }, env: {} });
    const local = await createAgenticMemorySource(cfg, keyless, { runDir });
    expect(local.name).toBe('agentic-memory/gpt-4o-mini+local:universal-sentence-encoder-lite');
    expect(local.notes.join(' ')).toMatch(
      /memory embeddings: retriever 'openai' unavailable \(embed model 'text-embedding-3-small' needs OPENAI_API_KEY.*embedded sentence encoder/,
    );
    expect(readdirSync(runDir)).toEqual([]);
    keyless.close();
  });

  it('without a key or endpoint: an InputError naming what is missing, before anything is written', async () => {
    const cfg = memoryConfigFor();
    const session = new ProviderSession({ cacheDir, env: {} });
    await expect(createAgenticMemorySource(cfg, session, { runDir })).rejects.toThrow(InputError);
    await expect(createAgenticMemorySource(cfg, session, { runDir })).rejects.toThrow(
      /-S extractor: agentic memory cannot extract: extractor model 'gpt-4o-mini' needs OPENAI_API_KEY/,
    );
    const noModel = memoryConfigFor({ reader: { model: null } });
    await expect(createAgenticMemorySource(noModel, session, { runDir })).rejects.toThrow(/give -S extractor=MODEL/);
    expect(readdirSync(runDir)).toEqual([]);
    expect(existsSync(join(cacheDir, CACHE_FILE))).toBe(false);
    session.close();
  });
});
