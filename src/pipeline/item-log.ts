/**
 * `rawrag show RUN_DIR ID`: one item as a readable request/response log (in the spirit of
 * inspect_ai's sample logs): the question and gold, what retrieval ranked, the evidence as the
 * reader saw it, the reader request as sent — re-rendered from the run's data, policy and reader
 * protocol, exactly as the reader stage renders it — and the reply, then each judge run's request
 * and raw reply with its verdict, the metrics, usage and timings. Read-only.
 */
import { readRunManifest } from '../run-files/record.js';
import { join } from 'node:path';
import type { RunConfig } from '../config/schema.js';
import type { ChatMessage, EvidenceView, ReaderProtocol, ShownBlock } from '../core/protocol.js';
import type { Dataset, Episode, Question } from '../core/schema.js';
import type { ItemRecord } from '../core/item.js';
import { getBenchmark } from '../benchmarks/registry.js';
import { readerMaxTokens } from '../core/protocol.js';
import { readerProtocolFor } from '../reader-judge/reader-override.js';
import { ingest } from '../retrieval/chunk.js';
import { assemble } from '../retrieval/assemble.js';
import { serialiseTurn } from '../retrieval/serialise.js';
import { RunDir } from '../run-files/run-dir.js';
import { InputError } from '../util/errors.js';
import { effectivePolicy, loadDataset } from './plan.js';

export interface ItemLogContext {
  dir: string;
  manifest: Record<string, unknown>;
  cfg: RunConfig | null;
  /** The benchmark data the run was made from; null when it cannot be read here (requests are then not re-rendered). */
  dataset: Dataset | null;
  /** Why the data could not be read. */
  datasetNote: string | null;
}

/** Reads a run directory's manifest, items and (when readable) its benchmark data. */
export async function openItemLog(dir: string): Promise<{ ctx: ItemLogContext; items: ItemRecord[] }> {
  const rundir = new RunDir(dir);
  // Through the run record (src/run-files/record.ts): validated, an older version upgraded.
  const manifest = readRunManifest(dir).manifest as Record<string, unknown>;
  const items = rundir.readItems();
  const cfg = (manifest.config ?? null) as RunConfig | null;
  let dataset: Dataset | null = null;
  let datasetNote: string | null = null;
  if (cfg && typeof cfg.benchmark === 'string') {
    try {
      dataset = await loadDataset(getBenchmark(cfg.benchmark), cfg);
    } catch (e) {
      datasetNote = `benchmark data not readable here (${(e as Error).message})`;
    }
  } else datasetNote = 'no rawrag config in manifest.json (an external system): only what items.jsonl holds';
  return { ctx: { dir, manifest, cfg, dataset, datasetNote }, items };
}

export function findItem(items: ItemRecord[], id: string, dir: string): ItemRecord {
  const item = items.find((i) => String(i.id) === id);
  if (item) return item;
  const near = items
    .map((i) => String(i.id))
    .filter((x) => x.startsWith(id.split(':')[0] ?? id))
    .slice(0, 3);
  throw new InputError(`no item '${id}' in this run (${items.length} items${near.length ? `; e.g. ${near.join(', ')}` : ''})`, {
    file: join(dir, 'items.jsonl'),
  });
}

const RULE = '─'.repeat(100);

function section(title: string, body: string[]): string[] {
  return ['', `${title} ${RULE.slice(title.length + 1)}`, ...body];
}

function messagesText(messages: ChatMessage[]): string[] {
  return messages.flatMap((m) => [`[${m.role}]`, m.content]);
}

function usd(x: unknown): string {
  return typeof x === 'number' ? `$${x.toFixed(6)}` : 'cost unknown';
}

/** The item's log as text. */
export function renderItemLog(item: ItemRecord, ctx: ItemLogContext): string {
  const m = ctx.manifest;
  const name = typeof m.name === 'string' ? ` [${m.name}]` : '';
  const d = (item.details ?? {}) as Record<string, any>;
  const lines: string[] = [
    `${item.benchmark ?? m.benchmark} ${item.id} · ${item.type ?? 'untyped'} · ${m.system}${name} · ${ctx.dir}`,
    `score ${item.score === null || item.score === undefined ? '— (not judged)' : item.score.toFixed(3)}` +
      (item.coverage ? ` · coverage all ${item.coverage.all ? 'yes' : 'no'}, any ${item.coverage.any ? 'yes' : 'no'}` : '') +
      (typeof item.evidence_tokens === 'number' ? ` · evidence ${item.evidence_tokens} tokens` : '') +
      (item.error ? ` · ERROR at ${item.error.stage}: ${item.error.message}` : ''),
  ];
  for (const dev of (m.deviations as string[] | undefined) ?? []) lines.push(`deviation from the protocol: ${dev}`);
  lines.push(
    ...section('question', [
      item.question ?? '(not recorded)',
      ...(item.question_date ? [`question date: ${item.question_date}`] : []),
      `gold: ${item.gold ?? '—'}`,
      ...(item.acceptable?.length ? [`also accepted: ${item.acceptable.join(' | ')}`] : []),
      `gold evidence turns: ${item.gold_evidence?.length ? item.gold_evidence.join(', ') : 'none given'}`,
    ]),
  );

  if (item.retrieved?.length) {
    const gold = new Set(item.gold_evidence ?? []);
    lines.push(
      ...section(
        `retrieval: ${item.retrieved.length} windows kept`,
        item.retrieved.map(
          (r) =>
            `#${String(r.rank).padStart(3)}  ${r.chunk}  score ${r.score.toFixed(4)}  (first stage #${r.first_stage_rank}, ${r.first_stage_score.toFixed(4)})  turns ${r.turns[0] ?? ''}${r.turns.length > 1 ? `..${r.turns[r.turns.length - 1]}` : ''}${r.turns.some((t) => gold.has(t)) ? '  ★ gold' : ''}`,
        ),
      ),
    );
  }
  if (item.recalled?.length) {
    lines.push(
      ...section(
        `recalled memory items: ${item.recalled.length}`,
        item.recalled.map(
          (r) => `${r.memory_id}  score ${r.score.toFixed(3)}  from ${r.source_event} (turns ${r.turns.join(', ')}): ${r.content}`,
        ),
      ),
    );
  }

  const rendered = renderReaderRequest(item, ctx);
  const reader = d.reader as Record<string, any> | undefined;
  if (reader || rendered.messages) {
    const head = reader
      ? `reader request: ${reader.model} · temperature ${ctx.cfg?.reader.temperature ?? '?'} · max_tokens ${reader.max_tokens ?? 'not sent'} · protocol ${reader.protocol}`
      : 'reader request (not sent: no reader in this run)';
    lines.push(...section(head, rendered.messages ? messagesText(rendered.messages) : [`(not re-rendered: ${rendered.note})`]));
    if (rendered.messages && rendered.note) lines.push(`(${rendered.note})`);
  }
  if (reader) {
    const u = d.usage?.reader;
    lines.push(
      ...section(
        `reader reply${reader.cached ? ' (from the cache)' : ''}: ${reader.prompt_tokens} prompt + ${reader.completion_tokens} completion tokens, ${usd(u?.cost_usd)}${reader.provenance?.endpoint ? ` · ${reader.provenance.endpoint}` : ''}${reader.provenance?.served_model ? ` · served ${reader.provenance.served_model}` : ''}`,
        [String(reader.raw ?? '')],
      ),
    );
  }
  if (item.answer !== null && item.answer !== undefined) lines.push(...section('answer', [item.answer]));

  const judge = d.judge as
    | { model?: string | null; runs?: Array<{ verdict: number; raw: string | string[] }>; votes?: number[]; scored_by?: string | null }
    | undefined;
  if (judge?.runs?.length) {
    const request = renderJudgeRequest(item, ctx);
    for (const [j, run] of judge.runs.entries()) {
      const replies = Array.isArray(run.raw) ? run.raw : [run.raw];
      lines.push(
        ...section(
          `judge run ${j + 1}/${judge.runs.length}: ${judge.model} · temperature ${ctx.cfg?.judge.temperature ?? '?'} · verdict ${run.verdict}`,
          [
            ...(j === 0
              ? request.messages
                ? ['request:', ...messagesText(request.messages)]
                : [`request not re-rendered: ${request.note}`]
              : ['request: as run 1 (replicate index ' + (j + 1) + ' in the cache key)']),
            ...(request.messages && request.note && j === 0 ? [`(${request.note})`] : []),
            ...replies.flatMap((r, k) => [replies.length > 1 ? `reply ${k + 1}/${replies.length}:` : 'reply:', r]),
          ],
        ),
      );
    }
  } else if (judge?.scored_by) lines.push(...section('score', [`scored by ${judge.scored_by} (no LLM judge for this question)`]));

  const metrics = Object.entries(item.metrics ?? {});
  const usage = Object.entries(
    (d.usage ?? {}) as Record<
      string,
      { prompt_tokens: number; completion_tokens: number; cost_usd: number | null; requests: number; cache_hits: number }
    >,
  );
  lines.push(
    ...section('figures', [
      ...(metrics.length ? [`metrics: ${metrics.map(([k, v]) => `${k} ${v === null ? '—' : v.toFixed(4)}`).join(', ')}`] : []),
      ...usage.map(
        ([role, u]) =>
          `${role}: ${u.requests} requests + ${u.cache_hits} cached, ${u.prompt_tokens} prompt + ${u.completion_tokens} completion tokens, ${usd(u.cost_usd)}`,
      ),
      `timings: ${Object.entries(item.timings ?? {})
        .map(([k, v]) => `${k.replace(/_ms$/, '')} ${v} ms`)
        .join(', ')}`,
    ]),
  );
  if (ctx.datasetNote) lines.push('', `note: ${ctx.datasetNote}`);
  return lines.join('\n') + '\n';
}

function questionOf(item: ItemRecord, ctx: ItemLogContext): { q: Question; episode: Episode } | null {
  if (!ctx.dataset) return null;
  const q = ctx.dataset.questions.find((x) => x.id === item.id);
  const episode = ctx.dataset.episodes.find((e) => e.id === (q?.episode ?? item.episode));
  return q && episode ? { q, episode } : null;
}

/** The reader's messages as the reader stage renders them, from the evidence this item records. */
function renderReaderRequest(item: ItemRecord, ctx: ItemLogContext): { messages: ChatMessage[] | null; note: string | null } {
  const found = questionOf(item, ctx);
  if (!found || !ctx.cfg) return { messages: null, note: ctx.datasetNote ?? 'question not in the benchmark data' };
  const benchmark = getBenchmark(ctx.cfg.benchmark);
  if (!benchmark.scoring) return { messages: null, note: `${benchmark.name} has no reader protocol` };
  let protocol: ReaderProtocol;
  try {
    protocol = readerProtocolFor(ctx.cfg, benchmark.scoring);
  } catch (e) {
    return { messages: null, note: (e as Error).message };
  }
  const { q, episode } = found;
  if (item.recalled?.length)
    return { messages: null, note: 'a memory system: the reader saw its recalled block (items above), not re-rendered here' };
  const policy = effectivePolicy(benchmark, ctx.cfg, episode);
  const byId = new Map(episode.turns.map((t) => [t.id, t]));
  const turns = (item.evidence_turns ?? []).map((id) => byId.get(id)).filter((t) => t !== undefined);
  let blocks: ShownBlock[];
  const again = reassembled(item, q, episode, policy, ctx);
  // As src/retrieval/assemble.ts builds them: whole turns, or the windows themselves with the turns they touch.
  if (again) blocks = again;
  else if (policy.expandToTurns || !item.retrieved?.length)
    blocks = turns.map((t) => ({ text: serialiseTurn(t, policy.serialisation), turns: [t], kind: 'history' }));
  else {
    // The windows themselves: cut the history again with the run's chunking and take the ranked windows' text.
    const ingested = ingest(episode, q.visibleTurns ?? episode.turns.length, policy, ctx.cfg.chunking);
    const byChunk = new Map(ingested.chunks.map((c) => [c.id, c]));
    const chunks = item.retrieved.map((r) => byChunk.get(r.chunk)).filter((c) => c !== undefined);
    if (policy.order === 'chronological') chunks.sort((a, b) => a.index - b.index);
    blocks = chunks.map((c) => ({ text: c.text, turns: episode.turns.slice(c.firstTurn, c.lastTurn + 1), kind: 'history' }));
  }
  const view: EvidenceView = { blocks };
  const budget = readerMaxTokens(ctx.cfg.reader.maxTokens, protocol, q);
  return {
    messages: protocol.render(q, view),
    note: `re-rendered from the benchmark data and ${protocol.id}; max_tokens ${budget ?? 'not sent'}`,
  };
}

/**
 * The evidence assembled again from the item's ranked windows with the run's policy (the display —
 * a shared turn repeated per window or once —, the budget, the order), exactly as the reader saw it;
 * null where the ranked units are not the history's windows (derived facts, summaries).
 */
function reassembled(
  item: ItemRecord,
  q: Question,
  episode: Episode,
  policy: ReturnType<typeof effectivePolicy>,
  ctx: ItemLogContext,
): ShownBlock[] | null {
  if (!item.retrieved?.length || !ctx.cfg) return null;
  const ingested = ingest(episode, q.visibleTurns ?? episode.turns.length, policy, ctx.cfg.chunking);
  const byChunk = new Map(ingested.chunks.map((c) => [c.id, c]));
  const chunks = item.retrieved.map((r) => byChunk.get(r.chunk));
  if (chunks.some((c) => c === undefined)) return null;
  const evidence = assemble(
    ingested,
    chunks.map((c) => ({ chunk: c!.index, score: 0 })),
    policy,
  );
  return evidence.blocks.map((b) => ({ text: b.text, turns: b.turns.map((t) => episode.turns[t]!), kind: 'history' }));
}

function renderJudgeRequest(item: ItemRecord, ctx: ItemLogContext): { messages: ChatMessage[] | null; note: string | null } {
  const found = questionOf(item, ctx);
  if (!found || !ctx.cfg) return { messages: null, note: ctx.datasetNote ?? 'question not in the benchmark data' };
  const judge = getBenchmark(ctx.cfg.benchmark).scoring?.judge;
  if (!judge) return { messages: null, note: 'no LLM judge' };
  const messages = judge.render(found.q, item.answer ?? '');
  if (!messages) return { messages: null, note: 'this question is not judged by an LLM' };
  return {
    messages,
    note: judge.judge
      ? 'this judge sends several requests per run (one per rubric item or check): the first is shown, every reply below'
      : null,
  };
}
