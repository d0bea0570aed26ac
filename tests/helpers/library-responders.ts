/**
 * Answers the memory libraries' own LLM prompts in the form each library parses, so that their
 * parsing and storage code runs against the loopback API (the real-library tier, tests/real/):
 * deterministic, derived from the prompt's own text (a note's keywords are its words, an extracted
 * memory restates its dialogue line), never a canned memory; null when the prompt is not theirs.
 * Each names the library source whose prompt and parser it answers; tests/helpers/loopback-llm/
 * <system>.ts makes them the loopback API's responders (what none claims gets the API's generic,
 * schema-valid answer).
 */

type Body = { messages?: Array<{ role: string; content: string }>; response_format?: any };

const textOf = (b: Body): string => (b.messages ?? []).map((m) => m.content ?? '').join('\n');
const systemOf = (b: Body): string => (b.messages ?? []).find((m) => m.role === 'system')?.content ?? '';
const STOP = new Set(
  'the a an and or but to of in on at for with from by is are was were be been it this that i you he she we they my your me our their what when where who how did do does have has had about after before just so very really yeah oh'.split(
    ' ',
  ),
);
/** The content words of a text, in order, once each. */
export function contentWords(text: string, n = 6): string[] {
  const out: string[] = [];
  for (const w of text.match(/[A-Za-z][A-Za-z0-9'-]+/g) ?? []) {
    const l = w.toLowerCase();
    if (!STOP.has(l) && !out.some((x) => x.toLowerCase() === l)) out.push(w);
    if (out.length >= n) break;
  }
  return out;
}

// ---------------------------------------------------------------- A-MEM (WujiangXu/AgenticMemory@7f716dc5 memory_layer.py)

/** analyze_content (L160-215): keywords, context and tags of the note's content. */
export function aMemAnalysis(b: Body): string | null {
  const text = textOf(b);
  const i = text.lastIndexOf('Content for analysis:');
  if (!text.startsWith('You must respond with a JSON object.') || i < 0) return null;
  const content = text.slice(i + 'Content for analysis:'.length).trim();
  const said = content.includes(' : ') ? content.slice(content.indexOf(' : ') + 3) : content;
  return JSON.stringify({
    keywords: contentWords(said, 4),
    context: `Conversation: ${said.slice(0, 120)}`,
    tags: ['conversation', 'personal'],
  });
}

/** process_memory (L560-640): evolve by linking the note to its nearest neighbour (`memory index:N`), when it has one. */
export function aMemEvolution(b: Body): string | null {
  const text = textOf(b);
  if (!text.includes('You are an AI memory evolution agent')) return null;
  const first = /memory index:(\d+)/.exec(text);
  const tags = contentWords(/content: (.*)/.exec(text)?.[1] ?? '', 3);
  return JSON.stringify({
    should_evolve: first !== null,
    actions: first ? ['strengthen'] : [],
    suggested_connections: first ? [Number(first[1])] : [],
    tags_to_update: tags,
    new_context_neighborhood: [],
    new_tags_neighborhood: [],
  });
}

/** test_advanced.py generate_query_llm (L87-117): the question's keywords. */
export function aMemKeywords(b: Body): string | null {
  const m = /generate several keywords, using 'cosmos' as the separator\.\s+Question: (.*)/.exec(textOf(b));
  return m ? JSON.stringify({ keywords: contentWords(m[1]!, 8).join(', ') }) : null;
}

// ---------------------------------------------------------------- MemoryOS (memoryos-pro 0.1.0 memoryos/utils.py, prompts.py)

export function memoryosResponder(b: Body): string | null {
  const sys = systemOf(b);
  const text = textOf(b);
  if (sys.startsWith('You are an expert in analyzing dialogue topics')) {
    // gpt_generate_multi_summary: a JSON array of {theme, keywords, content}.
    const conv = text.slice(text.indexOf('Conversation content:') + 21);
    const words = contentWords(conv, 6);
    return JSON.stringify([
      { theme: words.slice(0, 2).join(' ') || 'chat', keywords: words.slice(0, 4), content: conv.trim().slice(0, 200) },
    ]);
  }
  if (sys.startsWith('You are a conversation continuity detector')) return 'true'; // check_conversation_continuity
  if (sys.startsWith('You are an expert in keyword extraction')) {
    // llm_extract_keywords: a comma-separated list.
    const body = text.slice(text.indexOf('concise:') + 8, text.lastIndexOf('Keywords:'));
    return contentWords(body, 5).join(', ');
  }
  if (sys.startsWith('You are a knowledge extraction assistant'))
    return `【User Private Data】\n- ${contentWords(text.slice(text.indexOf('User:')), 5).join(', ')}\n【Assistant Knowledge】\n- None`;
  return null;
}

// ---------------------------------------------------------------- SimpleMem (simplemem 0.1.0 core/memory_builder.py, core/hybrid_retriever.py)

export function simplememResponder(b: Body): string | null {
  const text = textOf(b);
  const window = /\[Current Window Dialogues\]\n([\s\S]*?)\n\n\[Requirements\]/.exec(text);
  if (window) {
    // _parse_llm_response: a JSON array of memory entries, one restating each dialogue line.
    const entries = window[1]!
      .split('\n')
      .filter((l) => l.trim())
      .map((line) => {
        const m = /^(?:\[([^\]]*)\]\s*)?([^:]+): ([\s\S]*)$/.exec(line.trim());
        const speaker = m?.[2]?.trim() ?? 'Someone';
        const said = m?.[3] ?? line;
        return {
          lossless_restatement: `${speaker} said: ${said}`,
          keywords: [speaker, ...contentWords(said, 4)],
          timestamp: m?.[1] ?? null,
          location: null,
          persons: [speaker],
          entities: [],
          topic: contentWords(said, 2).join(' ') || 'conversation',
        };
      });
    return '```json\n' + JSON.stringify(entries) + '\n```';
  }
  const question = /(?:Question|Query|query)[^:\n]*:\s*(.+)/.exec(text)?.[1] ?? '';
  if (systemOf(b).startsWith('You are a query analysis assistant'))
    return JSON.stringify({ keywords: contentWords(question, 5), persons: [], time_expression: null, location: null, entities: [] });
  if (systemOf(b).startsWith('You are a search query generation assistant')) return JSON.stringify({ queries: [question] });
  if (text.includes('"assessment"'))
    return JSON.stringify({ assessment: 'sufficient', reasoning: 'the context covers the question', missing_info: [] });
  if (text.includes('"additional_queries"')) return JSON.stringify({ missing_analysis: 'none', additional_queries: [] });
  return null;
}

// ---------------------------------------------------------------- EMem (KevinSRR/EMem@f83c0b9a information_extraction/structuring_openai.py)

/** conversation_edu_extraction_v1 (L740-830, ConversationEDUExtractionV1): one EDU per turn of the session text, with its turn id. */
export function ememEdus(b: Body): string | null {
  const props = b.response_format?.json_schema?.schema?.properties;
  if (!props?.edus) return null;
  const edus = [...textOf(b).matchAll(/Turn (\d+):\n([^\n]+)/g)].map((m) => ({ edu_text: m[2]!.trim(), source_turn_ids: [Number(m[1])] }));
  return JSON.stringify({ edus });
}
