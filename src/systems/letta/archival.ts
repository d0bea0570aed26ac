/**
 * Letta's archival memory as a MemoryService (-S mode=archival; letta 0.11.7,
 * letta/server/rest_api/routers/v1/agents.py): per owner one agent (`POST /v1/agents/`, named after
 * the owner, the folder mode's embedding config: chunk size 100000, one passage per session), each
 * session written to its archival memory as one passage (`POST /v1/agents/{id}/archival-memory
 * {text, tags, created_at}` -> list[Passage]: the text the session's file in mode=search holds,
 * `created_at` the session's date, one tag `rawrag:<add key>`); each question searched directly
 * (`GET /v1/agents/{id}/archival-memory/search?query&top_k` -> {results: [{timestamp, content,
 * tags}], count}: the same embedding search as the agent's archival_memory_search tool, no LLM call),
 * the passages shown to rawrag's common reader. Purge deletes every passage
 * (`DELETE /v1/agents/{id}/archival-memory/{passage_id}`: deleting an agent leaves its archive), then
 * the agent.
 *
 * A search result carries no id: its passage is found in the agent's listing
 * (`GET /v1/agents/{id}/archival-memory?after&limit&ascending`) by its tag and text.
 */
import { needs } from '../memory-service/http.js';
import type { AddCall, AddOutcome, MemoryService, ServiceMemory } from '../memory-service/service.js';
import { embeddingConfigOf, listOf } from './client.js';
import { LettaServer } from './server.js';
import { dateOfText, sessionFile } from './files.js';

type Json = Record<string, any>;

const PAGE = 100;
/** The tag that names the add a passage came from (tags are Letta's only per-passage metadata a search returns). */
export const addTag = (key: string) => `rawrag:${key}`;
const keyOfTags = (tags: unknown): string | null => {
  const t = Array.isArray(tags) ? tags.find((x) => typeof x === 'string' && x.startsWith('rawrag:')) : undefined;
  return t ? (t as string).slice('rawrag:'.length) : null;
};
/** The owner's agent name (letta allows letters, digits, spaces, `-` and `_` only). */
export const archivalAgentName = (owner: string) => owner.replace(/[^A-Za-z0-9 _-]/g, '_');

interface Added {
  turnIds: string[];
  date: string | null;
}

export class LettaArchival extends LettaServer implements MemoryService {
  readonly api = 'letta-v1-archival';
  private readonly agents = new Map<string, string>();
  /** Add key -> its turns and date (this process's adds). */
  private readonly added = new Map<string, Added>();
  /** Owner -> the agent's passages as listed (read once per owner, again when a search finds one not listed). */
  private readonly listed = new Map<string, Json[]>();

  /** Every agent named after the owner (one, unless a lost create reply made two). */
  private async agentsNamed(owner: string): Promise<string[]> {
    const name = archivalAgentName(owner);
    const found = listOf(await this.http.request({ method: 'GET', path: '/v1/agents/', query: { name, limit: '1000' } }), 'agent list');
    return found.filter((a) => a.name === name).map((a) => String(a.id));
  }

  private async agentOf(owner: string, create: boolean): Promise<string | null> {
    const known = this.agents.get(owner) ?? (await this.agentsNamed(owner))[0] ?? null;
    if (known || !create) {
      if (known) this.agents.set(owner, known);
      return known;
    }
    // The agent only holds the archive: it is never sent a message (no LLM call), so it has no tools.
    const body = {
      name: archivalAgentName(owner),
      description: `The conversation history, containing timestamped sessions of the conversation ${owner}.`,
      agent_type: 'react_agent',
      include_base_tools: false,
      tools: [],
      llm_config: { model: this.opts.llmModel, model_endpoint_type: 'openai', model_endpoint: this.opts.endpoint, context_window: 128000 },
      embedding_config: embeddingConfigOf(this.opts),
    };
    const a = await this.http.request<Json>({ method: 'POST', path: '/v1/agents/', body, read: needs('agent create', ['id'], 'string') });
    this.agents.set(owner, String(a.id));
    return String(a.id);
  }

  async addOnce(call: AddCall): Promise<AddOutcome> {
    const agent = (await this.agentOf(call.owner, true))!;
    const text = sessionFile(call).content;
    const body = {
      text,
      tags: [addTag(call.key)],
      ...(call.timestamp !== null ? { created_at: new Date(call.timestamp * 1000).toISOString() } : {}),
    };
    const made = listOf(
      await this.http.once({
        method: 'POST',
        path: `/v1/agents/${agent}/archival-memory`,
        body,
        read: needs('passage insert', [], 'list'),
      }),
      'passage insert',
    );
    this.added.set(call.key, { turnIds: call.turnIds, date: call.date });
    this.listed.delete(call.owner);
    return { events: made.map((p) => ({ id: String(p.id), event: 'ADD' as const, memory: String(p.text ?? text), previous: null })) };
  }

  /** The agent's passages, every page, oldest first. */
  private async allPassages(owner: string): Promise<Json[]> {
    const agent = await this.agentOf(owner, false);
    if (!agent) return [];
    const out: Json[] = [];
    for (let after: string | null = null; ;) {
      const query: Record<string, string> = { limit: String(PAGE), ascending: 'true', ...(after ? { after } : {}) };
      const page = listOf(await this.http.request({ method: 'GET', path: `/v1/agents/${agent}/archival-memory`, query }), 'passage list');
      out.push(...page);
      if (page.length < PAGE) return out;
      after = String(page[page.length - 1]!.id);
    }
  }

  private async passagesOf(owner: string, refresh = false): Promise<Json[]> {
    const cached = this.listed.get(owner);
    if (cached && !refresh) return cached;
    const all = await this.allPassages(owner);
    this.listed.set(owner, all);
    return all;
  }

  /** An add whose reply was lost: the passages tagged with its key. */
  async findAdd(call: AddCall): Promise<string[]> {
    return (await this.passagesOf(call.owner, true)).filter((p) => keyOfTags(p.tags) === call.key).map((p) => String(p.id));
  }

  private memoryOf(id: string, text: string, tags: unknown): ServiceMemory {
    const key = keyOfTags(tags);
    const rec = key ? this.added.get(key) : undefined;
    const date = dateOfText(text);
    const lines = text.split('\n');
    return {
      id,
      memory: (date !== null ? lines.slice(1) : lines).join('\n').trim(),
      score: null,
      date: date ?? rec?.date ?? null,
      turnIds: rec?.turnIds ?? [],
      addKey: key,
    };
  }

  /** The question searched in the owner's archival memory (Letta's embedding search, no LLM); each result mapped to its passage. */
  async search(owner: string, query: string, limit: number): Promise<ServiceMemory[]> {
    const agent = await this.agentOf(owner, false);
    if (!agent) return [];
    const reply = await this.http.request<Json>({
      method: 'GET',
      path: `/v1/agents/${agent}/archival-memory/search`,
      query: { query, top_k: String(limit) },
      read: needs('archival search', ['results'], 'list'),
    });
    const results = (reply.results as Json[]).slice(0, limit);
    const same = (p: Json, r: Json) => String(p.text) === String(r.content) && keyOfTags(p.tags) === keyOfTags(r.tags);
    let passages = await this.passagesOf(owner);
    if (results.some((r) => !passages.some((p) => same(p, r)))) passages = await this.passagesOf(owner, true);
    return results.map((r) => {
      const p = passages.find((x) => same(x, r));
      if (!p) throw new Error(`Letta's archival search returned a passage its listing does not hold: ${String(r.content).slice(0, 120)}`);
      return this.memoryOf(String(p.id), String(r.content), r.tags);
    });
  }

  async list(owner: string): Promise<ServiceMemory[]> {
    return (await this.passagesOf(owner, true)).map((p) => this.memoryOf(String(p.id), String(p.text ?? ''), p.tags));
  }

  /** Every passage of the owner's agent(s) deleted one by one (an agent's deletion leaves its archive's passages), then the agent. */
  async deleteOwner(owner: string): Promise<string[]> {
    const removed: string[] = [];
    for (const agent of await this.agentsNamed(owner)) {
      this.agents.set(owner, agent);
      let n = 0;
      for (const p of await this.allPassages(owner)) if (await this.remove(`/v1/agents/${agent}/archival-memory/${p.id}`)) n++;
      if (await this.remove(`/v1/agents/${agent}`)) removed.push(`agent ${agent} and ${n} archival passage${n === 1 ? '' : 's'}`);
      this.agents.delete(owner);
    }
    this.listed.delete(owner);
    return removed;
  }

  addFailure(_call: AddCall, e: unknown): Error {
    return this.http.failure({ method: 'POST', path: '/v1/agents/{id}/archival-memory' }, e);
  }

  report(): Record<string, unknown> {
    return { sent: Object.fromEntries([...this.http.sent].sort()), retries: this.http.retries };
  }
}
