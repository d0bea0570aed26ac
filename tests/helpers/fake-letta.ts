/**
 * A loopback Letta V1 server (127.0.0.1, port 0) answering the REST routes rawrag's Letta plug-in
 * uses as letta 0.11.7 serves them (letta/server/rest_api/routers/v1/): `GET /v1/health/`
 * {version, status}; folders `POST /v1/folders/ {name, description, embedding_config}` (a taken
 * name: 409), `GET /v1/folders/` (every folder), `POST /v1/folders/{id}/upload` (multipart `file`; a name already in the
 * folder gets a `_(1)` suffix, as DuplicateFileHandling.SUFFIX) -> FileMetadata with
 * processing_status `parsing`, which becomes `embedding` then `completed` over `processPolls`
 * listings of the folder's files (one passage per file: the folder's chunk size is the script's
 * 100000), `GET /v1/folders/{id}/files`, `GET /v1/folders/{id}/passages?limit&after&order`,
 * `DELETE /v1/folders/{id}` (its files and passages too); agents `POST /v1/agents/` (agent_type
 * one of AgentType's values, else 422; tool rules name attached tools), `GET /v1/agents/?name=`,
 * `PATCH /v1/agents/{id}/folders/attach/{folder_id}` (attaches the file tools open_files,
 * grep_files, semantic_search_files), `POST /v1/agents/{id}/messages {messages}` (no LLM here: an
 * agent whose run_first tool is semantic_search_files calls it with the user's text, as the
 * loopback API's Letta responder makes the real agent's LLM do, and stops there (exit_loop); the
 * attached folders' passages ranked by shared words, printed as files_tool_executor.py's
 * _search_files_native prints them, 20 lines per passage at most), `DELETE /v1/agents/{id}`;
 * archival memory (-S mode=archival): `POST /v1/agents/{id}/archival-memory {text, tags?, created_at?}`
 * -> [Passage] (one passage: the agent's chunk size is the script's 100000),
 * `GET /v1/agents/{id}/archival-memory?after&limit&ascending`, `GET .../archival-memory/search?query&top_k`
 * -> {results: [{timestamp, content, tags}], count} (ranked by shared words, as the archival_memory_search
 * tool's embedding search would be by similarity), `DELETE .../archival-memory/{passage_id}`;
 * tools `PUT /v1/tools/ {source_code}` (upsert by the function's name): an agent whose exit_loop tool
 * is such an `answer_question` (-S mode=agent) calls it after its search, answering with the found
 * passages' line that shares the most words with the question (the loopback LLM responder's choice). As in
 * letta 0.11.7, an agent's archive outlives the agent: deleting the agent leaves its passages held.
 */
import { randomUUID } from 'node:crypto';
import type { RecordedRequest } from './loopback-server.js';
import { MemoryServiceFake } from './memory-service-fake.js';
import { bestLine } from './loopback-llm/letta.js';

const AGENT_TYPES = [
  'memgpt_agent',
  'memgpt_v2_agent',
  'letta_v1_agent',
  'react_agent',
  'workflow_agent',
  'split_thread_agent',
  'sleeptime_agent',
  'voice_convo_agent',
  'voice_sleeptime_agent',
];
const FILE_TOOLS = ['open_files', 'grep_files', 'semantic_search_files'];
const words = (s: string) => new Set(s.toLowerCase().match(/[a-z0-9]+/g) ?? []);

interface File {
  id: string;
  file_name: string;
  original_file_name: string;
  source_id: string;
  processing_status: 'parsing' | 'embedding' | 'completed';
  content: string;
  polls: number;
}
interface Passage {
  id: string;
  text: string;
  file_id: string;
  file_name: string;
  source_id: string;
}
interface Folder {
  id: string;
  name: string;
  description: string | null;
  embedding_config: Record<string, unknown>;
  files: File[];
  passages: Passage[];
}
interface ArchivalPassage {
  id: string;
  text: string;
  tags: string[] | null;
  created_at: string;
  archive_id: string;
}
interface Agent {
  id: string;
  name: string;
  agent_type: string;
  folders: string[];
  tools: string[];
  rules: Array<{ type: string; tool_name: string }>;
  body: Record<string, unknown>;
}

export class FakeLetta extends MemoryServiceFake {
  readonly folders = new Map<string, Folder>();
  readonly agents = new Map<string, Agent>();
  /** Custom tools by name (PUT /v1/tools/), and every answer an answer_question call returned. */
  readonly tools = new Map<string, { id: string; source_code: string }>();
  readonly answers: Array<{ question: string; answer: string }> = [];
  /** Agent id -> its archive's passages (kept when the agent is deleted, as letta's archives are). */
  readonly archives = new Map<string, ArchivalPassage[]>();

  constructor(private readonly opts: { processPolls?: number } = {}) {
    super();
  }

  isAdd(r: RecordedRequest): boolean {
    return r.method === 'POST' && /^\/v1\/(folders\/[^/]+\/upload|agents\/[^/]+\/archival-memory)$/.test(r.path);
  }

  totalHeld(): number {
    const archival = [...this.archives.values()].reduce((n, a) => n + a.length, 0);
    return [...this.folders.values()].reduce((n, f) => n + f.files.length, 0) + this.agents.size + archival;
  }

  /** Files whose background processing is done become one passage each. */
  private settle(f: Folder): void {
    for (const file of f.files) {
      file.polls++;
      if (file.processing_status === 'completed') continue;
      if (file.polls < (this.opts.processPolls ?? 2)) {
        file.processing_status = 'embedding';
        continue;
      }
      file.processing_status = 'completed';
      f.passages.push({ id: `passage-${randomUUID()}`, text: file.content, file_id: file.id, file_name: file.file_name, source_id: f.id });
    }
  }

  private fileView(file: File): Record<string, unknown> {
    const { content: _c, polls: _p, ...rest } = file;
    return { ...rest, file_type: 'text/plain', error_message: null };
  }

  protected route(r: RecordedRequest): [number, unknown] {
    const b = r.body ?? {};
    if (r.method === 'GET' && r.path === '/v1/health/') return [200, { version: '0.11.7', status: 'ok' }];
    if (r.path === '/v1/tools/' && r.method === 'PUT') return this.upsertTool(b);
    if (r.path === '/v1/folders/' || r.path === '/v1/agents/') {
      const agents = r.path === '/v1/agents/';
      const kind = agents ? this.agents : this.folders;
      // letta 0.11.7's folder listing takes no filter; its agent listing takes `name` and `limit` (default 50).
      if (r.method === 'GET')
        return [
          200,
          [...kind.values()]
            .filter((x) => !agents || !r.query.name || x.name === r.query.name)
            .slice(0, agents ? Number(r.query.limit ?? 50) : undefined)
            .map((x) => this.view(x)),
        ];
      if (r.method === 'POST') return r.path === '/v1/folders/' ? this.createFolder(b) : this.createAgent(b);
    }
    let m = /^\/v1\/folders\/([^/]+)(?:\/(upload|files|passages))?$/.exec(r.path);
    if (m) {
      const f = this.folders.get(m[1]!);
      if (!f) return [404, { detail: `Source with id ${m[1]} not found` }];
      if (m[2] === 'upload' && r.method === 'POST') return this.upload(f, b);
      if (m[2] === 'files' && r.method === 'GET') {
        this.settle(f);
        return [200, f.files.slice(0, Number(r.query.limit ?? 1000)).map((x) => this.fileView(x))];
      }
      if (m[2] === 'passages' && r.method === 'GET') {
        const list = r.query.order === 'asc' ? f.passages : [...f.passages].reverse();
        const from = r.query.after ? list.findIndex((p) => p.id === r.query.after) + 1 : 0;
        return [200, list.slice(from, from + Number(r.query.limit ?? 100))];
      }
      if (!m[2] && r.method === 'DELETE') {
        this.folders.delete(f.id);
        for (const a of this.agents.values()) a.folders = a.folders.filter((x) => x !== f.id);
        return [200, null];
      }
    }
    const arch = /^\/v1\/agents\/([^/]+)\/archival-memory(?:\/([^/]+))?$/.exec(r.path);
    if (arch) return this.archival(r, arch[1]!, arch[2] ?? null);
    m = /^\/v1\/agents\/([^/]+)(?:\/folders\/attach\/([^/]+)|\/(messages))?$/.exec(r.path);
    if (m) {
      const a = this.agents.get(m[1]!);
      if (!a) return [404, { detail: `Agent with id ${m[1]} not found` }];
      if (m[2] && r.method === 'PATCH') {
        if (!this.folders.has(m[2])) return [404, { detail: `Source with id ${m[2]} not found` }];
        if (!a.folders.includes(m[2])) a.folders.push(m[2]);
        a.tools = [...new Set([...a.tools, ...FILE_TOOLS])];
        return [200, this.view(a)];
      }
      if (m[3] && r.method === 'POST') return this.message(a, b);
      if (!m[2] && !m[3] && r.method === 'DELETE') {
        this.agents.delete(a.id);
        return [200, null];
      }
    }
    return [404, { detail: 'Not Found' }];
  }

  private view(x: Folder | Agent): Record<string, unknown> {
    return 'files' in x
      ? { id: x.id, name: x.name, description: x.description, embedding_config: x.embedding_config }
      : { id: x.id, name: x.name, agent_type: x.agent_type, tools: x.tools.map((t) => ({ name: t })) };
  }

  private createFolder(b: Record<string, any>): [number, unknown] {
    if (typeof b.name !== 'string' || !b.name) return [422, { detail: [{ loc: ['body', 'name'], msg: 'Field required' }] }];
    const e = b.embedding_config;
    if (!e || typeof e.embedding_model !== 'string' || typeof e.embedding_dim !== 'number' || !e.embedding_endpoint_type)
      return [400, { detail: 'Must specify either embedding or embedding_config in request' }];
    if ([...this.folders.values()].some((f) => f.name === b.name)) return [409, { detail: `folder ${b.name} already exists` }];
    const f: Folder = {
      id: `source-${randomUUID()}`,
      name: b.name,
      description: b.description ?? null,
      embedding_config: e,
      files: [],
      passages: [],
    };
    this.folders.set(f.id, f);
    return [200, this.view(f)];
  }

  private upload(f: Folder, b: Record<string, { filename: string | null; content: string }>): [number, unknown] {
    const part = b?.file;
    if (!part?.filename) return [422, { detail: [{ loc: ['body', 'file'], msg: 'Field required' }] }];
    const original = part.filename;
    let name = original;
    for (let i = 1; f.files.some((x) => x.file_name === name); i++) name = original.replace(/(\.[^.]*)?$/, `_(${i})$1`);
    const file: File = {
      id: `file-${randomUUID()}`,
      file_name: name,
      original_file_name: original,
      source_id: f.id,
      processing_status: 'parsing',
      content: part.content,
      polls: 0,
    };
    f.files.push(file);
    this.applied.push(`${f.name} ${original}\n${part.content}`);
    return [200, this.fileView(file)];
  }

  private createAgent(b: Record<string, any>): [number, unknown] {
    if (typeof b.name !== 'string' || !b.name) return [422, { detail: [{ loc: ['body', 'name'], msg: 'Field required' }] }];
    // letta/schemas/agent.py validate_name: letters, digits, spaces, hyphens, underscores.
    if (!/^[A-Za-z0-9 _-]+$/.test(b.name))
      return [422, { detail: [{ loc: ['body', 'name'], msg: 'Value error, Name contains invalid characters.' }] }];
    if (b.agent_type !== undefined && !AGENT_TYPES.includes(b.agent_type))
      return [422, { detail: [{ loc: ['body', 'agent_type'], msg: `Input should be ${AGENT_TYPES.map((t) => `'${t}'`).join(', ')}` }] }];
    const llm = b.llm_config;
    if (!llm || typeof llm.model !== 'string' || typeof llm.context_window !== 'number' || !llm.model_endpoint_type)
      return [422, { detail: [{ loc: ['body', 'llm_config'], msg: 'model, model_endpoint_type and context_window are required' }] }];
    const rules = (b.tool_rules ?? []) as Array<{ type: string; tool_name: string }>;
    if (!rules.every((x) => ['run_first', 'exit_loop', 'continue_loop'].includes(x.type) && typeof x.tool_name === 'string'))
      return [422, { detail: [{ loc: ['body', 'tool_rules'], msg: 'unknown tool rule' }] }];
    const tools = (b.tools ?? []) as string[];
    const known = new Set([...FILE_TOOLS, 'send_message', 'memory_insert', 'memory_replace', ...this.tools.keys()]);
    if (!tools.every((t) => known.has(t))) return [404, { detail: `Tool not found: ${tools.find((t) => !known.has(t))}` }];
    const a: Agent = {
      id: `agent-${randomUUID()}`,
      name: b.name,
      agent_type: b.agent_type ?? 'memgpt_v2_agent',
      folders: [],
      tools: [...tools],
      rules,
      body: b,
    };
    if (b.include_base_tools !== false) a.tools.push('send_message', 'memory_insert', 'memory_replace');
    this.agents.set(a.id, a);
    return [200, this.view(a)];
  }

  /** The archival routes of letta 0.11.7's agents.py: insert, list, search, delete one passage. */
  private archival(r: RecordedRequest, agentId: string, sub: string | null): [number, unknown] {
    const a = this.agents.get(agentId);
    const held = this.archives.get(agentId) ?? [];
    if (sub !== null && r.method === 'DELETE') {
      const i = held.findIndex((p) => p.id === sub);
      if (i < 0) return [404, { detail: `Passage with id ${sub} not found` }];
      held.splice(i, 1);
      return [200, { message: `Memory id=${sub} successfully deleted` }];
    }
    if (!a) return [404, { detail: `Agent with id=${agentId} not found` }];
    const b = r.body ?? {};
    if (sub === null && r.method === 'POST') {
      if (typeof b.text !== 'string') return [422, { detail: [{ loc: ['body', 'text'], msg: 'Field required' }] }];
      if (b.tags !== undefined && (!Array.isArray(b.tags) || b.tags.some((t: unknown) => typeof t !== 'string')))
        return [422, { detail: [{ loc: ['body', 'tags'], msg: 'Input should be a valid list of strings' }] }];
      if (b.created_at !== undefined && Number.isNaN(Date.parse(b.created_at)))
        return [422, { detail: [{ loc: ['body', 'created_at'], msg: 'Input should be a valid datetime' }] }];
      const p: ArchivalPassage = {
        id: `passage-${randomUUID()}`,
        text: b.text,
        tags: b.tags ?? null,
        created_at: b.created_at ?? new Date().toISOString(),
        archive_id: `archive-${agentId}`,
      };
      this.archives.set(agentId, [...held, p]);
      this.applied.push(`${a.name} ${b.text}`);
      return [200, [p]];
    }
    if (sub === null && r.method === 'GET') {
      const list = r.query.ascending === 'false' ? [...held].reverse() : held;
      const from = r.query.after ? list.findIndex((p) => p.id === r.query.after) + 1 : 0;
      return [200, list.slice(from, r.query.limit ? from + Number(r.query.limit) : undefined)];
    }
    if (sub === 'search' && r.method === 'GET') {
      if (!r.query.query) return [422, { detail: [{ loc: ['query', 'query'], msg: 'Field required' }] }];
      const q = words(r.query.query);
      const found = this.blindSearch
        ? []
        : held
            .map((p) => ({ p, s: [...words(p.text)].filter((w) => q.has(w)).length }))
            .filter((h) => h.s > 0)
            .sort((x, y) => y.s - x.s)
            .slice(0, Number(r.query.top_k ?? 10))
            .map(({ p }) => ({ timestamp: p.created_at, content: p.text, tags: p.tags ?? [] }));
      return [200, { results: found, count: found.length }];
    }
    return [404, { detail: 'Not Found' }];
  }

  /** One step of the agent: its run_first tool, semantic_search_files, called with the user's text; no other agent is run here. */
  private message(a: Agent, b: Record<string, any>): [number, unknown] {
    const msgs = b.messages;
    if (!Array.isArray(msgs) || msgs.length === 0) return [422, { detail: 'Messages must not be empty' }];
    const first = a.rules.find((x) => x.type === 'run_first')?.tool_name;
    if (first !== 'semantic_search_files' || !a.tools.includes(first))
      return [400, { detail: 'this loopback server runs only agents whose first tool is an attached semantic_search_files' }];
    const query = String(msgs[msgs.length - 1].content ?? '').trim();
    const args = { query };
    const ret = this.search(a, args);
    const call = (name: string, args: unknown, ret: string) => [
      { id: `message-${randomUUID()}`, message_type: 'tool_call_message', tool_call: { name, arguments: JSON.stringify(args) } },
      { id: `message-${randomUUID()}`, message_type: 'tool_return_message', name, tool_return: ret, status: 'success' },
    ];
    const messages = call(first, args, ret);
    // -S mode=agent: the search continues the loop and answer_question (a terminal tool) ends it, answered as
    // the loopback API's Letta responder makes the real agent's LLM answer.
    const terminal = a.rules.find((x) => x.type === 'exit_loop')?.tool_name;
    if (terminal === 'answer_question' && a.tools.includes(terminal)) {
      const answer = bestLine(ret, query) ?? 'No information found.';
      this.answers.push({ question: query, answer });
      messages.push(...call(terminal, { answer }, answer));
    }
    return [
      200,
      {
        messages,
        stop_reason: { message_type: 'stop_reason', stop_reason: 'tool_rule' },
        usage: { step_count: messages.length / 2 },
      },
    ];
  }

  /** PUT /v1/tools/ (upsert_tool): a tool made from its Python source, named after its function; the same name is replaced. */
  private upsertTool(b: Record<string, any>): [number, unknown] {
    const name = typeof b.source_code === 'string' ? /^def (\w+)\(/m.exec(b.source_code)?.[1] : undefined;
    if (!name) return [400, { detail: 'source_code must define a function' }];
    const id = this.tools.get(name)?.id ?? `tool-${randomUUID()}`;
    this.tools.set(name, { id, source_code: b.source_code });
    return [200, { id, name, source_code: b.source_code, tool_type: 'custom' }];
  }

  /** semantic_search_files as _search_files_native prints it. */
  private search(a: Agent, args: Record<string, any>): string {
    const query = String(args.query ?? '').trim();
    const limit = Math.min(Number(args.limit ?? 5), 50);
    const q = words(query);
    const passages = this.blindSearch
      ? []
      : a.folders
          .flatMap((id) => this.folders.get(id)?.passages ?? [])
          .map((p) => ({ p, s: [...words(p.text)].filter((w) => q.has(w)).length }))
          .filter((h) => h.s > 0)
          .sort((x, y) => y.s - x.s)
          .slice(0, limit)
          .map((h) => h.p);
    if (passages.length === 0) return `No semantic matches found for query: '${query}'`;
    const blocks = passages.map((p, i) => {
      const lines = p.text.trim().split('\n');
      const shown = lines.slice(0, 20).map((l) => `  ${l}`);
      if (lines.length > 20) shown.push(`  ... [truncated ${lines.length - 20} more lines]`);
      return `\n=== ${p.file_name} (passage #${i + 1}) ===\n${shown.join('\n')}`;
    });
    const files = new Set(passages.map((p) => p.file_name)).size;
    const summary = `Found ${passages.length} semantic matches in ${files} file${files !== 1 ? 's' : ''} for query: '${query}'`;
    return [summary, '='.repeat(summary.length), ...blocks].join('\n');
  }
}
