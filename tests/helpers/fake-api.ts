/**
 * A loopback HTTP server (127.0.0.1, port 0) that speaks the provider protocols rawrag uses:
 * OpenAI POST /v1/embeddings and /v1/chat/completions, Cohere POST /v2/rerank and vLLM/Jina
 * POST /v1/rerank. It records every request and can inject faults (status codes with
 * Retry-After headers, slow replies, malformed JSON, dropped connections). It is a protocol peer
 * with deterministic answers, not a mock of any client library.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { LoopbackServer, type CommonFaultKind, type Fault as PeerFault, type RecordedRequest } from './loopback-server.js';

export type { RecordedRequest } from './loopback-server.js';

/** status (with Retry-After headers, ...), slow, reset (dropped connection), or malformed: a reply cut off mid-JSON. */
export type Fault = PeerFault<CommonFaultKind | 'malformed'>;

export interface FakeApiOptions {
  /** Reply text for a chat request (default: judge-like JSON for judge prompts, else "I don't know"). */
  chat?(body: any): string;
  dim?: number;
  /** Delay before every reply (a slow provider): concurrency shows as requests in flight at once. */
  delayMs?: number;
}

export class FakeApi extends LoopbackServer<Fault['kind']> {
  constructor(private readonly opts: FakeApiOptions = {}) {
    super(opts.delayMs);
  }

  count(path?: string): number {
    return path ? this.requests.filter((r) => r.path === path).length : this.requests.length;
  }

  byPath(path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  protected errorBody(status: number | undefined): unknown {
    return { error: { message: `injected ${status}`, type: 'server_error' } };
  }

  protected respond(rec: RecordedRequest, _req: IncomingMessage, res: ServerResponse, fault: Fault | null): void {
    if (fault?.kind === 'malformed') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id": "x", "choices": [ {"message": ');
      return;
    }
    const reply = this.answer(rec);
    if (reply === null) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${rec.path}` } }));
      return;
    }
    if (rec.path === '/v1/chat/completions' && rec.body?.stream === true) return streamChat(res, reply as ChatReply);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(reply));
  }

  private answer(rec: RecordedRequest): unknown {
    const b = rec.body ?? {};
    switch (rec.path) {
      case '/v1/embeddings': {
        const inputs: string[] = Array.isArray(b.input) ? b.input : [b.input];
        // A float-only server: it answers floats whatever encoding_format asked for.
        return {
          object: 'list',
          model: b.model,
          data: inputs.map((t, index) => ({ object: 'embedding', index, embedding: embedText(t, this.opts.dim ?? 64) })),
          usage: { prompt_tokens: inputs.reduce((s, t) => s + wordCount(t), 0), total_tokens: 0 },
        };
      }
      case '/v1/chat/completions': {
        const content = (this.opts.chat ?? defaultChat)(b);
        const prompt = (b.messages as Array<{ content: string }>).reduce((s, m) => s + wordCount(m.content), 0);
        return {
          id: 'chatcmpl-fake',
          object: 'chat.completion',
          created: 0,
          model: b.model,
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
          usage: { prompt_tokens: prompt, completion_tokens: wordCount(content), total_tokens: prompt + wordCount(content) },
        };
      }
      case '/v2/rerank':
      case '/v1/rerank': {
        const docs: string[] = b.documents;
        const scored = docs.map((d, index) => ({ index, relevance_score: overlap(b.query, d) }));
        scored.sort((x, y) => y.relevance_score - x.relevance_score || x.index - y.index);
        const top = scored.slice(0, b.top_n && b.top_n > 0 ? b.top_n : docs.length);
        return rec.path === '/v2/rerank'
          ? { id: 'rr', results: top, meta: { billed_units: { search_units: Math.ceil(docs.length / 100) } } }
          : {
              id: 'rr',
              model: b.model,
              usage: { prompt_tokens: 10, total_tokens: 10 },
              results: top.map((r) => ({ ...r, document: { text: docs[r.index] } })),
            };
      }
      default:
        return null;
    }
  }
}

type ChatReply = { id: string; created: number; model: string; choices: Array<{ message: { content: string } }> };

/** A chat reply as the API streams it (`stream: true`): server-sent events of chat.completion.chunk, then [DONE]. */
function streamChat(res: ServerResponse, reply: ChatReply): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const chunk = (delta: Record<string, string>, finish: string | null) =>
    `data: ${JSON.stringify({ id: reply.id, object: 'chat.completion.chunk', created: reply.created, model: reply.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  res.write(chunk({ role: 'assistant', content: '' }, null));
  res.write(chunk({ content: reply.choices[0]!.message.content }, null));
  res.write(chunk({}, 'stop'));
  res.end('data: [DONE]\n\n');
}

function words(s: string): string[] {
  return s.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

/** How many `words(s)` there are, without building them (usage counts of long prompts). */
function wordCount(s: string): number {
  const t = s.toLowerCase();
  let n = 0;
  let inWord = false;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    const w = (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
    if (w && !inWord) n++;
    inWord = w;
  }
  return n;
}

/** A word's hash (the first 32 bits of its MD5), computed once per word. */
const wordHashes = new Map<string, number>();
function wordHash(w: string): number {
  let h = wordHashes.get(w);
  if (h === undefined) {
    h = createHash('md5').update(w).digest().readUInt32LE(0);
    wordHashes.set(w, h);
  }
  return h;
}

/** Hashed bag of words, L2-normalised: texts sharing words get similar vectors. */
export function embedText(text: string, dim: number): number[] {
  const v = new Array<number>(dim).fill(0);
  for (const w of words(text)) v[wordHash(w) % dim]! += 1;
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / n);
}

/** The words of a rerank document: the same windows come back in question after question. */
const docWords = new Map<string, string[]>();
function wordsOfDoc(doc: string): string[] {
  let w = docWords.get(doc);
  if (w === undefined) {
    if (docWords.size >= 100_000) docWords.clear();
    w = words(doc);
    docWords.set(doc, w);
  }
  return w;
}

function overlap(query: string, doc: string): number {
  const q = new Set(words(query));
  const d = wordsOfDoc(doc);
  if (d.length === 0) return 0;
  return Math.round((d.filter((w) => q.has(w)).length / d.length) * 1e6) / 1e6;
}

/** A judge: CORRECT when the generated answer contains the gold one (case-insensitive); a reader that knows nothing. */
export function defaultChat(body: any): string {
  const text: string = (body.messages as Array<{ content: string }>).map((m) => m.content).join('\n');
  const gold = /Gold answer: (.*)\nGenerated answer: ([\s\S]*?)\n\nFirst, provide/.exec(text);
  if (gold) {
    const ok = gold[2]!.toLowerCase().includes(gold[1]!.toLowerCase().trim());
    return JSON.stringify({ label: ok ? 'CORRECT' : 'WRONG' });
  }
  return "I don't know";
}

/** The question of a LoCoMo reader request (Mem0 RAG prompt layout). */
export function readerQuestion(body: any): string | null {
  const user = (body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'user')?.content ?? '';
  const m = /# Question: \n([\s\S]*?)\n\n# Context: \n/.exec(user);
  return m ? m[1]! : null;
}

export function isJudgeRequest(r: RecordedRequest): boolean {
  return r.path === '/v1/chat/completions' && JSON.stringify(r.body?.messages ?? '').includes('Gold answer:');
}

/** The four endpoint flags that point every provider role of a run at this loopback server. */
export function endpointArgs(api: { url: string }): string[] {
  return [
    '--reader-base-url',
    `${api.url}/v1`,
    '--judge-base-url',
    `${api.url}/v1`,
    '--embed-base-url',
    `${api.url}/v1`,
    '--rerank-base-url',
    api.url,
  ];
}
