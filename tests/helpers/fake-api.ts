/**
 * A loopback HTTP server (127.0.0.1, port 0) that speaks the provider protocols rawrag and the
 * opponents' own libraries use: OpenAI POST /v1/embeddings (honouring `dimensions`), POST
 * /v1/chat/completions (plain text, `response_format` json_object and json_schema, tool calls,
 * logprobs / top_logprobs), POST /v1/responses (incl. `responses.parse`'s json_schema), Cohere POST
 * /v2/rerank and vLLM/Jina POST /v1/rerank, Anthropic POST /v1/messages, GET /v1/models (when given
 * a list; the pre-flight's probe). A library's own prompts are answered by its responder
 * (tests/helpers/loopback-llm/<system>.ts) in the form that library parses; each request records
 * which responder answered it. It records every request and can inject faults (status codes with
 * Retry-After headers, slow replies, malformed JSON, dropped connections). It is a protocol peer
 * with deterministic answers, not a mock of any client library. `scripts/loopback-openai.mjs` runs
 * it as a process of its own.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { LoopbackServer, type CommonFaultKind, type Fault as PeerFault, type RecordedRequest } from './loopback-server.js';
import type { LlmAnswer, LlmRequest, Responder } from './loopback-llm/types.js';
import { exampleOf } from './loopback-llm/schema-json.js';

export type { RecordedRequest } from './loopback-server.js';

/**
 * status (with Retry-After headers, ...), slow, reset (dropped connection), malformed (a reply cut off
 * mid-JSON), or a 200 that breaks the API's promise: empty (no body), null (`null`), invalid (the
 * right shape with a wrong content: a rerank index out of range, an embeddings list one short).
 */
export type Fault = PeerFault<CommonFaultKind | 'malformed' | 'empty' | 'null' | 'invalid'>;

export interface FakeApiOptions {
  /** Reply text for a chat request (default: judge-like JSON for judge prompts, else "I don't know"). */
  chat?(body: any): string;
  dim?: number;
  /** Delay before every reply (a slow provider): concurrency shows as requests in flight at once. */
  delayMs?: number;
  /** The model ids `GET /v1/models` lists, as OpenAI and Anthropic do (default: no such route, 404). */
  models?: string[];
  /** Per-library answering of the libraries' own prompts (loopbackResponders() loads them all). */
  responders?: Responder[];
  /** Without `dimensions`, answer a known embedding model at its real size (text-embedding-3-small: 1536) instead of `dim`. */
  nativeDims?: boolean;
}

/** The real output sizes of OpenAI's embedding models (what a library sizes its vector store by). */
const MODEL_DIMS: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

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

  /** Requests a library's responder answered (its own prompts), by library. */
  answeredBy(library: string): RecordedRequest[] {
    return this.requests.filter((r) => (r as RecordedRequest & { responder?: string }).responder === library);
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
    if (fault?.kind === 'empty' || fault?.kind === 'null') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(fault.kind === 'empty' ? '' : 'null');
      return;
    }
    const reply = this.answer(rec);
    if (fault?.kind === 'invalid')
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(spoiled(reply)));
    if (reply === null) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${rec.path}` } }));
      return;
    }
    if (rec.path === '/v1/chat/completions' && rec.body?.stream === true) return streamChat(res, reply as ChatReply);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(reply));
  }

  /** The reply to a chat or Responses request: a responder's, the test's own `chat`, or the default; then shaped as asked (JSON, schema, tools). */
  private reply(rec: RecordedRequest, b: any): LlmAnswer {
    const req = llmRequest(rec.path, b);
    const responder = this.opts.responders?.find((r) => r.matches(req));
    let answer: LlmAnswer;
    if (responder) {
      (rec as RecordedRequest & { responder?: string }).responder = responder.library;
      const a = responder.answer(req);
      answer = typeof a === 'string' ? { content: a } : a;
    } else
      answer = { content: rec.path === '/v1/responses' ? defaultChat({ messages: req.messages }) : (this.opts.chat ?? defaultChat)(b) };
    // Shaping (JSON as asked, required tool calls) is for the libraries' mode; rawrag's own tests keep the reply they set.
    if (!this.opts.responders) return answer;
    const schema = schemaOf(rec.path, b);
    if (!answer.tool_calls && answer.content !== undefined && wantsJson(rec.path, b) && !isJson(answer.content))
      answer = { content: JSON.stringify(schema ? exampleOf(schema) : { answer: answer.content }) };
    // A tool the request requires (tool_choice 'required' or a named function) is called, with arguments from its schema.
    const tools: any[] = b.tools ?? [];
    const choice = b.tool_choice;
    if (!answer.tool_calls && tools.length && (choice === 'required' || choice?.function?.name || choice?.name)) {
      const name = choice?.function?.name ?? choice?.name ?? tools[0].function?.name ?? tools[0].name;
      const tool = tools.find((t) => (t.function?.name ?? t.name) === name) ?? tools[0];
      answer = { tool_calls: [{ name, arguments: exampleOf(tool.function?.parameters ?? tool.parameters ?? {}) }] };
    }
    return answer;
  }

  private chatCompletion(rec: RecordedRequest, b: any): unknown {
    const a = this.reply(rec, b);
    const content = a.content ?? null;
    const prompt = (b.messages as Array<{ content: unknown }>).reduce((s, m) => s + wordCount(textOf(m.content)), 0);
    const done = wordCount(content ?? JSON.stringify(a.tool_calls ?? ''));
    const message: Record<string, unknown> = { role: 'assistant', content };
    if (a.tool_calls)
      message.tool_calls = a.tool_calls.map((t, i) => ({
        id: `call_${i}`,
        type: 'function',
        function: { name: t.name, arguments: typeof t.arguments === 'string' ? t.arguments : JSON.stringify(t.arguments) },
      }));
    return {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      created: 0,
      model: b.model,
      choices: [
        {
          index: 0,
          finish_reason: a.tool_calls ? 'tool_calls' : 'stop',
          message,
          ...(b.logprobs ? { logprobs: logprobsOf(content ?? '', b.top_logprobs ?? 0) } : {}),
        },
      ],
      usage: { prompt_tokens: prompt, completion_tokens: done, total_tokens: prompt + done },
    };
  }

  /** POST /v1/responses: one output message (or function calls); `output_text` as the SDK builds it. */
  private response(rec: RecordedRequest, b: any): unknown {
    const a = this.reply(rec, b);
    const req = llmRequest(rec.path, b);
    const input = req.messages.reduce((s, m) => s + wordCount(m.content), 0);
    const output: unknown[] = a.tool_calls
      ? a.tool_calls.map((t, i) => ({
          type: 'function_call',
          id: `fc_${i}`,
          call_id: `call_${i}`,
          name: t.name,
          arguments: typeof t.arguments === 'string' ? t.arguments : JSON.stringify(t.arguments),
          status: 'completed',
        }))
      : [
          {
            type: 'message',
            id: 'msg_fake',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: a.content ?? '', annotations: [] }],
          },
        ];
    const out = wordCount(a.content ?? '');
    return {
      id: 'resp_fake',
      object: 'response',
      created_at: 0,
      status: 'completed',
      model: b.model,
      output,
      output_text: a.content ?? '',
      parallel_tool_calls: true,
      tool_choice: b.tool_choice ?? 'auto',
      tools: b.tools ?? [],
      usage: {
        input_tokens: input,
        output_tokens: out,
        total_tokens: input + out,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens_details: { reasoning_tokens: 0 },
      },
    };
  }

  private answer(rec: RecordedRequest): unknown {
    const b = rec.body ?? {};
    switch (rec.path) {
      case '/v1/models':
        return this.opts.models ? { object: 'list', data: this.opts.models.map((id) => ({ id, object: 'model' })) } : null;
      case '/v1/messages': {
        // Anthropic's Messages API: `system` apart, `content` blocks, `input_tokens`/`output_tokens`.
        const messages = [...(b.system ? [{ role: 'system', content: b.system }] : []), ...(b.messages as any[])];
        const text = (this.opts.chat ?? defaultChat)({ ...b, messages });
        const prompt = messages.reduce((s: number, m: { content: string }) => s + wordCount(m.content), 0);
        return {
          id: 'msg_fake',
          type: 'message',
          role: 'assistant',
          model: b.model,
          content: [{ type: 'text', text }],
          stop_reason: 'end_turn',
          usage: { input_tokens: prompt, output_tokens: wordCount(text) },
        };
      }
      case '/v1/embeddings': {
        const inputs: string[] = (Array.isArray(b.input) ? b.input : [b.input]).map((t: unknown) =>
          typeof t === 'string' ? t : JSON.stringify(t),
        );
        const dim = b.dimensions ?? (this.opts.nativeDims ? MODEL_DIMS[b.model] : undefined) ?? this.opts.dim ?? 64;
        // As OpenAI's API: base64 (little-endian float32) when encoding_format asks for it, as the Python and Node SDKs do by
        // default (reading a float list there costs the Python SDK a pydantic object per number), else floats.
        const encode = (v: number[]) => (b.encoding_format === 'base64' ? Buffer.from(new Float32Array(v).buffer).toString('base64') : v);
        return {
          object: 'list',
          model: b.model,
          data: inputs.map((t, index) => ({ object: 'embedding', index, embedding: encode(embedText(t, dim)) })),
          usage: { prompt_tokens: inputs.reduce((s, t) => s + wordCount(t), 0), total_tokens: 0 },
        };
      }
      case '/v1/chat/completions':
        return this.chatCompletion(rec, b);
      case '/v1/responses':
        return this.response(rec, b);
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

/** A message's text: a string, or its content parts' text joined. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === 'string' ? p : (p?.text ?? p?.content ?? ''))).join('\n');
  return content === null || content === undefined ? '' : JSON.stringify(content);
}

/** A chat or Responses request as a responder sees it. */
function llmRequest(path: string, b: any): LlmRequest {
  const raw: any[] =
    path === '/v1/responses' ? (typeof b.input === 'string' ? [{ role: 'user', content: b.input }] : (b.input ?? [])) : (b.messages ?? []);
  const messages = raw.filter((m) => m && m.role).map((m) => ({ role: String(m.role), content: textOf(m.content) }));
  if (path === '/v1/responses' && b.instructions) messages.unshift({ role: 'system', content: String(b.instructions) });
  const system = messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => m.content)
    .join('\n');
  const user = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  return { path, model: String(b.model ?? ''), messages, system, user, body: b };
}

/** The JSON Schema a request asks the reply to follow (chat `response_format` or Responses `text.format`), if any. */
function schemaOf(path: string, b: any): Record<string, any> | null {
  const f = path === '/v1/responses' ? b.text?.format : b.response_format;
  if (f?.type !== 'json_schema') return null;
  return f.json_schema?.schema ?? f.schema ?? {};
}

function wantsJson(path: string, b: any): boolean {
  const f = path === '/v1/responses' ? b.text?.format : b.response_format;
  return f?.type === 'json_object' || f?.type === 'json_schema';
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Token-level logprobs of a reply (each word a token, every alternative less likely). */
function logprobsOf(content: string, top: number): unknown {
  const tokens = content.match(/\S+\s*/g) ?? [];
  return {
    content: tokens.map((token) => ({
      token,
      logprob: -0.01,
      bytes: [...Buffer.from(token)],
      top_logprobs: [
        { token, logprob: -0.01, bytes: [...Buffer.from(token)] },
        ...Array.from({ length: Math.max(0, top - 1) }, (_, i) => ({ token: `alt${i}`, logprob: -5 - i, bytes: [] })),
      ].slice(0, Math.max(top, 0)),
    })),
    refusal: null,
  };
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

/** A reply of the right shape whose content the API never gives: an index out of range, one vector short. */
function spoiled(reply: unknown): unknown {
  const r = reply as { results?: Array<{ index: number }>; data?: unknown[] } | null;
  if (r?.results?.length) return { ...r, results: r.results.map((x, i) => (i === 0 ? { ...x, index: 10_000 } : x)) };
  if (r?.data?.length) return { ...r, data: r.data.slice(1) };
  return reply;
}
