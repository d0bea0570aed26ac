/**
 * Issue 42, item 3, for the sentence-vector store (`sentence-vectors.sqlite`, derived and free
 * data) on a full disk (the seam `cacheFaults.full`: the file may not grow past its pages): the
 * call that cannot store its vectors fails with the ENOSPC error naming the file (which stops the
 * run with exit 2, src/util/fsx.ts isLocalFsFailure), and no text of that batch is left waiting
 * for ever: a later call for one of them answers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { cacheFaults, ResponseCache } from '../../src/providers/cache.js';
import { SENTENCE_VECTOR_FILE } from '../../src/retrieval/local/index.js';
import { LocalSentenceEncoder, sentenceEncoderAvailable } from '../../src/retrieval/local/sentence-encoder.js';
import { tempDir } from '../helpers/cli.js';

describe('the sentence-vector store on a full disk', () => {
  afterEach(() => {
    cacheFaults.full = false;
  });

  it.skipIf(!sentenceEncoderAvailable())('fails naming sentence-vectors.sqlite, and leaves no text of the batch hanging', async () => {
    const dir = tempDir('rawrag-vectors-full-');
    cacheFaults.full = true;
    const enc = new LocalSentenceEncoder(new ResponseCache(dir, SENTENCE_VECTOR_FILE));
    const texts = ['the hiking trip was in May', 'she adopted a second dog', 'a pottery class on Tuesdays'];
    const err = await enc.embed(texts, 'document').then(
      () => null,
      (e: NodeJS.ErrnoException) => e,
    );
    expect(err?.code).toBe('ENOSPC');
    expect(err?.path).toBe(join(dir, SENTENCE_VECTOR_FILE));
    const later = await Promise.race([
      enc.embed([texts[2]!], 'document').then(
        (v) => v.length,
        () => 'rejected',
      ),
      new Promise((r) => setTimeout(() => r('still waiting'), 5_000)),
    ]);
    expect(later).not.toBe('still waiting');
  }, 120_000);
});
