/**
 * The store oracle as an evidence source: the system's own retrieval is bypassed and evidence is
 * chosen with gold knowledge from a complete store (docs/diagnostics.md):
 * - every object gets a score s(m): the number of the question's gold turns among the object's
 *   source turns where both are known, else 1 when the object's text contains the answer (the
 *   benchmark's answer-sufficiency rule) and 0 when not;
 * - objects are ranked by s, best first; packing `fill` (the paper's "packed to 5,000 tokens", the
 *   default) ranks the objects with s = 0 after them by how much of the question and its gold answer
 *   their text shares (then earlier first) and packs greedily until the budget is full (no budget:
 *   every object); packing `relevant` packs the objects with s > 0 only (ties: earlier first). Then
 *   shown in the benchmark's order (rank, or chronological: MEME); src/retrieval/pack.ts packs;
 * - only what exists at the question's time is a candidate (the episode's visible turns; a store's
 *   objects of the matching visibility horizon, and no object built from a turn not yet visible).
 * The raw store's objects are the history's turns, or its windows where the benchmark shows
 * windows rather than turns (MemoryAgentBench).
 */
import type { EvidenceSource, EpisodeEvidence, SourceContext } from '../../core/evidence-source.js';
import type { Evidence, IngestedEpisode } from '../../core/ingested-episode.js';
import type { ItemRecord } from '../../core/item.js';
import type { Question } from '../../core/schema.js';
import type { StoreRecord } from '../../core/store-record.js';
import { coverage } from '../../core/coverage.js';
import { answerSufficiencyOf } from '../../core/answer-sufficiency.js';
import { packGreedy } from '../../retrieval/pack.js';
import { countTokens } from '../../retrieval/tokenizer.js';
import { EVERY_EPISODE, type LoadedStore } from './stores.js';

/** One candidate object, as the oracle scores and shows it. */
interface Unit {
  text: string;
  tokens: number;
  /** Source turn ids (empty = unknown). */
  turns: string[];
  /** Turn indices shown, for raw turns and windows (the reader's layout groups turns by session). */
  turnIndices: number[];
  /** Time order: the position in the history or in the store. */
  position: number;
  /** Its words, once computed (packing `fill`). */
  words?: Set<string>;
}

export interface OracleSettings {
  budget: number | null;
  phaseVisible: boolean;
  /** `fill`: rank every object and fill the budget; `relevant`: objects with gold evidence only (the phase-visible oracle's). */
  packing: 'fill' | 'relevant';
}

export function storeOracleSource(store: LoadedStore, settings: OracleSettings): EvidenceSource {
  const cap =
    (settings.phaseVisible ? 'phase-visible' : settings.budget === null ? 'cap=none' : `cap=${settings.budget}`) +
    (settings.packing === 'relevant' && !settings.phaseVisible ? ' relevant-only' : '');
  const counts = { questions: 0, without_relevant: 0, kept: 0, relevant: 0, filled: 0, cut_by_budget: 0 };
  return {
    system: `store-oracle/${store.label} ${cap}`,
    // The packing rule is part of the source's identity: a run packed the other way is another run.
    name: `store-oracle:${store.label}@${store.digest} ${cap}${settings.phaseVisible ? '' : ` packing=${settings.packing}`}`,
    notes: [],
    // A store is measured against the raw evidence picked the same way under the same budget.
    ...(store.byEpisode !== null && !settings.phaseVisible ? { pairWith: `store-oracle/raw ${cap}` } : {}),
    capabilities: {
      remote: false,
      llmAtIngest: false,
      questionRole: null,
      ranksWindows: false,
      cheapDeepRanking: false,
      configSections: ['oracle'],
    },
    async open(ep, ctx): Promise<EpisodeEvidence> {
      const units = store.byEpisode === null ? rawUnits(ep, ctx) : storeUnits(ep, store.byEpisode);
      const asTurns = store.byEpisode === null;
      return {
        async evidenceFor(q: Question, item: ItemRecord, qctx: SourceContext): Promise<Evidence> {
          // The benchmark's relevant turns (MEME: also a cascade's trigger and chain), else the gold turns.
          const gold = new Set(qctx.benchmark.relevantTurns?.(q) ?? q.evidence);
          const sufficient = answerSufficiencyOf(qctx.benchmark);
          const rule = gold.size > 0 ? 'gold-turns' : 'answer-in-text';
          const score = (u: Unit): number => {
            if (gold.size > 0 && u.turns.length > 0) return u.turns.filter((t) => gold.has(t)).length;
            return gold.size > 0 && asTurns ? 0 : (sufficient(q, [u.text]) ?? 0);
          };
          const all = units.map((u) => ({ u, s: score(u), near: 0 }));
          const scored = all.filter((x) => x.s > 0);
          // Filling the budget: the rest follow by how much of the question and its answer they share.
          const rest = settings.packing === 'fill' ? all.filter((x) => x.s === 0) : [];
          if (rest.length) {
            const words = wordsOf(`${q.text} ${q.gold}`);
            for (const x of rest) x.near = overlap(words, (x.u.words ??= wordsOf(x.u.text)));
          }
          const ranked = [...scored, ...rest].sort((a, b) => b.s - a.s || b.near - a.near || a.u.position - b.u.position);
          const kept = packGreedy(
            ranked.map((x) => x.u),
            settings.budget,
            (u) => u.tokens,
          );
          const keptRelevant = kept.filter((u) => scored.some((x) => x.u === u)).length;
          const order = settings.phaseVisible ? 'chronological' : qctx.policy.order;
          if (order === 'chronological') kept.sort((a, b) => a.position - b.position);
          counts.questions++;
          counts.relevant += scored.length;
          counts.kept += kept.length;
          counts.filled += kept.length - keptRelevant;
          if (scored.length === 0) counts.without_relevant++;
          if (keptRelevant < scored.length) counts.cut_by_budget++;
          // The block's own token count may exceed the units' sum by a merge at a line boundary: drop from the end until it fits.
          let shown = asTurns ? { evidence: turnEvidence(ep, kept), turnIds: [] as string[] } : storeEvidence(ep, kept);
          while (!asTurns && settings.budget !== null && shown.evidence.tokens > settings.budget && kept.length > 0) {
            kept.pop();
            shown = storeEvidence(ep, kept);
          }
          const { evidence, turnIds } = shown;
          const shownIds = asTurns ? evidence.turnIds : turnIds;
          item.evidence_turns = shownIds;
          item.evidence_tokens = evidence.tokens;
          item.coverage = coverage(shownIds, q.evidence);
          item.details.oracle = {
            store: store.label,
            rule,
            candidates: units.length,
            relevant: scored.length,
            kept: kept.length,
            filled: kept.length - keptRelevant,
            packing: settings.packing,
            budget: settings.budget,
          };
          return evidence;
        },
      };
    },
    report: () => ({
      oracle: {
        store: store.label,
        digest: store.digest,
        objects: store.objects,
        budget: settings.budget,
        phase_visible: settings.phaseVisible,
        packing: settings.packing,
        ...counts,
      },
    }),
  };
}

/** The raw history's visible turns (or windows, where the policy shows windows). */
function rawUnits(ep: IngestedEpisode, ctx: SourceContext): Unit[] {
  const id = (t: number) => ep.episode.turns[t]!.id;
  if (ctx.policy.expandToTurns)
    return ep.lines.map((text, t) => ({
      text,
      tokens: ep.turnTokenStart[t + 1]! - ep.turnTokenStart[t]!,
      turns: [id(t)],
      turnIndices: [t],
      position: t,
    }));
  return ep.chunks.map((c) => {
    const ts = Array.from({ length: c.lastTurn - c.firstTurn + 1 }, (_, i) => c.firstTurn + i);
    return { text: c.text, tokens: c.tokenEnd - c.tokenStart, turns: ts.map(id), turnIndices: ts, position: c.index };
  });
}

/**
 * A store's objects for this episode at this question's horizon: the objects built under exactly
 * the episode's visible turns where the store keeps horizons, else the latest horizon before it;
 * never an object built from a turn not yet visible.
 */
function storeUnits(ep: IngestedEpisode, byEpisode: Map<string, StoreRecord[]>): Unit[] {
  const all = [...(byEpisode.get(ep.episode.id) ?? []), ...(byEpisode.get(EVERY_EPISODE) ?? [])];
  const scopes = [...new Set(all.map((r) => r.scope).filter((s): s is number => s !== undefined && s <= ep.visibleTurns))];
  const horizon = scopes.length ? Math.max(...scopes) : undefined;
  const position = new Map(ep.episode.turns.map((t, i) => [t.id, i]));
  const visible = (r: StoreRecord) =>
    (r.scope === undefined || r.scope === horizon) && (r.source_turns ?? []).every((t) => (position.get(t) ?? 0) < ep.visibleTurns);
  return all.filter(visible).map((r, i) => {
    const text = r.date ? `[${r.date}] ${r.text}` : r.text;
    // Its cost in the memory block it is shown in: a `- ` line and its newline.
    return { text, tokens: countTokens(`- ${text}\n`), turns: r.source_turns ?? [], turnIndices: [], position: i };
  });
}

function turnEvidence(ep: IngestedEpisode, kept: Unit[]): Evidence {
  const turnIndices = [...new Set(kept.flatMap((u) => u.turnIndices))];
  return {
    turnIndices,
    turnIds: turnIndices.map((t) => ep.episode.turns[t]!.id),
    blocks: kept.map((u) => ({ text: u.text, turns: u.turnIndices, kind: 'history' as const })),
    tokens: kept.reduce((s, u) => s + u.tokens, 0),
  };
}

/** Store objects are not turns: shown as one memory block (the reader prompts show it as a memory system's recall). */
function storeEvidence(ep: IngestedEpisode, kept: Unit[]): { evidence: Evidence; turnIds: string[] } {
  const text = kept.map((u) => `- ${u.text}`).join('\n');
  const turnIds = [...new Set(kept.flatMap((u) => u.turns))];
  const index = new Map(ep.episode.turns.map((t, i) => [t.id, i]));
  const turns = turnIds.map((id) => index.get(id)).filter((t): t is number => t !== undefined);
  const blocks = text ? [{ text, turns, kind: 'memory' as const }] : [];
  return { evidence: { turnIndices: [], turnIds: [], blocks, tokens: text ? countTokens(text) : 0 }, turnIds };
}

/** The distinct words (3+ letters or digits, lower case) of the question and its gold answer. */
function wordsOf(text: string): Set<string> {
  return new Set((text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length >= 3 || /\d/.test(w)));
}

/** The share of those words an object's words contain. */
function overlap(words: Set<string>, have: Set<string>): number {
  if (words.size === 0) return 0;
  let n = 0;
  for (const w of words) if (have.has(w)) n++;
  return n / words.size;
}
