/** Small hand-made conversations for retriever tests. */
import { ingest } from '../../src/retrieval/chunk.js';
import type { IngestedEpisode } from '../../src/core/ingested-episode.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import type { Episode } from '../../src/core/schema.js';

/** One session on 1 May 2023, Ann and Bob taking turns. */
export function episodeOf(texts: string[], id = 'ep'): Episode {
  return {
    id,
    turns: texts.map((text, i) => ({
      id: `D1:${i + 1}`,
      session: '1',
      date: '1 May 2023',
      speaker: i % 2 ? 'Bob' : 'Ann',
      text,
      captions: [],
    })),
  };
}

/** One chunk per turn, text only: chunk i is exactly texts[i]. */
export function perTurn(texts: string[]): IngestedEpisode {
  return ingest(
    episodeOf(texts),
    texts.length,
    { ...DEFAULT_POLICY, chunking: 'turn', serialisation: 'plain' },
    { tokenizer: 'cl100k_base', size: 256, stride: 224 },
  );
}
