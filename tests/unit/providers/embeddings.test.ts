import { describe, expect, it } from 'vitest';
import { batches } from '../../../src/retrieval/remote/embeddings.js';
import { ProviderSession } from '../../../src/providers/session.js';
import { remoteStages } from '../../../src/retrieval/remote/index.js';
import { FakeApi, embedText } from '../../helpers/fake-api.js';
import { tempDir } from '../../helpers/cli.js';

describe('embedding batches', () => {
  it('respect the input-count and token limits, in order', () => {
    const items = Array.from({ length: 5000 }, (_, i) => ({ i, tokens: 100 }));
    const b = batches(items, 2048, 300_000);
    expect(b.map((x) => x.length)).toEqual([2048, 2048, 904]);
    const big = Array.from({ length: 100 }, (_, i) => ({ i, tokens: 8000 }));
    const bb = batches(big, 2048, 300_000);
    expect(bb.map((x) => x.length)).toEqual([37, 37, 26]);
    expect(bb.flat().map((x) => x.i)).toEqual(big.map((x) => x.i));
    expect(batches([{ tokens: 400_000 }], 2048, 300_000)).toHaveLength(1);
  });
});

describe('RemoteEmbedder over /v1/embeddings (loopback)', () => {
  it('embeds 2,500 texts in 2 requests, each distinct text once, floats requested, vectors by index', async () => {
    const api = await new FakeApi().start();
    try {
      const s = new ProviderSession({
        cacheDir: tempDir(),
        baseUrls: { embed: `${api.url}/v1`, rerank: api.url },
        env: { OPENAI_API_KEY: 'sk-unit-0123456789', COHERE_API_KEY: 'co-unit-0123456789' },
      });
      const stages = remoteStages(s, 'openai');
      if (!stages.ok) throw new Error(stages.reasons.join());
      const texts = Array.from({ length: 2500 }, (_, i) => `text number ${i % 2400}`);
      const vecs = await stages.embedder.embed(texts, 'document');
      expect(api.count('/v1/embeddings')).toBe(2);
      const sent = api.byPath('/v1/embeddings').map((r) => r.body.input.length);
      expect(sent).toEqual([2048, 352]);
      for (const r of api.byPath('/v1/embeddings')) expect(r.body.encoding_format).toBe('float');
      expect([...vecs[7]!].map((x) => Math.round(x * 1e5))).toEqual(embedText('text number 7', 64).map((x) => Math.round(x * 1e5)));
      expect(vecs[2407]).toEqual(vecs[7]);
      // OpenAI embeds queries and documents alike: the same texts as queries are already known, nothing is sent.
      const again = await stages.embedder.embed(texts.slice(0, 10), 'query');
      expect(api.count('/v1/embeddings')).toBe(2);
      expect(again[7]).toEqual(vecs[7]);
      s.close();
    } finally {
      await api.close();
    }
  });
});
