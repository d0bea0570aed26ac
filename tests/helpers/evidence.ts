/** Evidence views for reader-prompt tests: the one channel (blocks with their turns) as systems fill it. */
import type { EvidenceView, ShownBlock } from '../../src/core/protocol.js';
import type { Turn } from '../../src/core/schema.js';

/** Raw-history blocks from texts alone (window texts, or serialised turns whose turns the test does not need). */
export function historyBlocks(texts: string[]): EvidenceView {
  return { blocks: texts.map((text): ShownBlock => ({ text, turns: [], kind: 'history' })) };
}

/** One raw-history block per whole turn (turn expansion); `texts` default to the turns' own texts. */
export function turnBlocks(turns: Turn[], texts: string[] = turns.map((t) => t.text)): EvidenceView {
  return { blocks: turns.map((t, i): ShownBlock => ({ text: texts[i]!, turns: [t], kind: 'history' })) };
}

/** A memory system's block (recalled items), shown as its text. */
export function memoryBlock(text: string): ShownBlock {
  return { text, turns: [], kind: 'memory' };
}
