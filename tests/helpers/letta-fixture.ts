/**
 * The conformance suite's protocol check for Letta (tests/helpers/service-fixtures.ts registers its
 * fixture): what the loopback Letta server received, against the leaderboard script's protocol.
 */
import { expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './cli.js';
import type { ProtocolCheck, ServicePeer } from './service-fixtures.js';

const turnsOf = (c: ProtocolCheck) => c.dataset.episodes.filter((e) => c.episodes.includes(e.id)).flatMap((e) => e.turns);

/**
 * Letta as its leaderboard's LoCoMo script drives it (letta-ai/letta-leaderboard@802a7942
 * leaderboard/locomo/locomo_benchmark.py): one folder per conversation, its embedding config the
 * script's (text-embedding-3-large, 1536, chunk size 100000); one file per session named after its
 * date, `Timestamp: <date>` then `Speaker: text` lines (` [Image: caption]` where the turn has an
 * image); every file listed `completed` before the first search; per question an agent (a valid
 * agent type, no base tools, semantic_search_files its first and last tool, the script's system
 * prompt), the folder attached, sent the question verbatim, deleted after.
 */
export function checkLetta(peer: ServicePeer, c: ProtocolCheck): void {
  checkFolder(peer, c);
  checkQuestionAgents(peer, c, {
    tools: ['semantic_search_files'],
    tool_rules: [
      { type: 'run_first', tool_name: 'semantic_search_files' },
      { type: 'exit_loop', tool_name: 'semantic_search_files' },
    ],
  });
}

/**
 * Letta under -S mode=agent, the script's whole protocol: the folder as in mode=search; the script's
 * answer_question tool upserted (its docstring verbatim, configs/prompts/letta-answer-question.txt);
 * per question an agent with semantic_search_files (first, continuing) and answer_question
 * (terminal), the script's rules in its order.
 */
export function checkLettaAgent(peer: ServicePeer, c: ProtocolCheck): void {
  checkFolder(peer, c);
  checkQuestionAgents(peer, c, {
    tools: ['semantic_search_files', 'answer_question'],
    tool_rules: [
      { type: 'exit_loop', tool_name: 'answer_question' },
      { type: 'continue_loop', tool_name: 'semantic_search_files' },
      { type: 'run_first', tool_name: 'semantic_search_files' },
    ],
  });
  const upserts = peer.requests.filter((r) => r.method === 'PUT' && r.path === '/v1/tools/' && r.fault === null);
  expect(upserts.length).toBeGreaterThanOrEqual(1);
  const doc = readFileSync(join(ROOT, 'configs/prompts/letta-answer-question.txt'), 'utf8').trimEnd();
  const src = upserts[0]!.body.source_code as string;
  expect(src.startsWith('def answer_question(answer: str) -> str:\n')).toBe(true);
  expect(
    src
      .split('\n')
      .map((l) => l.replace(/^ {4}/, ''))
      .join('\n'),
  ).toContain(doc);
  expect(src.trimEnd().endsWith('return answer')).toBe(true);
}

function checkFolder(peer: ServicePeer, c: ProtocolCheck): void {
  const adds = peer.requests.filter((r) => peer.isAdd(r) && r.fault === null);
  const folders = peer.requests.filter((r) => r.method === 'POST' && r.path === '/v1/folders/' && r.fault === null);
  expect(folders).toHaveLength(c.episodes.length);
  for (const f of folders)
    expect(f.body.embedding_config).toMatchObject({
      embedding_model: 'text-embedding-3-large',
      embedding_dim: 1536,
      embedding_chunk_size: 100000,
    });
  const turns = turnsOf(c);
  const sessions = [...new Set(turns.map((t) => t.session))];
  const sent = new Map(adds.map((a) => [a.body.file.filename as string, a.body.file.content as string]));
  expect(sent.size).toBe(sessions.length);
  for (const s of sessions) {
    const st = turns.filter((t) => t.session === s);
    const name = `${st[0]!.date!.replace(/\//g, '-').replace(/:/g, '-')}.txt`;
    const lines = st.map((t) => {
      const caption = t.captions.length && !t.captionWithoutImage ? ` [Image: ${t.captions.join('; ')}]` : '';
      return `${t.speaker}: ${t.text}${caption}`;
    });
    expect(sent.get(name)).toBe([`Timestamp: ${st[0]!.date}`, ...lines].join('\n'));
  }
  expect([...sent.values()].some((v) => v.includes(' [Image: '))).toBe(true);
}

function checkQuestionAgents(peer: ServicePeer, c: ProtocolCheck, tools: { tools: string[]; tool_rules: unknown[] }): void {
  // One agent per question (the script's), its only tool semantic_search_files, first and last, the script's prompt; deleted after its answer.
  const agents = peer.requests.filter((r) => r.method === 'POST' && r.path === '/v1/agents/' && r.fault === null);
  const sends = peer.requests.filter((r) => /^\/v1\/agents\/[^/]+\/messages$/.test(r.path) && r.fault === null);
  expect(sends).toHaveLength(c.questions);
  expect(agents).toHaveLength(c.questions);
  const prompt = readFileSync(join(ROOT, 'configs/prompts/letta-locomo-agent.txt'), 'utf8');
  for (const a of agents)
    expect(a.body).toMatchObject({
      agent_type: 'react_agent',
      include_base_tools: false,
      ...tools,
      system: prompt,
      embedding_config: { embedding_model: 'text-embedding-3-large' },
    });
  const listed = peer.requests.map((r, i) => [r, i] as const).filter(([r]) => /^\/v1\/folders\/[^/]+\/files$/.test(r.path));
  const firstAgent = peer.requests.indexOf(agents[0]!);
  expect(listed.some(([, i]) => i < firstAgent)).toBe(true);
  expect(peer.requests.findIndex((r) => r.method === 'PATCH' && r.path.includes('/folders/attach/'))).toBeGreaterThan(firstAgent);
  const asked = new Set(c.dataset.questions.map((q) => q.text));
  for (const q of sends) {
    expect(q.body.messages).toHaveLength(1);
    expect(asked.has(q.body.messages[0].content)).toBe(true);
  }
  expect(
    peer.requests.filter((r) => r.method === 'DELETE' && r.path.startsWith('/v1/agents/') && r.fault === null).length,
  ).toBeGreaterThanOrEqual(c.questions);
}

/**
 * Letta under -S mode=archival: one agent per conversation (named after its owner, no tools, the
 * script's embedding config), each session one archival passage (the text of the session's file:
 * `Timestamp: <date>` then `Speaker: text` lines; `created_at` the session's date; one tag naming
 * the add), each question searched directly in the agent's archival memory (top_k, no message
 * sent to any agent: no LLM call at query time).
 */
export function checkLettaArchival(peer: ServicePeer, c: ProtocolCheck): void {
  const agents = peer.requests.filter((r) => r.method === 'POST' && r.path === '/v1/agents/' && r.fault === null);
  expect(agents).toHaveLength(c.episodes.length);
  for (const a of agents)
    expect(a.body).toMatchObject({
      include_base_tools: false,
      tools: [],
      embedding_config: { embedding_model: 'text-embedding-3-large', embedding_dim: 1536, embedding_chunk_size: 100000 },
    });
  const adds = peer.requests.filter((r) => peer.isAdd(r) && r.fault === null);
  const turns = turnsOf(c);
  const sessions = [...new Set(turns.map((t) => t.session))];
  const sent = new Map(adds.map((a) => [(a.body.text as string).split('\n', 1)[0]!, a.body]));
  expect(sent.size).toBe(sessions.length);
  for (const s of sessions) {
    const st = turns.filter((t) => t.session === s);
    const lines = st.map((t) => {
      const caption = t.captions.length && !t.captionWithoutImage ? ` [Image: ${t.captions.join('; ')}]` : '';
      return `${t.speaker}: ${t.text}${caption}`;
    });
    const body = sent.get(`Timestamp: ${st[0]!.date}`)!;
    expect(body.text).toBe([`Timestamp: ${st[0]!.date}`, ...lines].join('\n'));
    expect(body.tags).toEqual([expect.stringMatching(/^rawrag:/)]);
    // The session's date (LoCoMo's `1:56 pm on 8 May, 2023`), as an ISO time of that year.
    expect(body.created_at).toMatch(new RegExp(`^${/(\d{4})$/.exec(st[0]!.date!)![1]}-\\d\\d-\\d\\dT`));
  }
  const searches = peer.requests.filter((r) => r.method === 'GET' && /\/archival-memory\/search$/.test(r.path) && r.fault === null);
  expect(searches).toHaveLength(c.questions);
  const asked = new Set(c.dataset.questions.map((q) => q.text));
  for (const q of searches) {
    expect(asked.has(q.query.query!)).toBe(true);
    expect(q.query.top_k).toBe('5');
  }
  expect(peer.requests.filter((r) => /\/messages$/.test(r.path))).toEqual([]);
}
