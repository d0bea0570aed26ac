/**
 * The ten defects an audit of the agentic memory system found (issue 25), each as a test against
 * the loopback extractor (real SDK requests, real SQLite stores, real response cache), in process.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { baseItem } from '../../../src/core/item.js';
import type { Episode } from '../../../src/core/schema.js';
import { createAgenticMemorySource } from '../../../src/systems/agentic-memory/source.js';
import { MemoryStore } from '../../../src/systems/agentic-memory/store.js';
import { purgeStoreOwner, showStore } from '../../../src/systems/agentic-memory/inspect.js';
import { estimateExtraction } from '../../../src/systems/agentic-memory/estimate.js';
import { MemorySchema } from '../../../src/systems/agentic-memory/config.js';
import { EntityAligner } from '../../../src/systems/agentic-memory/entities.js';
import { isKeyAttribute } from '../../../src/systems/agentic-memory/forget.js';
import { memoryIngestLines } from '../../../src/systems/agentic-memory/summary.js';
import { acquireRunLock } from '../../../src/run-files/lock.js';
import { CACHE_FILE } from '../../../src/providers/cache.js';
import { ProviderSession } from '../../../src/providers/session.js';
import { loadRunInputs } from '../../../src/pipeline/plan.js';
import { RunConfigSchema } from '../../../src/systems/registry.js';
import { run as cli } from '../../../src/cli/main.js';
import { ROOT, tempDir } from '../../helpers/cli.js';
import { embedText } from '../../helpers/fake-api.js';
import { FakeExtractor, item, segmentOf } from '../../helpers/fake-extractor.js';
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

let fake: FakeExtractor | null = null;
let runDir: string;
let cacheDir: string;

beforeEach(() => {
  runDir = tempDir('rawrag-audit-run-');
  cacheDir = tempDir('rawrag-audit-cache-');
});
afterEach(async () => {
  await fake?.close();
  fake = null;
  vi.restoreAllMocks();
});

async function serve(opts: ConstructorParameters<typeof FakeExtractor>[0]): Promise<FakeExtractor> {
  fake = await new FakeExtractor(opts).start();
  return fake;
}

/** Opens the episode through a fresh source (as a run or a resume would), `times` times, ignoring a failed first opening. */
async function build(
  ep: Episode = memoryEpisode(),
  cfg = memoryConfigFor(),
  env: Record<string, string> = {},
): Promise<{ report: any; usage: Record<string, any>; evidence: any }> {
  const session = sessionFor(fake!.url, cacheDir, env);
  const source = await createAgenticMemorySource(cfg, session, { runDir });
  let evidence: any = null;
  try {
    evidence = await source.open(ingested(ep), contextFor(cfg));
  } catch {
    evidence = null;
  }
  const report = source.report!() as any;
  const usage = session.usage.report();
  await source.close?.();
  session.close();
  return { report, usage, evidence };
}

const storeFiles = (dir: string, base: string) =>
  readdirSync(dir)
    .filter((n) => n.startsWith(base))
    .map((n) => join(dir, n));
const anyFileHolds = (files: string[], text: string) => files.some((f) => readFileSync(f).includes(text));

describe('1. purge and the run lock', () => {
  it('a purge while a run holds the directory is refused, and changes nothing', async () => {
    await serve(fixtureScript());
    await build();
    await build();
    const lock = acquireRunLock(runDir, 'run locomo --system agentic-memory');
    try {
      await expect(purgeStoreOwner(runDir, 'conv-m', { cacheDir })).rejects.toThrow(
        /in use by pid \d+ .*run locomo --system agentic-memory/,
      );
    } finally {
      lock.release();
    }
    const s = new MemoryStore(join(runDir, 'memory.sqlite'), { readonly: true });
    expect(s.ownerCounts('conv-m')).toEqual({ events: 16, memories: 4, extractions: 8 });
    s.close();
    // Once the run is gone, the purge goes through (and takes the lock itself meanwhile).
    expect(await purgeStoreOwner(runDir, 'conv-m', { cacheDir })).toMatch(/^purged owner conv-m/);
    expect(existsSync(join(runDir, '.rawrag.lock'))).toBe(false);
  });

  it('a store rebuilt out of history order keeps the version chain: an earlier fact never supersedes a later one', async () => {
    const script = fixtureScript();
    script!.script!['D5:1'] = '[]';
    await serve(script);
    await build();
    // What a purge raced by a run leaves: Berlin's batch applied, Paris's batch gone from the store.
    const s = new MemoryStore(join(runDir, 'memory.sqlite'));
    s.db.prepare("DELETE FROM memories WHERE batch_key = 't4-5'").run();
    s.db.prepare("DELETE FROM extractions WHERE batch_key = 't4-5'").run();
    s.db.prepare("UPDATE memories SET status = 'active', superseded_by = NULL").run();
    s.close();
    // The rerun extracts Paris again (from the cache) and applies it after Berlin.
    const { evidence } = await build();
    const after = new MemoryStore(join(runDir, 'memory.sqlite'), { readonly: true });
    const all = after.memories('conv-m');
    after.close();
    const paris = all.find((m) => m.content === PARIS)!;
    const berlin = all.find((m) => m.content === BERLIN)!;
    expect(berlin.status).toBe('active');
    expect(paris.status).toBe('superseded');
    expect(paris.superseded_by).toBe(berlin.memory_id);
    const q = question('Where does Caroline live?', ['D7:1']);
    const it0 = baseItem(q, 'locomo');
    await evidence.evidenceFor(q, it0, contextFor(memoryConfigFor()));
    expect(it0.recalled!.map((r) => r.content)).toContain(BERLIN);
    expect(it0.recalled!.map((r) => r.content)).not.toContain(PARIS);
  });
});

describe('2. extraction batches cut by tokens', () => {
  it('MemoryAgentBench: the one-session 10,636-token source becomes requests within the context and reply budget, and the dry run says so', async () => {
    const data = join(ROOT, 'tests/fixtures/memoryagentbench/Conflict_Resolution.sample.json');
    const cfg = RunConfigSchema.parse({
      benchmark: 'memoryagentbench',
      data,
      options: { subset: 'all' },
      system: 'agentic-memory',
      reader: { model: 'gpt-4o-mini' },
    });
    const { dataset, questions } = await loadRunInputs(cfg);
    const session = new ProviderSession({ noCache: true, env: {} });
    const e = estimateExtraction({ episodes: dataset.episodes, questions }, cfg, session);
    const turns = dataset.episodes.reduce((s, ep) => s + ep.turns.length, 0);
    expect(e.calls).toBeGreaterThanOrEqual(Math.ceil(turns / 81));
    expect(e.cut).toBe(e.calls);
    expect(e.max_prompt_tokens).toBeLessThanOrEqual(128_000 - 2048);
    expect(e.output_tokens).toBeLessThanOrEqual(e.calls * 2048);
    expect(e.notes.join('\n')).toMatch(
      /cut by tokens to fit gpt-4o-mini's 128,000-token context and the 2048-token reply budget: at most 81 turns/,
    );
  });

  it('a run sends one session of 300 turns as requests of at most 81 turns; a small context window cuts by tokens', async () => {
    await serve({});
    const long: Episode = {
      id: 'conv-long',
      turns: Array.from({ length: 300 }, (_, i) => ({
        id: `D1:${i + 1}`,
        session: '1',
        date: '1 May, 2023',
        speaker: i % 2 ? 'Melanie' : 'Caroline',
        text: `Turn ${i + 1}: ${'words about the day '.repeat(10)}`,
        captions: [],
      })),
      meta: { speakers: ['Caroline', 'Melanie'] },
    };
    const { report } = await build(long);
    const sizes = fake!.extractionRequests().map((r) => segmentOf(r.body).turnIds.length);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(300);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(81);
    expect(report.memory.ingest.batches).toBe(sizes.length);
    // A model with a 4,096-token context (a user's registry entry): requests cut by tokens, every one fits.
    const models = join(runDir, '..', `models-${process.pid}.yaml`);
    writeFileSync(
      models,
      'models:\n  small-chat:\n    kind: chat\n    protocol: openai\n    provider: local\n    keyEnv: null\n    baseUrlEnv: OPENAI_BASE_URL\n    baseUrl: null\n    contextWindow: 4096\n',
    );
    fake!.api.requests.length = 0;
    runDir = tempDir('rawrag-audit-run-small-');
    await build(long, memoryConfigFor({ memory: { extractor: 'small-chat' } }), { RAWRAG_MODELS: models });
    const prompts = fake!.extractionRequests().map((r) => r.body.messages.map((m: any) => m.content).join('\n'));
    expect(prompts.length).toBeGreaterThan(Math.ceil(300 / 81));
    const { countTokens } = await import('../../../src/retrieval/tokenizer.js');
    for (const p of prompts) expect(countTokens(p) + 2048).toBeLessThanOrEqual(4096);
  });
});

describe('3. purge leaves no byte of the owner behind, or says it could not', () => {
  it('extraction replies cached but never logged (a failed batch) are deleted from the cache, found through the manifest', async () => {
    await serve(fixtureScript());
    await build(); // session 5 fails: sessions 6-8 (Berlin) are cached, never logged
    writeFileSync(join(runDir, 'manifest.json'), JSON.stringify({ schema: 'rawrag.run/2', system: 'agentic-memory', benchmark: 'locomo', setting: 'test', config: { system: 'agentic-memory' }, cache_dir: cacheDir }));
    expect(anyFileHolds(storeFiles(cacheDir, CACHE_FILE), 'moved to Berlin')).toBe(true);
    const out = await purgeStoreOwner(runDir, 'conv-m', {});
    // 7 replies cached (the malformed one never is), found by the 8 request keys the store noted before sending.
    expect(out).toMatch(/response cache \(the run's manifest\): 7 of 8 extraction replies/);
    expect(anyFileHolds(storeFiles(cacheDir, CACHE_FILE), 'moved to Berlin')).toBe(false);
    expect(anyFileHolds(storeFiles(runDir, 'memory.sqlite'), 'Paris')).toBe(false);
  });

  it('an open transaction on the store makes the purge fail loudly; once it is closed, the purge is finished', async () => {
    await serve(fixtureScript());
    await build();
    await build();
    const reader = new Database(join(runDir, 'memory.sqlite'));
    reader.exec('BEGIN');
    reader.prepare('SELECT COUNT(*) FROM memories').get();
    await expect(purgeStoreOwner(runDir, 'conv-m', { cacheDir })).rejects.toThrow(/another process has this database open/);
    reader.exec('COMMIT');
    reader.close();
    expect(await purgeStoreOwner(runDir, 'conv-m', { cacheDir })).toMatch(/finishing an earlier purge/);
    for (const text of ['Berlin', 'Paris', 'Rex']) expect(anyFileHolds(storeFiles(runDir, 'memory.sqlite'), text), text).toBe(false);
  });

  it('an idle reader on the cache does not keep the deleted replies in the file; cached reader answers go too', async () => {
    await serve(fixtureScript());
    await build();
    await build();
    // The reader's cached answer to one of the owner's questions, and the item that holds it.
    const cache = new Database(join(cacheDir, CACHE_FILE));
    cache
      .prepare('INSERT INTO responses (key, role, value, created_at) VALUES (?, ?, ?, ?)')
      .run('k-reader', 'reader', Buffer.from(JSON.stringify({ text: 'Caroline now lives in Berlin with Rex.' })), 'now');
    cache.prepare('SELECT COUNT(*) FROM responses').get(); // idle afterwards, connection open
    writeFileSync(
      join(runDir, 'items.jsonl'),
      JSON.stringify({ id: 'q1', score: 1, episode: 'conv-m', answer: 'Caroline now lives in Berlin with Rex.' }) + '\n',
    );
    const out = await purgeStoreOwner(runDir, 'conv-m', { cacheDir });
    expect(out).toMatch(/8 of 8 extraction replies and 1 cached reader answers deleted/);
    expect(anyFileHolds(storeFiles(cacheDir, CACHE_FILE), 'Berlin')).toBe(false);
    cache.close();
  });
});

describe('4. conflict detection before de-duplication', () => {
  const paris = 'Caroline lives in the lovely old city of Paris with her dog Rex and two cats';
  const berlin = 'Caroline lives in the lovely old city of Berlin with her dog Rex and two cats';
  it('a changed home city that reads like a duplicate supersedes the old one instead of merging into it', async () => {
    const cos = embedText(paris, 64).reduce((s, x, i) => s + x * embedText(berlin, 64)[i]!, 0);
    expect(cos).toBeGreaterThanOrEqual(0.9);
    const script = fixtureScript();
    script!.script!['D5:1'] = '[]';
    script!.script!['D3:1'] = JSON.stringify([item(paris, ['Caroline'], ['D3:1'], { attribute: 'caroline.home_city' })]);
    script!.script!['D7:1'] = JSON.stringify([item(berlin, ['Caroline'], ['D7:1'], { attribute: 'caroline.home_city' })]);
    await serve(script);
    await build();
    const s = new MemoryStore(join(runDir, 'memory.sqlite'), { readonly: true });
    const all = s.memories('conv-m');
    s.close();
    const p = all.find((m) => m.content === paris)!;
    const b = all.find((m) => m.content === berlin)!;
    expect(b?.status).toBe('active');
    expect(p.status).toBe('superseded');
    expect(p.superseded_by).toBe(b.memory_id);
    // The stale item gets no credit for the turn that changed it.
    expect(p.source_turns).toEqual(['D3:1']);
    expect(p.merged_count).toBe(0);
  });
});

describe('5. mis-cited source turns', () => {
  it('turns outside the segment are dropped and counted; an item citing none of its segment is dropped, not credited to the segment', async () => {
    const script = fixtureScript();
    script!.script!['D5:1'] = '[]';
    script!.script!['D4:1'] = JSON.stringify([
      item('Melanie is busy with lots of work.', ['Melanie'], ['D4:2', 'D9:9']),
      item('Caroline adopted Rex.', ['Caroline'], ['D1:1']),
    ]);
    await serve(script);
    const { report } = await build();
    const s = new MemoryStore(join(runDir, 'memory.sqlite'), { readonly: true });
    const all = s.memories('conv-m');
    const row = s.extraction('conv-m', 16, 't6-7') as any;
    s.close();
    expect(all.find((m) => m.content.startsWith('Melanie is busy'))!.source_turns).toEqual(['D4:2']);
    expect(all.some((m) => m.content === 'Caroline adopted Rex.')).toBe(false);
    expect(row).toMatchObject({ items_returned: 2, items_stored: 1, items_miscited: 1, citations_dropped: 2 });
    expect(report.memory.items).toMatchObject({ miscited: 1, citations_dropped: 2 });
    expect(report.memory.warnings.join(' ')).toMatch(/cited turns outside their segment: 2 citations removed, 1 items/);
  });
});

describe('6. structured outputs, and a checked plain-JSON fallback', () => {
  it('gpt-4o-mini is asked for a strict JSON Schema; replies with an extra key or without `attribute` are stored; nothing is paid twice', async () => {
    const loose = (turnIds: string[]) =>
      JSON.stringify({
        items: turnIds.map((t) => ({
          memory_type: 'episodic',
          content: `Something said at ${t}.`,
          entities: [],
          source_turns: [t],
          note: 'x',
        })),
      });
    await serve({ fallback: (turnIds) => loose(turnIds) });
    const first = await build();
    const body = fake!.extractionRequests()[0]!.body;
    expect(body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'memory_items', strict: true } });
    expect(body.response_format.json_schema.schema.properties.items.items.additionalProperties).toBe(false);
    expect(first.report.memory.ingest).toMatchObject({ batches: 8, failed_batches: 0, extraction_calls: 8 });
    fake!.api.requests.length = 0;
    await build();
    expect(fake!.extractionRequests()).toHaveLength(0);
  });

  it('a model without structured outputs gets plain JSON (no response_format), checked on reading', async () => {
    await serve({
      fallback: (turnIds) =>
        JSON.stringify(turnIds.map((t) => ({ memory_type: 'semantic', content: `Fact ${t}.`, source_turns: [t], extra: 1 }))),
    });
    const cfg = memoryConfigFor({ memory: { extractor: 'deepseek-chat' } });
    const { report } = await build(memoryEpisode(), cfg, { DEEPSEEK_API_KEY: 'sk-ds-test', DEEPSEEK_BASE_URL: `${fake!.url}/v1` });
    expect(fake!.extractionRequests().every((r) => r.body.response_format === undefined)).toBe(true);
    expect(report.memory.items.stored).toBe(16);
  });
});

describe('7. costs equal what was sent', () => {
  it('cache answers are neither calls nor dollars, a failed attempt is paid, and the reader row holds no extraction', async () => {
    await serve(fixtureScript());
    const a = await build(); // 8 sent, session 5 unparsable
    const b = await build(); // session 5 again (1 sent), sessions 6-8 from the cache
    const sent = fake!.extractionRequests().length;
    expect(sent).toBe(9);
    expect(b.report.memory.ingest.extraction_calls).toBe(sent);
    expect(b.report.memory.ingest.cache_hits).toBe(3);
    const spent = a.usage.extract.cost_usd_spent + b.usage.extract.cost_usd_spent;
    expect(b.report.memory.ingest.cost_usd).toBeCloseTo(spent, 12);
    expect(a.usage.reader).toBeUndefined();
    // A third opening in a new run directory: everything from the cache, nothing sent, nothing charged.
    runDir = tempDir('rawrag-audit-run-again-');
    const c = await build();
    expect(c.report.memory.ingest).toMatchObject({ extraction_calls: 0, cache_hits: 8, cost_usd: 0 });
  });
});

describe('8. a damaged store: one clear error and the remedy', () => {
  const damage: Record<string, (file: string) => void> = {
    truncated: (f) => writeFileSync(f, readFileSync(f).subarray(0, 3000)),
    'bad header': (f) => {
      const b = readFileSync(f);
      b.write('not a sqlite db!', 0);
      writeFileSync(f, b);
    },
    'random bytes': (f) => writeFileSync(f, Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 7919) % 251))),
    'wrong tables': (f) => {
      for (const x of [f, `${f}-wal`, `${f}-shm`]) if (existsSync(x)) writeFileSync(x, '');
      const db = new Database(f);
      db.exec('CREATE TABLE other (x TEXT)');
      db.close();
    },
  };
  for (const [kind, spoil] of Object.entries(damage)) {
    it(`${kind}: memory show exits 2 with the remedy, and a resume stops before writing`, async () => {
      await serve(fixtureScript());
      await build();
      await build();
      const file = join(runDir, 'memory.sqlite');
      for (const x of [`${file}-wal`, `${file}-shm`]) if (existsSync(x)) writeFileSync(x, '');
      spoil(file);
      expect(() => showStore(runDir, {})).toThrow(
        /memory store is damaged or not a memory store .*move it aside .* and run the same command again/,
      );
      writeFileSync(join(runDir, 'manifest.json'), JSON.stringify({ schema: 'rawrag.run/2', system: 'agentic-memory', benchmark: 'locomo', setting: 'test', config: { system: 'agentic-memory' } }));
      const err: string[] = [];
      vi.spyOn(process.stderr, 'write').mockImplementation((s) => (err.push(String(s)), true));
      vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
      expect(await cli(['node', 'rawrag', 'memory', 'show', runDir])).toBe(2);
      expect(err.join('')).toMatch(/^rawrag: .*memory\.sqlite: the agentic memory store is damaged/);
      expect(err.join('')).not.toMatch(/\n\s+at /);
      vi.restoreAllMocks();
      await expect(createAgenticMemorySource(memoryConfigFor(), sessionFor(fake!.url, cacheDir), { runDir })).rejects.toThrow(
        /memory store is damaged/,
      );
    });
  }
});

describe('9. forgetting details', () => {
  const f = MemorySchema.parse({ forgetting: { keyAttributes: ['home_city'] } }).forgetting;
  it("keyAttributes ['home_city'] matches caroline.home_city", () => {
    expect(isKeyAttribute('caroline.home_city', f)).toBe(true);
    expect(isKeyAttribute('caroline.job', f)).toBe(false);
  });
  it('the importance ceiling and decay enter the recall score; a merged restatement refreshes the last access', async () => {
    await serve(fixtureScript());
    await build();
    const { evidence } = await build();
    const s = new MemoryStore(join(runDir, 'memory.sqlite'), { readonly: true });
    const dog = s.memories('conv-m').find((m) => m.content === DOG)!;
    s.close();
    // Restated in session 2 (8 May): recency and decay count from then, not from 1 May.
    expect(dog.last_access_at).toBe('8 May, 2023');
    const q = question('Does Caroline have a dog?', ['D1:1'], { questionDate: '1 May, 2024' });
    const it0 = baseItem(q, 'locomo');
    await evidence.evidenceFor(q, it0, contextFor(memoryConfigFor()));
    const r = it0.recalled!.find((x) => x.content === DOG)!;
    // 0.8 capped at 0.9 stays 0.8, then halves every 365 days (semantic) over 359 days.
    expect(r.parts.importance).toBeCloseTo(0.8 * Math.exp((-Math.LN2 / 365) * 359), 6);
    expect(r.parts.importance).toBeLessThan(0.8);
  });
});

describe('10. handbook gaps', () => {
  it('the entity hard gate: a question about Caroline is not shown what the memory knows about Mel', async () => {
    const script = fixtureScript();
    script!.script!['D5:1'] = '[]';
    script!.script!['D6:1'] = JSON.stringify([item('Mel is vegetarian now.', ['Mel'], ['D6:2'], { importance: 1 })]);
    await serve(script);
    const { evidence } = await build();
    const q = question('What does Caroline eat now?', []);
    const it0 = baseItem(q, 'locomo');
    await evidence.evidenceFor(q, it0, contextFor(memoryConfigFor()));
    expect(it0.recalled!.map((r) => r.content)).not.toContain('Mel is vegetarian now.');
    expect(it0.recalled!.length).toBeGreaterThan(0);
    const s = new MemoryStore(join(runDir, 'memory.sqlite'), { readonly: true });
    expect(s.memories('conv-m').find((m) => m.content === 'Mel is vegetarian now.')!.entities).toEqual(['melanie']);
    s.close();
  });

  it('entity alignment: surnames and nicknames', () => {
    const a = new EntityAligner(['Caroline', 'Melanie Smith']);
    expect(a.align('Mel')).toBe('melanie smith');
    expect(a.align('Smith')).toBe('melanie smith');
    expect(a.align('Caroline Jones')).toBe('caroline');
    expect(a.align('car')).toBe('car');
  });

  it('an empty memory warns, in summary.json and in the printed summary', async () => {
    await serve({ fallback: () => '[]' });
    const { report } = await build();
    expect(report.memory.items.stored).toBe(0);
    expect(report.memory.warnings.join(' ')).toMatch(/holds 0 items after 8 extraction batches/);
    expect(memoryIngestLines(report).join('\n')).toMatch(/^warning: the memory store holds 0 items/m);
  });
});

describe('10b. no retriever notes or paper row for a system that uses no retriever', () => {
  it('the printed summary carries neither the paper row nor a retriever note', async () => {
    await serve({});
    const { executeRun } = await import('../../../src/pipeline/run.js');
    const { renderRunReport } = await import('../../../src/cli/run-printout.js');
    const cfg = memoryConfigFor({ system: 'agentic-memory', limit: 2 });
    const outcome = await executeRun(
      {
        cfg,
        out: join(runDir, 'run'),
        transport: {
          cacheDir,
          env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${fake!.url}/v1`, COHERE_API_KEY: 'co', RAWRAG_RETRY_BASE_MS: '1' },
        },
      },
      { log: () => undefined },
    );
    const text = renderRunReport(outcome);
    expect(text).toMatch(/^agentic-memory\/gpt-4o-mini on locomo — 2 questions, 0 errors/);
    expect(text).toMatch(/^\| extract +\| +19 \|/m);
    expect(text).not.toMatch(/paper|retriever/i);
    // The manifest records the cache folder (what a purge reads).
    expect(JSON.parse(readFileSync(join(runDir, 'run', 'manifest.json'), 'utf8')).cache_dir).toBe(cacheDir);
  });

  it("the offline sentence encoder, embedding memory items, does not announce a retriever's candidate windows", async () => {
    const { memoryEmbedder } = await import('../../../src/systems/agentic-memory/embedder.js');
    const err: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => (err.push(String(s)), true));
    const notes: string[] = [];
    const e = memoryEmbedder(
      memoryConfigFor({ retrieval: { retriever: 'local' } }),
      new ProviderSession({ noCache: true, env: {} }),
      notes,
    );
    await e.embed([`a memory item ${process.pid} ${Date.now()}`], 'document');
    vi.restoreAllMocks();
    expect(err.join('')).toMatch(/^sentence encoder \(agentic memory\): embedding each new memory item/m);
    expect(err.join('') + notes.join(' ')).not.toMatch(/first-stage candidate|--retriever local needs/);
  }, 120_000);
});
