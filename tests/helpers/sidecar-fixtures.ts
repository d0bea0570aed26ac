/**
 * The conformance suite's fixtures of the six sidecar systems (tests/helpers/service-fixtures.ts
 * spreads them in): each starts its sidecar in front of its library's stand-in, behind the
 * fault-injecting proxy (sidecar-peer.ts), and checks from the stand-in's call log that the sidecar
 * drove the library as the authors' LoCoMo script does.
 */
import { expect } from 'vitest';
import type { Turn } from '../../src/core/schema.js';
import { unixSeconds } from '../../src/systems/memory-service/plan.js';
import type { ProtocolCheck, ServiceFixture, ServicePeer } from './service-fixtures.js';
import { SidecarPeer, type StandinCall } from './sidecar-peer.js';

/**
 * The captions a benchmark loader that needs `img_url` gives a turn (EverMemOS, memU's evaluators,
 * SimpleMem, A-MEM, EMem): none on LoCoMo's 316 captions without their image.
 */
export const loaderCaptions = (t: Turn): string[] => (t.captionWithoutImage ? [] : t.captions);
const turnsOf = (c: ProtocolCheck): Turn[] => c.dataset.episodes.filter((e) => c.episodes.includes(e.id)).flatMap((e) => e.turns);
const callsOf = (peer: ServicePeer): StandinCall[] => (peer as SidecarPeer).calls();
/** A session date as the naive ISO time the sidecars give ISO-timed libraries. */
const isoOf = (date: string | null) => new Date(unixSeconds(date)! * 1000).toISOString().slice(0, 19);
const questionsOf = (c: ProtocolCheck): Set<string> => new Set(c.dataset.questions.map((q) => q.text));

/** The index of the first call matching `pred`, failing when there is none. */
function indexOf(calls: StandinCall[], pred: (c: StandinCall) => boolean, what: string): number {
  const i = calls.findIndex(pred);
  expect(i, `no ${what} in the call log`).toBeGreaterThanOrEqual(0);
  return i;
}

function sidecar(system: string, check: ServiceFixture['checkProtocol'], args: string[] = []): ServiceFixture {
  return {
    start: () => new SidecarPeer(system, args).start(),
    options: (p) => [`url=${p.url}`],
    checkProtocol: check,
    appliedIsItems: true,
  };
}

export const SIDECAR_FIXTURES: Record<string, ServiceFixture> = {
  simplemem: sidecar('simplemem', (peer, c) => {
    const calls = callsOf(peer);
    const turns = turnsOf(c);
    // test_locomo10.py: one Dialogue per turn, numbered from 1, '[Image: caption] text', the session's date string; one add_dialogues.
    const adds = calls.filter((x) => x.call === 'add_dialogues');
    expect(adds).toHaveLength(1);
    const content = (t: Turn) => loaderCaptions(t).reduce((text, cap) => (text ? `[Image: ${cap}] ${text}` : `[Image: ${cap}]`), t.text);
    expect(adds[0]!.adds).toEqual(turns.map((t) => `${t.speaker}: ${content(t)}`));
    expect(adds[0]!.ids).toEqual(turns.map((_, i) => i + 1));
    expect(adds[0]!.timestamps).toEqual(turns.map((t) => t.date));
    expect(turns.some((t) => t.captions.length > 0)).toBe(true);
    // finalize() after the dialogues and before the first question; each question retrieved verbatim.
    const scope = adds[0]!.scope;
    const fin = indexOf(calls, (x) => x.call === 'finalize' && x.scope === scope, 'finalize');
    expect(fin).toBeGreaterThan(calls.indexOf(adds[0]!));
    const retrieves = calls.filter((x) => x.call === 'hybrid_retriever.retrieve');
    expect(retrieves).toHaveLength(c.questions);
    expect(calls.indexOf(retrieves[0]!)).toBeGreaterThan(fin);
    for (const r of retrieves) expect(questionsOf(c).has(r.query as string)).toBe(true);
    // The embedder: all-MiniLM-L6-v2 in the Qwen3 model's place (the sidecar's --embedder minilm default, a labelled substitute).
    expect(calls.find((x) => x.call === 'SimpleMemSystem')).toMatchObject({ embedding_model: 'sentence-transformers/all-MiniLM-L6-v2' });
  }),
  'a-mem': sidecar('a-mem', (peer, c) => {
    const calls = callsOf(peer);
    const turns = turnsOf(c);
    // test_advanced.py: a fresh system per conversation, one add_note per turn, 'Speaker <name>says : <text>', time = the session date.
    const notes = calls.filter((x) => x.call === 'add_note');
    const text = (t: Turn) => loaderCaptions(t).reduce((s, cap) => (s ? `[Image: ${cap}] ${s}` : `[Image: ${cap}]`), t.text);
    expect(notes.map((n) => n.adds![0])).toEqual(turns.map((t) => `Speaker ${t.speaker}says : ${text(t)}`));
    expect(notes.map((n) => n.time)).toEqual(turns.map((t) => t.date));
    const fresh = indexOf(calls, (x) => x.call === 'AgenticMemorySystem', 'a new system');
    expect(fresh).toBeLessThan(calls.indexOf(notes[0]!));
    // memory_layer.py: each note's keywords, context and tags come from the LLM (analyze_content), then its evolution prompt.
    const llm = calls.filter((x) => x.call === 'llm.get_completion');
    const analyses = llm.filter((x) => (x.schema as string[]).join() === 'context,keywords,tags');
    expect(analyses).toHaveLength(notes.length);
    expect(llm.filter((x) => (x.schema as string[]).includes('should_evolve'))).toHaveLength(notes.length);
    expect(notes.every((n) => Array.isArray(n.keywords))).toBe(true);
    // Each question: the script's keyword prompt, then find_related_memories_raw(keywords, k=10), after every note.
    const asks = llm.filter((x) => (x.schema as string[]).join() === 'keywords');
    const finds = calls.filter((x) => x.call === 'find_related_memories_raw');
    expect(asks).toHaveLength(c.questions);
    expect(finds).toHaveLength(c.questions);
    expect(asks[0]!.prompt).toMatch(
      /^Given the following question, generate several keywords, using 'cosmos' as the separator\.\n\n {16}Question: /,
    );
    expect(asks[0]!.prompt).toMatch(/\{"keywords": "keyword1, keyword2, keyword3"\}$/);
    for (const f of finds) expect(f.k).toBe(10);
    expect(calls.indexOf(finds[0]!)).toBeGreaterThan(calls.indexOf(notes[notes.length - 1]!));
  }),
  recmem: sidecar('recmem', (peer, c) => {
    const calls = callsOf(peer);
    const turns = turnsOf(c);
    // run_experiments.py: reset(conv_id), then each session's turns in pairs by position, '[A]: text\n[B]: text', the session's ISO time.
    const line = (t: Turn) => `[${t.speaker}]: ${t.text}` + t.captions.map((cap) => ` [Showing Image]: ${cap}`).join('');
    const expected: Array<[string, string]> = [];
    const sessions = [...new Set(turns.map((t) => t.session))];
    for (const s of sessions) {
      const ts = turns.filter((t) => t.session === s);
      for (let i = 0; i < ts.length; i += 2)
        expected.push([
          ts
            .slice(i, i + 2)
            .map(line)
            .join('\n'),
          isoOf(ts[0]!.date),
        ]);
    }
    const adds = calls.filter((x) => x.call === 'add_memory');
    expect(adds.map((a) => [a.adds![0], a.timestamp])).toEqual(expected);
    expect(new Set(adds.map((a) => a.scope)).size).toBe(1);
    const reset = indexOf(calls, (x) => x.call === 'reset' && x.scope === adds[0]!.scope, 'reset(conv_id)');
    expect(reset).toBeLessThan(calls.indexOf(adds[0]!));
    const searches = calls.filter((x) => x.call === 'search_memories');
    expect(searches).toHaveLength(c.questions);
    for (const q of searches) expect(questionsOf(c).has(q.question as string)).toBe(true);
    expect(calls.indexOf(searches[0]!)).toBeGreaterThan(calls.indexOf(adds[adds.length - 1]!));
    expect(calls.find((x) => x.call === 'RecMem')).toMatchObject({
      model: 'gpt-4.1-mini',
      config: { min_consolidation_cnt: 6, retrieve_raw_topk: 10 },
    });
  }),
  memoryos: sidecar('memoryos', (peer, c) => {
    const calls = callsOf(peer);
    const turns = turnsOf(c);
    const ep = c.dataset.episodes.find((e) => c.episodes.includes(e.id))!;
    const a = (ep.meta!.speakers as string[])[0]!;
    // main_loco_parse.py: speaker_a opens a pair, the other speaker's turns answer it (the last wins), captions as '(image description: ...)'.
    const pairs: Array<{ u: string; r: string; ts: string | null }> = [];
    for (const t of turns) {
      const text = t.text + t.captions.map((cap) => ` (image description: ${cap})`).join('');
      if (t.speaker === a) pairs.push({ u: text, r: '', ts: t.date });
      else if (pairs.length) pairs[pairs.length - 1]!.r = text;
      else pairs.push({ u: '', r: text, ts: t.date });
    }
    const adds = calls.filter((x) => x.call === 'add_memory');
    expect(adds.map((x) => [x.adds![0], x.timestamp])).toEqual(pairs.map((p) => [`${p.u} | ${p.r}`, p.ts]));
    expect(calls.find((x) => x.call === 'Memoryos')).toMatchObject({
      short_term_capacity: 1,
      mid_term_capacity: 2000,
      retrieval_queue_capacity: 10,
      mid_term_similarity_threshold: 0.6,
      llm_model: 'gpt-4o-mini',
    });
    const retrievals = calls.filter((x) => x.call === 'retriever.retrieve_context');
    expect(retrievals).toHaveLength(c.questions);
    for (const r of retrievals) {
      expect(questionsOf(c).has(r.user_query as string)).toBe(true);
      expect(r.thresholds).toEqual([0.1, 0.1, 0.1]);
    }
    expect(calls.indexOf(retrievals[0]!)).toBeGreaterThan(calls.indexOf(adds[adds.length - 1]!));
  }),
  nemori: sidecar('nemori', (peer, c) => {
    const calls = callsOf(peer);
    const turns = turnsOf(c);
    // add.py: one message per turn (batch size 1), role = the speaker's name, text then '[Image: caption]', the session's ISO time.
    const adds = calls.filter((x) => x.call === 'add_messages');
    expect(adds.every((x) => x.adds!.length === 1)).toBe(true);
    const content = (t: Turn) => [t.text, ...t.captions.map((cap) => `[Image: ${cap}]`)].join(' ');
    expect(adds.map((x) => x.adds![0])).toEqual(turns.map((t) => `${t.speaker}: ${content(t)}`));
    expect(adds.map((x) => (x.timestamps as string[])[0])).toEqual(turns.map((t) => isoOf(t.date)));
    expect((adds[0]!.metadata as any[])[0]).toEqual({
      original_speaker: turns[0]!.speaker,
      dataset_timestamp: turns[0]!.date,
      blip_caption: turns[0]!.captions[0] ?? null,
      search_query: null,
    });
    // flush(user), then drain(), before the first question; search.py's settings.
    const user = adds[0]!.scope;
    const flush = indexOf(calls, (x) => x.call === 'flush' && x.scope === user, 'flush');
    expect(flush).toBeGreaterThan(calls.indexOf(adds[adds.length - 1]!));
    const drain = calls.findIndex((x, i) => i > flush && x.call === 'drain');
    expect(drain).toBeGreaterThan(flush);
    const searches = calls.filter((x) => x.call === 'search');
    expect(searches).toHaveLength(c.questions);
    expect(calls.indexOf(searches[0]!)).toBeGreaterThan(drain);
    for (const s of searches) expect(s).toMatchObject({ scope: user, top_k_episodes: 10, top_k_semantic: 20, search_method: 'vector' });
    expect(calls.find((x) => x.call === 'NemoriMemory')).toMatchObject({
      config: { buffer_size_min: 1, episode_max_messages: 20, llm_model: 'openai/gpt-4.1-mini' },
    });
  }),
  emem: sidecar('emem', (peer, c) => {
    const calls = callsOf(peer);
    const turns = turnsOf(c);
    const ep = c.dataset.episodes.find((e) => c.episodes.includes(e.id))!;
    // run_emem_locomo_cached.py: the whole conversation indexed once, as a LoCoMoSample ('[Image: caption] text', dia_ids, session dates).
    const indexes = calls.filter((x) => x.call === 'index_conversation');
    expect(indexes).toHaveLength(1);
    const text = (t: Turn) => loaderCaptions(t).reduce((s, cap) => (s ? `[Image: ${cap}] ${s}` : `[Image: ${cap}]`), t.text);
    expect(indexes[0]!.adds).toEqual(turns.map((t) => `${t.speaker}: ${text(t)}`));
    expect(indexes[0]!.dia_ids).toEqual(turns.map((t) => t.id));
    expect(indexes[0]!.speakers).toEqual(ep.meta!.speakers);
    expect(Object.values(indexes[0]!.sessions as Record<string, string>)).toEqual([...new Set(turns.map((t) => t.date))]);
    expect(calls.find((x) => x.call === 'EMem')).toMatchObject({
      config: { openie_mode: 'edu_based_contextual_ee_online', qa_top_k: 10, linking_top_k: 30, skip_retrieval_ppr: false, seed: 42 },
      llm_model_name: 'gpt-4o-mini',
      // run_emem_locomo.sh: --embedding_model text-embedding-3-small, SUPPORT_JSON_SCHEMA=true.
      embedding_model_name: 'text-embedding-3-small',
      support_json_schema: true,
    });
    const retrievals = calls.filter((x) => x.call === 'retrieve_structuring_conversation_enhanced_v2');
    expect(retrievals).toHaveLength(c.questions);
    for (const r of retrievals) expect(questionsOf(c).has((r.queries as string[])[0]!)).toBe(true);
    expect(calls.indexOf(retrievals[0]!)).toBeGreaterThan(calls.indexOf(indexes[0]!));
  }),
};
