/**
 * The Letta (MemGPT) V1 server's REST API (letta 0.16.8, letta/server/rest_api/routers/v1/) as a
 * MemoryService, driven as Letta's LoCoMo script drives it (protocol.ts): per owner a folder
 * (`POST /v1/folders/ {name, description, embedding_config}`), one text file per session
 * (`POST /v1/folders/{id}/upload`, multipart `file`) -> FileMetadata {id, file_name,
 * original_file_name, processing_status}, processed in the background until `completed` or `error`
 * (`GET /v1/folders/{id}/files`); then an agent (`POST /v1/agents/`) with the folder attached
 * (`PATCH /v1/agents/{id}/folders/attach/{folder_id}`, which attaches Letta's file tools); a question
 * is the agent's own `semantic_search_files` run by rawrag (`POST /v1/agents/{id}/tools/
 * semantic_search_files/run {args: {query, limit}}` -> {status, func_return}); passages
 * `GET /v1/folders/{id}/passages`; `DELETE /v1/agents/{id}`, `DELETE /v1/folders/{id}`.
 *
 * A memory is a passage, its id the file's id (the script's chunk size makes one passage per file),
 * so the turns behind it are the session's, recorded with the add (its event names the file).
 */
import { BadReplyError } from '../../providers/errors.js';
import type { RetryPolicy } from '../../providers/retry.js';
import { JsonService, needs, pollUntil, statusOf, type ServiceTransport } from '../memory-service/http.js';
import type { AddCall, AddOutcome, MemoryService, ServiceMemory, ServiceProbe } from '../memory-service/service.js';
import { dateOfText, fileName, parseSearchReply, sessionFile } from './files.js';

type Json = Record<string, any>;

export interface LettaOptions {
  /** The embedding model the folder's config names (the script: text-embedding-3-large). */
  embeddingModel: string;
  embeddingDim: number;
  chunkSize: number;
  /** The agent's LLM (never called when rawrag runs the search tool itself). */
  llmModel: string;
  /** The agent's system prompt (the script's locomo_agent.txt). */
  agentSystem: string;
}

const PAGE = 100;
const SEARCH_TOOL = 'semantic_search_files';

interface FileRecord {
  id: string;
  turnIds: string[];
  addKey: string | null;
  date: string | null;
}

const listOf = (v: unknown, what: string): Json[] => {
  if (!Array.isArray(v)) throw new BadReplyError(`Letta's ${what} is not a list: ${JSON.stringify(v)?.slice(0, 200)}`, true);
  return v as Json[];
};

export class LettaService implements MemoryService {
  readonly system = 'Letta';
  readonly api = 'letta-v1';
  private readonly http: JsonService;
  private readonly folders = new Map<string, string>();
  private readonly agents = new Map<string, string>();
  /** Owner -> file name -> what rawrag knows of it (this process's adds, and the folder's listing). */
  private readonly files = new Map<string, Map<string, FileRecord>>();
  /** Owner -> file id -> the passages' texts (read once the owner is ready). */
  private readonly passages = new Map<string, Map<string, string[]>>();
  private embedding: Promise<Json> | null = null;

  constructor(
    readonly url: string,
    private readonly opts: LettaOptions,
    key: string | undefined,
    private readonly transport: ServiceTransport,
  ) {
    this.http = new JsonService(url, key ? { authorization: `Bearer ${key}` } : {}, transport, 'letta');
  }

  get retry(): RetryPolicy {
    return this.transport.retry;
  }

  async probe(): Promise<ServiceProbe> {
    const h = await this.http.request<Json>({ method: 'GET', path: '/v1/health/' });
    return { version: typeof h?.version === 'string' ? h.version : null };
  }

  /** The server's own OpenAI embedding config for the model (its endpoint = the server's OPENAI_BASE_URL), with the script's dimension and chunk size. */
  private embeddingConfig(): Promise<Json> {
    this.embedding ??= (async () => {
      const models = listOf(await this.http.request({ method: 'GET', path: '/v1/models/embedding' }), 'embedding model list');
      const m = models.find((c) => c.embedding_model === this.opts.embeddingModel);
      if (!m)
        throw new Error(
          `Letta offers no embedding model '${this.opts.embeddingModel}' (it lists: ${models.map((c) => c.embedding_model).join(', ') || 'none'}): is OPENAI_BASE_URL set for the server?`,
        );
      return { ...m, embedding_dim: this.opts.embeddingDim, embedding_chunk_size: this.opts.chunkSize };
    })();
    this.embedding.catch(() => (this.embedding = null));
    return this.embedding;
  }

  /** The owner's folder or agent (found by name after a restart), or null. */
  private async byName(kind: 'folders' | 'agents', owner: string): Promise<string | null> {
    const found = listOf(await this.http.request({ method: 'GET', path: `/v1/${kind}/`, query: { name: owner } }), `${kind} list`);
    const hit = found.find((f) => f.name === owner);
    return hit ? String(hit.id) : null;
  }

  private async folderOf(owner: string, create: boolean): Promise<string | null> {
    const known = this.folders.get(owner) ?? (await this.byName('folders', owner));
    if (known || !create) {
      if (known) this.folders.set(owner, known);
      return known;
    }
    const body = {
      name: owner,
      description: `The conversation history, containing timestamped messages of the conversation ${owner}.`,
      embedding_config: await this.embeddingConfig(),
    };
    const f = await this.http.request<Json>({ method: 'POST', path: '/v1/folders/', body, read: needs('folder create', ['id'], 'string') });
    this.folders.set(owner, String(f.id));
    return String(f.id);
  }

  private fileMap(owner: string): Map<string, FileRecord> {
    let m = this.files.get(owner);
    if (!m) this.files.set(owner, (m = new Map()));
    return m;
  }

  async addOnce(call: AddCall): Promise<AddOutcome> {
    const folder = (await this.folderOf(call.owner, true))!;
    const file = sessionFile(call);
    const form = () => {
      const f = new FormData();
      f.append('file', new Blob([file.content], { type: 'text/plain' }), file.name);
      return f;
    };
    const meta = await this.http.once<Json>({
      method: 'POST',
      path: `/v1/folders/${folder}/upload`,
      form,
      read: needs('file upload', ['id'], 'string'),
    });
    this.fileMap(call.owner).set(String(meta.file_name ?? file.name), { id: meta.id, turnIds: call.turnIds, addKey: call.key, date: call.date });
    return { events: [{ id: String(meta.id), event: 'ADD', memory: file.content, previous: null }] };
  }

  /** The folder's files, each recorded by name. */
  private async listFiles(owner: string): Promise<Json[]> {
    const folder = await this.folderOf(owner, false);
    if (!folder) return [];
    const files = listOf(
      await this.http.request({ method: 'GET', path: `/v1/folders/${folder}/files`, query: { limit: '1000' } }),
      'file list',
    );
    const m = this.fileMap(owner);
    for (const f of files) {
      const name = String(f.file_name);
      if (!m.has(name)) m.set(name, { id: String(f.id), turnIds: [], addKey: null, date: null });
    }
    return files;
  }

  /** An add whose reply was lost: the folder's file of that session's name. */
  async findAdd(call: AddCall): Promise<string[]> {
    const name = fileName(call);
    return (await this.listFiles(call.owner)).filter((f) => f.original_file_name === name || f.file_name === name).map((f) => String(f.id));
  }

  /** Every file of the owner processed (`completed`; `error` fails), then its agent made with the folder attached. */
  async awaitReady(owner: string, _calls: readonly AddCall[], timeoutMs: number, signal?: AbortSignal): Promise<void> {
    await pollUntil(
      async (report) => {
        const files = await this.listFiles(owner);
        const failed = files.find((f) => f.processing_status === 'error');
        if (failed) throw new Error(`Letta could not process '${failed.file_name}': ${failed.error_message ?? 'status error'}`);
        const waiting = files.filter((f) => f.processing_status !== 'completed');
        if (waiting.length === 0) return true;
        report(`${waiting.length} of ${files.length} files not processed yet (${[...new Set(waiting.map((f) => f.processing_status))].join(', ')})`);
        return undefined;
      },
      { what: `Letta's processing of folder '${owner}'`, timeoutMs, firstMs: Math.min(1000, Math.max(1, this.transport.retry.baseDelayMs)), maxMs: 2000, signal },
    );
    await this.agentOf(owner);
    this.passages.delete(owner);
  }

  private async agentOf(owner: string): Promise<string> {
    const known = this.agents.get(owner) ?? (await this.byName('agents', owner));
    if (known) {
      this.agents.set(owner, known);
      return known;
    }
    const emb = await this.embeddingConfig();
    const body = {
      name: owner,
      agent_type: 'react_agent',
      include_base_tools: false,
      system: this.opts.agentSystem,
      llm_config: { model: this.opts.llmModel, model_endpoint_type: 'openai', model_endpoint: emb.embedding_endpoint, context_window: 128000 },
      embedding_config: emb,
    };
    const a = await this.http.request<Json>({ method: 'POST', path: '/v1/agents/', body, read: needs('agent create', ['id'], 'string') });
    const folder = await this.folderOf(owner, false);
    if (folder) await this.http.request({ method: 'PATCH', path: `/v1/agents/${a.id}/folders/attach/${folder}` });
    this.agents.set(owner, String(a.id));
    return String(a.id);
  }

  /** The owner's passages by file id, read once (again when a search names a file not read yet). */
  private async passagesOf(owner: string, refresh = false): Promise<Map<string, string[]>> {
    const cached = this.passages.get(owner);
    if (cached && !refresh) return cached;
    const byFile = new Map<string, string[]>();
    for (const p of await this.allPassages(owner)) byFile.set(String(p.file_id), [...(byFile.get(String(p.file_id)) ?? []), String(p.text ?? '')]);
    this.passages.set(owner, byFile);
    return byFile;
  }

  private async allPassages(owner: string): Promise<Json[]> {
    const folder = await this.folderOf(owner, false);
    if (!folder) return [];
    const out: Json[] = [];
    for (let after: string | null = null; ; ) {
      const query: Record<string, string> = { limit: String(PAGE), order: 'asc', ...(after ? { after } : {}) };
      const page = listOf(await this.http.request({ method: 'GET', path: `/v1/folders/${folder}/passages`, query }), 'passage list');
      out.push(...page);
      if (page.length < PAGE) return out;
      after = String(page[page.length - 1]!.id);
    }
  }

  private memoryOf(owner: string, fileId: string, text: string): ServiceMemory {
    const rec = [...this.fileMap(owner).values()].find((r) => r.id === fileId);
    const lines = text.split('\n');
    const date = dateOfText(text);
    return {
      id: fileId,
      memory: (date !== null ? lines.slice(1) : lines).join('\n').trim(),
      score: null,
      date: date ?? rec?.date ?? null,
      turnIds: rec?.turnIds ?? [],
      addKey: rec?.addKey ?? null,
    };
  }

  /** The agent's own semantic_search_files for the question; each passage found, whole, with its file's date and turns. */
  async search(owner: string, query: string, limit: number): Promise<ServiceMemory[]> {
    const agent = await this.agentOf(owner);
    const reply = await this.http.request<Json>({
      method: 'POST',
      path: `/v1/agents/${agent}/tools/${SEARCH_TOOL}/run`,
      body: { args: { query, limit } },
      read: needs('tool run', ['status'], 'string'),
    });
    if (reply.status !== 'success') throw new Error(`Letta's ${SEARCH_TOOL} failed: ${JSON.stringify(reply.stderr ?? reply.func_return)?.slice(0, 300)}`);
    const found = parseSearchReply(String(reply.func_return ?? ''));
    const named = (file: string) => {
      const m = this.fileMap(owner);
      return m.get(file) ?? [...m.entries()].find(([n]) => file.endsWith(`/${n}`))?.[1];
    };
    if (found.some((f) => !named(f.file))) await this.listFiles(owner);
    let texts = await this.passagesOf(owner);
    if (found.some((f) => !texts.has(named(f.file)?.id ?? ''))) texts = await this.passagesOf(owner, true);
    return found.map((f) => {
      const id = named(f.file)?.id;
      if (!id) throw new BadReplyError(`Letta's search named a file the folder does not list: ${f.file}`, false);
      const shown = f.lines.join('\n').trim();
      const whole = (texts.get(id) ?? []).find((t) => t.trim().startsWith(shown)) ?? shown;
      return this.memoryOf(owner, id, whole);
    });
  }

  async list(owner: string): Promise<ServiceMemory[]> {
    await this.listFiles(owner);
    return (await this.allPassages(owner)).map((p) => this.memoryOf(owner, String(p.file_id), String(p.text ?? '')));
  }

  private async remove(path: string): Promise<boolean> {
    try {
      await this.http.request({ method: 'DELETE', path });
      return true;
    } catch (e) {
      if (statusOf(e) === 404) return false;
      throw e;
    }
  }

  async deleteOwner(owner: string): Promise<string[]> {
    const removed: string[] = [];
    const agent = this.agents.get(owner) ?? (await this.byName('agents', owner));
    if (agent && (await this.remove(`/v1/agents/${agent}`))) removed.push(`agent ${agent}`);
    const folder = this.folders.get(owner) ?? (await this.byName('folders', owner));
    if (folder && (await this.remove(`/v1/folders/${folder}`))) removed.push(`folder ${folder} (its files and passages)`);
    for (const m of [this.agents, this.folders, this.files, this.passages]) m.delete(owner);
    return removed;
  }

  addFailure(_call: AddCall, e: unknown): Error {
    return this.http.failure({ method: 'POST', path: '/v1/folders/{id}/upload' }, e);
  }

  report(): Record<string, unknown> {
    return { sent: Object.fromEntries([...this.http.sent].sort()), retries: this.http.retries };
  }
}
