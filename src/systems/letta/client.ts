/**
 * The Letta (MemGPT) V1 server's REST API (letta 0.11.7, letta/server/rest_api/routers/v1/) as a
 * MemoryService, driven as Letta's LoCoMo script drives it (protocol.md): per owner a folder
 * (`POST /v1/folders/ {name, description, embedding_config}`), one text file per session
 * (`POST /v1/folders/{id}/upload`, multipart `file`) -> FileMetadata {id, file_name,
 * original_file_name, processing_status}, processed in the background until `completed` or `error`
 * (`GET /v1/folders/{id}/files`); per question an agent (`POST /v1/agents/`, its first and last tool
 * `semantic_search_files`) with the folder attached (`PATCH /v1/agents/{id}/folders/attach/
 * {folder_id}`, which attaches Letta's file tools), sent the question (`POST /v1/agents/{id}/messages`):
 * its LLM calls the search, whose `tool_return_message` holds the passages found; the agent is then
 * deleted. Passages `GET /v1/folders/{id}/passages`; `DELETE /v1/agents/{id}`, `DELETE /v1/folders/{id}`.
 *
 * A memory is a passage, its id the file's id (the script's chunk size makes one passage per file),
 * so the turns behind it are the session's, recorded with the add (its event names the file).
 */
import { randomUUID } from 'node:crypto';
import { BadReplyError } from '../../providers/errors.js';
import { needs, pollUntil } from '../memory-service/http.js';
import type { AddCall, AddOutcome, MemoryService, ServiceMemory, ServiceSearch } from '../memory-service/service.js';
import { dateOfText, fileName, parseSearchReply, sessionFile, type FoundPassage } from './files.js';
import { LettaServer } from './server.js';

type Json = Record<string, any>;

export interface LettaOptions {
  /** The OpenAI-compatible endpoint the folder's embedding config and the agent's LLM config name (null: the server's own OPENAI_BASE_URL). */
  endpoint: string | null;
  /** The embedding model the folder's config names (the script: text-embedding-3-large). */
  embeddingModel: string;
  embeddingDim: number;
  chunkSize: number;
  /** The agent's LLM (it writes the search's arguments). */
  llmModel: string;
  /** The agent's system prompt (the script's locomo_agent.txt). */
  agentSystem: string;
  /**
   * -S mode=agent: the docstring of the script's answer_question tool; the agent then answers
   * through it (its terminal tool) and its answer is the run's. Null: the agent only searches.
   */
  answerDoc?: string | null;
}

const ANSWER_TOOL = 'answer_question';

/** The script's answer_question tool (L34-45) as Python source: the function around its docstring, returning its argument. */
export function answerToolSource(doc: string): string {
  const body = doc
    .trimEnd()
    .split('\n')
    .map((l) => (l ? `    ${l}` : ''));
  return ['def answer_question(answer: str) -> str:', '    """', ...body, '    """', '    return answer', ''].join('\n');
}

const PAGE = 100;
const SEARCH_TOOL = 'semantic_search_files';
/** Agents are named `<owner>__q__<uuid>` (letta allows letters, digits, spaces, `-` and `_` only): one per question, found by their owner's prefix on purge. */
const AGENT_SEP = '__q__';
const agentPrefix = (owner: string) => `${owner.replace(/[^A-Za-z0-9 _-]/g, '_')}${AGENT_SEP}`;

interface FileRecord {
  id: string;
  turnIds: string[];
  addKey: string | null;
  date: string | null;
}

export const listOf = (v: unknown, what: string): Json[] => {
  if (!Array.isArray(v)) throw new BadReplyError(`Letta's ${what} is not a list: ${JSON.stringify(v)?.slice(0, 200)}`, true);
  return v as Json[];
};

/** The script's EmbeddingConfig (L799-805), its endpoint the configured one instead of api.openai.com. */
export function embeddingConfigOf(opts: LettaOptions): Json {
  return {
    embedding_model: opts.embeddingModel,
    embedding_endpoint_type: 'openai',
    embedding_endpoint: opts.endpoint,
    embedding_dim: opts.embeddingDim,
    embedding_chunk_size: opts.chunkSize,
  };
}

export class LettaService extends LettaServer implements MemoryService {
  readonly api = 'letta-v1';
  private readonly folders = new Map<string, string>();
  /** Owner -> file name -> what rawrag knows of it (this process's adds, and the folder's listing). */
  private readonly files = new Map<string, Map<string, FileRecord>>();
  /** Owner -> file id -> the passages' texts (read once the owner is ready). */
  private readonly passages = new Map<string, Map<string, string[]>>();

  private embeddingConfig(): Json {
    return embeddingConfigOf(this.opts);
  }

  /** The owner's folder (found by name after a restart), or null. */
  private async folderByName(owner: string): Promise<string | null> {
    const found = listOf(await this.http.request({ method: 'GET', path: '/v1/folders/' }), 'folder list');
    const hit = found.find((f) => f.name === owner);
    return hit ? String(hit.id) : null;
  }

  private async folderOf(owner: string, create: boolean): Promise<string | null> {
    const known = this.folders.get(owner) ?? (await this.folderByName(owner));
    if (known || !create) {
      if (known) this.folders.set(owner, known);
      return known;
    }
    const body = {
      name: owner,
      description: `The conversation history, containing timestamped messages of the conversation ${owner}.`,
      embedding_config: this.embeddingConfig(),
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
    this.fileMap(call.owner).set(String(meta.file_name ?? file.name), {
      id: meta.id,
      turnIds: call.turnIds,
      addKey: call.key,
      date: call.date,
    });
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
        report(
          `${waiting.length} of ${files.length} files not processed yet (${[...new Set(waiting.map((f) => f.processing_status))].join(', ')})`,
        );
        return undefined;
      },
      {
        what: `Letta's processing of folder '${owner}'`,
        timeoutMs,
        firstMs: Math.min(1000, Math.max(1, this.transport.retry.baseDelayMs)),
        maxMs: 2000,
        signal,
      },
    );
    this.passages.delete(owner);
  }

  private answerTool: Promise<unknown> | null = null;

  /** The script's answer_question tool, upserted once (its setup_tools: tools.upsert_from_function). */
  private ensureAnswerTool(doc: string): Promise<unknown> {
    const body = { source_code: answerToolSource(doc), source_type: 'python' };
    this.answerTool ??= this.http.request({ method: 'PUT', path: '/v1/tools/', body, read: needs('tool upsert', ['id'], 'string') });
    return this.answerTool.catch((e) => {
      this.answerTool = null;
      throw e;
    });
  }

  /**
   * A fresh agent for one question, as the script makes one per question (L849-873), the folder
   * attached: mode=search, the search its first and last tool; mode=agent, the script's rules
   * (the search first and continuing, answer_question terminal).
   */
  private async newAgent(owner: string): Promise<string> {
    const doc = this.opts.answerDoc ?? null;
    if (doc !== null) await this.ensureAnswerTool(doc);
    const body = {
      name: `${agentPrefix(owner)}${randomUUID()}`,
      agent_type: 'react_agent',
      include_base_tools: false,
      tools: doc !== null ? [SEARCH_TOOL, ANSWER_TOOL] : [SEARCH_TOOL],
      tool_rules:
        doc !== null
          ? [
              { type: 'exit_loop', tool_name: ANSWER_TOOL },
              { type: 'continue_loop', tool_name: SEARCH_TOOL },
              { type: 'run_first', tool_name: SEARCH_TOOL },
            ]
          : [
              { type: 'run_first', tool_name: SEARCH_TOOL },
              { type: 'exit_loop', tool_name: SEARCH_TOOL },
            ],
      system: this.opts.agentSystem,
      llm_config: { model: this.opts.llmModel, model_endpoint_type: 'openai', model_endpoint: this.opts.endpoint, context_window: 128000 },
      embedding_config: this.embeddingConfig(),
    };
    const a = await this.http.request<Json>({ method: 'POST', path: '/v1/agents/', body, read: needs('agent create', ['id'], 'string') });
    const folder = await this.folderOf(owner, false);
    if (folder) await this.http.request({ method: 'PATCH', path: `/v1/agents/${a.id}/folders/attach/${folder}` });
    return String(a.id);
  }

  /** The owner's passages by file id, read once (again when a search names a file not read yet). */
  private async passagesOf(owner: string, refresh = false): Promise<Map<string, string[]>> {
    const cached = this.passages.get(owner);
    if (cached && !refresh) return cached;
    const byFile = new Map<string, string[]>();
    for (const p of await this.allPassages(owner))
      byFile.set(String(p.file_id), [...(byFile.get(String(p.file_id)) ?? []), String(p.text ?? '')]);
    this.passages.set(owner, byFile);
    return byFile;
  }

  private async allPassages(owner: string): Promise<Json[]> {
    const folder = await this.folderOf(owner, false);
    if (!folder) return [];
    const out: Json[] = [];
    for (let after: string | null = null; ;) {
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

  /**
   * The question sent to a fresh agent, whose LLM runs semantic_search_files; each passage it found,
   * whole, with its file's date and turns. mode=agent: every search the agent ran, and its answer,
   * the last answer_question return (the script's extract_last_message; none: an empty answer).
   */
  async search(owner: string, query: string, limit: number): Promise<ServiceMemory[] | ServiceSearch> {
    const agent = await this.newAgent(owner);
    let reply: Json;
    try {
      reply = await this.http.request<Json>({
        method: 'POST',
        path: `/v1/agents/${agent}/messages`,
        body: { messages: [{ role: 'user', content: query }] },
        read: needs('agent message', ['messages'], 'list'),
      });
    } finally {
      await this.remove(`/v1/agents/${agent}`);
    }
    const returns = (reply.messages as Json[]).filter((m) => m.message_type === 'tool_return_message');
    const searches = returns.filter((m) => m.name === SEARCH_TOOL);
    if (!searches.length)
      throw new BadReplyError(`Letta's agent did not run ${SEARCH_TOOL}: ${JSON.stringify(reply.messages).slice(0, 300)}`, false);
    const failed = searches.find((m) => m.status !== 'success');
    if (failed) throw new Error(`Letta's ${SEARCH_TOOL} failed: ${String(failed.tool_return).slice(0, 300)}`);
    if (this.opts.answerDoc == null)
      return this.passagesFound(owner, parseSearchReply(String(searches[0]!.tool_return ?? '')).slice(0, limit));
    // The agent read every search it ran: all their passages, each once, in the order found.
    const seen = new Set<string>();
    const found = searches
      .flatMap((m) => parseSearchReply(String(m.tool_return ?? '')))
      .filter((f) => {
        const k = `${f.file}\n${f.lines.join('\n')}`;
        return seen.has(k) ? false : (seen.add(k), true);
      });
    const answers = returns.filter((m) => m.name === ANSWER_TOOL && m.status === 'success');
    const answer = answers.length ? String(answers[answers.length - 1]!.tool_return ?? '') : '';
    return { memories: await this.passagesFound(owner, found), answer };
  }

  /** The passages a search printed, each whole (the folder's passage it starts), with its file's id, date and turns. */
  private async passagesFound(owner: string, found: FoundPassage[]): Promise<ServiceMemory[]> {
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

  async deleteOwner(owner: string): Promise<string[]> {
    const removed: string[] = [];
    const agents = listOf(await this.http.request({ method: 'GET', path: '/v1/agents/', query: { limit: '1000' } }), 'agent list');
    for (const a of agents.filter((x) => typeof x.name === 'string' && x.name.startsWith(agentPrefix(owner))))
      if (await this.remove(`/v1/agents/${a.id}`)) removed.push(`agent ${a.id}`);
    const folder = this.folders.get(owner) ?? (await this.folderByName(owner));
    if (folder && (await this.remove(`/v1/folders/${folder}`))) removed.push(`folder ${folder} (its files and passages)`);
    for (const m of [this.folders, this.files, this.passages]) m.delete(owner);
    return removed;
  }

  addFailure(_call: AddCall, e: unknown): Error {
    return this.http.failure({ method: 'POST', path: '/v1/folders/{id}/upload' }, e);
  }

  report(): Record<string, unknown> {
    return { sent: Object.fromEntries([...this.http.sent].sort()), retries: this.http.retries };
  }
}
