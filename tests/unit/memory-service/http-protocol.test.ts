/**
 * `--system http`: the documented protocol's JSON Schemas are the ones the client checks replies
 * with (docs/memory-protocol/ regenerated with RAWRAG_UPDATE_DOCS=1), and the ~50-line shim in
 * docs/examples/memory-shim.mjs is a complete service: ingested, searched for coverage, resumed
 * without re-adding, purged. A reply outside the protocol fails naming the field.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROTOCOL_SCHEMAS, jsonSchemaOf } from '../../../src/systems/http/protocol.js';
import { http } from '../../../src/systems/http/index.js';
import { RunConfigSchema } from '../../../src/systems/registry.js';
import { ProviderSession } from '../../../src/providers/session.js';
import { ingest } from '../../../src/retrieval/chunk.js';
import { DEFAULT_POLICY } from '../../../src/core/policy.js';
import { baseItem } from '../../../src/core/item.js';
import { getBenchmark } from '../../../src/benchmarks/registry.js';
import type { Episode, Question } from '../../../src/core/schema.js';
import { INGEST_LOG_FILE } from '../../../src/systems/memory-service/ingest-log.js';
import { ROOT } from '../../helpers/cli.js';
// @ts-expect-error a plain .mjs example without type declarations
import { startShim } from '../../../docs/examples/memory-shim.mjs';

const DIR = join(ROOT, 'docs', 'memory-protocol');

describe('protocol schemas', () => {
  it('docs/memory-protocol/*.schema.json are generated from the schemas the client uses', () => {
    for (const name of Object.keys(PROTOCOL_SCHEMAS)) {
      const file = join(DIR, `${name}.schema.json`);
      const want = JSON.stringify(jsonSchemaOf(name), null, 2) + '\n';
      if (process.env.RAWRAG_UPDATE_DOCS) writeFileSync(file, want);
      expect(
        readFileSync(file, 'utf8'),
        `${file} is stale (RAWRAG_UPDATE_DOCS=1 npx vitest run ${'tests/unit/memory-service/http-protocol.test.ts'})`,
      ).toBe(want);
    }
  });
});

const episode: Episode = {
  id: 'conv-h',
  meta: { speakers: ['Ann', 'Bob'] },
  turns: [
    { id: 'D1:1', session: '1', date: '8 May 2023', speaker: 'Ann', text: 'My sister Jo plays the cello', captions: [] },
    { id: 'D1:2', session: '1', date: '8 May 2023', speaker: 'Bob', text: 'Nice, I play chess', captions: [] },
    { id: 'D2:1', session: '2', date: '9 May 2023', speaker: 'Ann', text: 'Jo won a cello prize', captions: [] },
  ],
};
const ep = ingest(
  episode,
  3,
  { ...DEFAULT_POLICY, chunking: 'turn', serialisation: 'plain' },
  { tokenizer: 'cl100k_base', size: 256, stride: 224 },
);
const q: Question = {
  id: 'conv-h:q0',
  episode: 'conv-h',
  type: 'single-hop',
  typeId: 1,
  text: 'What does Jo play?',
  gold: 'cello',
  acceptable: ['cello'],
  questionDate: null,
  evidence: ['D1:1'],
  options: null,
  visibleTurns: null,
};

let server: Server;
let url: string;
let seen: Array<{ path: string; body: any; auth: string | undefined }>;
let runDir: string;
/** Rewrites the shim's reply to a path before it goes back (a service with keys of its own). */
let rewrite: ((path: string, reply: any) => any) | null;
beforeEach(async () => {
  seen = [];
  rewrite = null;
  const shim: Server = await startShim(0);
  const shimUrl = `http://127.0.0.1:${(shim.address() as AddressInfo).port}`;
  // A recording proxy in front of the shim: what crossed HTTP, and the shim's real replies.
  server = createServer(async (req, res) => {
    let body = '';
    for await (const c of req) body += c;
    seen.push({ path: req.url!, body: JSON.parse(body || 'null'), auth: req.headers.authorization });
    const r = await fetch(shimUrl + req.url, { method: req.method, body: body || undefined });
    const text = await r.text();
    res
      .writeHead(r.status, { 'content-type': 'application/json' })
      .end(rewrite ? JSON.stringify(rewrite(req.url!, JSON.parse(text))) : text);
  });
  server.on('close', () => shim.close());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  runDir = mkdtempSync(join(tmpdir(), 'rawrag-http-'));
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const session = (env: Record<string, string> = {}) =>
  new ProviderSession({ noCache: true, timeoutMs: 500, retry: { maxRetries: 2, baseDelayMs: 2, maxDelayMs: 10 }, env });

describe('--system http against the documented shim', () => {
  it('adds per session with add_id and turn ids, searches for coverage, resumes without re-adding, purges verified', async () => {
    const cfg = RunConfigSchema.parse({ benchmark: 'locomo', system: 'http', http: { url, name: 'toy-memory' } });
    const ctx = { cfg, benchmark: getBenchmark('locomo'), policy: DEFAULT_POLICY };
    const source = await http.create(cfg, session({ RAWRAG_HTTP_KEY: 'toy-key-123456789' }), { runDir });
    expect(source.system).toBe('toy-memory');
    const opened = await source.open(ep, ctx);
    const adds = seen.filter((s) => s.path === '/add');
    expect(adds.map((a) => a.body.add_id)).toEqual(['conv-h#0', 'conv-h#1']);
    expect(adds[0]!.body.turn_ids).toEqual(['D1:1', 'D1:2']);
    expect(adds[0]!.auth).toBe('Bearer toy-key-123456789');
    const item = baseItem(q, 'locomo');
    const evidence = await opened.evidenceFor(q, item, ctx);
    expect(evidence.blocks[0]!.text).toContain('[8 May 2023] Ann: My sister Jo plays the cello');
    expect(item.coverage).toEqual({ all: true, any: true });
    await (await http.create(cfg, session(), { runDir })).open(ep, ctx);
    expect(seen.filter((s) => s.path === '/add')).toHaveLength(2);
    writeFileSync(join(runDir, 'manifest.json'), JSON.stringify({ schema: 'rawrag.run/2', system: cfg.system, benchmark: 'locomo', setting: 'test', config: cfg }));
    expect(await http.store!.purge(runDir, 'conv-h', {})).toMatch(/verified, 0 memories left/);
    expect(readFileSync(join(runDir, 'write-decisions.jsonl'), 'utf8')).toBe('');
  });

  it("add events with the service's own extra fields are accepted and kept (issue 40, item 9)", async () => {
    rewrite = (path, reply) =>
      path === '/add' ? { ...reply, events: reply.events.map((e: object) => ({ ...e, actor_id: 'Ann', categories: ['family'] })) } : reply;
    const cfg = RunConfigSchema.parse({ benchmark: 'locomo', system: 'http', http: { url } });
    const source = await http.create(cfg, session(), { runDir });
    await source.open(ep, { cfg, benchmark: getBenchmark('locomo'), policy: DEFAULT_POLICY });
    expect(seen.filter((s) => s.path === '/add')).toHaveLength(2);
    const decisions = readFileSync(join(runDir, 'write-decisions.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(decisions.map((d) => d.operation)).toEqual(['ADD', 'ADD', 'ADD']);
    const logged = readFileSync(join(runDir, INGEST_LOG_FILE), 'utf8');
    expect(logged).toContain('"extra":{"actor_id":"Ann","categories":["family"]}');
  });

  it('a reply outside the protocol fails the episode naming the field', async () => {
    server.removeAllListeners('request');
    server.on('request', (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"events": [{"event": "MERGE"}]}'));
    const cfg = RunConfigSchema.parse({ benchmark: 'locomo', system: 'http', http: { url } });
    const source = await http.create(cfg, session(), { runDir });
    await expect(source.open(ep, { cfg, benchmark: getBenchmark('locomo'), policy: DEFAULT_POLICY })).rejects.toThrow(
      /add reply does not follow the protocol \(events\.0\.event: /,
    );
  });
});
