/**
 * PersonaMem-v2 scoring: multiple-choice accuracy, no LLM judge (spec meme-personamem-beam.md §2.3).
 * The reader sees the retrieved history as chat messages in the protocol's layout:
 * - verl (default; verl_custom/rag.py build_rag_prompt): system SYSTEM_MESSAGE, system RAG_INSTRUCTION,
 *   the retrieved messages in chronological order, then the user query + MCQ block + think instruction;
 * - frontier (inference.py): the history messages, the user query, then a system message with the options.
 * The letter is read from the reply (metric `mcq_correct`, the item score).
 */
import { promptFile } from '../../scoring/prompts.js';
import { evidenceSegments, type ChatMessage, type EvidenceView, type Metric, type ReaderProtocol, type Scoring } from '../../core/protocol.js';
import type { Question } from '../../core/schema.js';
import { extractLetter, renderOptions, type McqProtocol } from './options.js';

export function personamemPrompt(name: string): string {
  return promptFile(`personamem-${name}`);
}

interface McqMeta {
  protocol: McqProtocol;
  correct_letters: string[];
}

function mcqMeta(q: Question): McqMeta {
  const m = q.meta as Partial<McqMeta> | undefined;
  if (!m || (m.protocol !== 'verl' && m.protocol !== 'frontier') || !Array.isArray(m.correct_letters) || !q.options) {
    throw new Error(`question ${q.id} has no PersonaMem-v2 multiple-choice metadata`);
  }
  return m as McqMeta;
}

/**
 * The retrieved history as messages. With turn expansion every block is one whole turn and keeps
 * its role; without it (--no-expand) the window texts go in one system message, since a window
 * can cut across messages.
 */
export function historyMessages(evidence: EvidenceView): ChatMessage[] {
  return evidenceSegments(evidence).flatMap((seg): ChatMessage[] => {
    const text = seg.blocks.map((b) => b.text).join('\n');
    if (seg.kind === 'memory') return [{ role: 'system', content: text }];
    const perTurn = seg.blocks.every((b) => b.turns.length === 1 && b.text.endsWith(b.turns[0]!.text));
    if (!perTurn) return [{ role: 'system', content: text }];
    return seg.blocks.map(({ turns: [t] }) => ({ role: t!.speaker === 'assistant' || t!.speaker === 'system' ? t!.speaker : 'user', content: t!.text }));
  });
}

export function renderPersonamem(q: Question, evidence: EvidenceView): ChatMessage[] {
  const m = mcqMeta(q);
  const options = renderOptions(m.protocol, q.options!);
  const history = historyMessages(evidence);
  if (m.protocol === 'verl') {
    return [
      { role: 'system', content: personamemPrompt('verl-system') },
      { role: 'system', content: personamemPrompt('verl-rag-instruction') },
      ...history,
      { role: 'user', content: q.text + personamemPrompt('verl-mcq').replace('{options}', () => options) },
    ];
  }
  return [...history, { role: 'user', content: q.text }, { role: 'system', content: personamemPrompt('frontier-mcq').replace('{options}', () => options) }];
}

export const personamemReader: ReaderProtocol = {
  id: 'personamem-mcq-v1',
  source: 'bowen-upenn/PersonaMem-v2 verl_custom/rag.py@0b5ac359 (verl) | inference.py (frontier)',
  render: renderPersonamem,
  // rag/inference_rag.py (verl RAG prompts): QueryLLM max_tokens 1024; inference.py (frontier) sends none.
  maxTokens: (q) => READER_MAX_TOKENS[mcqMeta(q).protocol],
};

export const READER_MAX_TOKENS: Record<McqProtocol, number | null> = { verl: 1024, frontier: null };

/** 1 when the reply's letter is a correct one, 0 otherwise (no letter found = wrong, as officially). */
export const mcqCorrect: Metric = {
  name: 'mcq_correct',
  score(answer, q) {
    const m = mcqMeta(q);
    const letter = extractLetter(m.protocol, answer);
    return letter !== '' && m.correct_letters.includes(letter) ? 1 : 0;
  },
};

/** Whether any letter could be read at all (format compliance, reported beside accuracy). */
export const mcqLetterFound: Metric = {
  name: 'mcq_letter_found',
  score(answer, q) {
    return extractLetter(mcqMeta(q).protocol, answer) === '' ? 0 : 1;
  },
};

export const personamemScoring: Scoring = {
  reader: personamemReader,
  judge: null,
  metrics: [mcqCorrect, mcqLetterFound],
  fallbackMetric: 'mcq_correct',
  card: {
    reader: {
      upstreamModel: 'gpt-5-chat',
      maxTokensRule: '1024 for -B mcq-protocol=verl (rag/inference_rag.py), none for frontier (inference.py)',
      prompts: ['personamem-verl-system', 'personamem-verl-rag-instruction', 'personamem-verl-mcq', 'personamem-frontier-mcq'],
      sourceNote: 'personamem-SOURCE.md',
    },
    judge: null,
    denominator: 'official: every row (no letter = wrong; a failed call is a wrong row); rawrag prints accuracy over scored items beside it, with the failures by stage',
    headline: 'multiple-choice accuracy over all rows, by preference type, updated and who',
  },
};
