/**
 * What the reproduction map's item lists share (src/paper/items.ts and its parts): the paper's
 * RAW-RAG rows by benchmark and reader, the command and step that regenerate a row, sections.
 */
import { PAPER_ROWS, type PaperRow } from '../benchmarks/paper-rows.js';
import type { PaperSection, PaperStep } from './item-types.js';
import { rawRagSpec } from './rows.js';

/** The data condition of an item whose benchmark the paper does not name. */
export const UNNAMED = 'the paper does not name the benchmark it measured on';

export const SECTION_OF: Record<string, PaperSection> = { openai: 'main results', qwen3: 'retriever', 'full-context': 'main results' };

export const rawRag = rawRagSpec;

export const configSuffix = (retriever: string) => (retriever === 'openai' ? '' : `-${retriever}`);
export const mainCommand = (r: Pick<PaperRow, 'benchmark' | 'reader' | 'retriever'>) =>
  `rawrag run --config configs/paper/${r.benchmark}-${r.reader}${configSuffix(r.retriever)}.yaml`;
export const mainStep = (r: Pick<PaperRow, 'benchmark' | 'reader' | 'retriever'>): PaperStep => ({
  command: 'run',
  args: ['--config', `configs/paper/${r.benchmark}-${r.reader}${configSuffix(r.retriever)}.yaml`],
  out: `paper/${r.benchmark}-${r.reader}-${r.retriever}`,
});
export const row = (benchmark: string, reader: string) =>
  PAPER_ROWS.find((r) => r.benchmark === benchmark && r.reader === reader && r.retriever === 'openai')!;
