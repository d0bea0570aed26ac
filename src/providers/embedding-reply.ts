/** Reading an OpenAI embeddings reply (interactive or from a batch job's output file), strictly. */
import type OpenAI from 'openai';
import { BadReplyError, notJsonReply } from './errors.js';

/** Vectors by their `index` field (the API does not promise order); every input must get one. */
export function readVectors(res: OpenAI.CreateEmbeddingResponse, n: number): Float32Array[] {
  const out: Array<Float32Array | undefined> = new Array(n);
  if (typeof res === 'string') throw notJsonReply(res);
  if (!Array.isArray(res?.data)) throw new BadReplyError('embeddings reply has no data array', true);
  // A 200 that breaks the protocol is retried like a 5xx (issue 42); a server that always does fails after the retries.
  if (res.data.length !== n) throw new BadReplyError(`${res.data.length} embeddings returned for ${n} inputs`, true);
  for (const d of res.data) {
    if (!Array.isArray(d.embedding) || d.embedding.length === 0 || d.embedding.some((x) => typeof x !== 'number')) {
      throw new BadReplyError('embedding is not a float array (does the server honour encoding_format "float"?)', false);
    }
    if (!Number.isInteger(d.index) || d.index < 0 || d.index >= n) throw new BadReplyError(`embedding index ${d.index} out of range`, true);
    if (out[d.index] !== undefined) throw new BadReplyError(`embedding index ${d.index} returned twice`, true);
    out[d.index] = Float32Array.from(d.embedding);
  }
  const missing = out.findIndex((v) => v === undefined);
  if (missing !== -1) throw new BadReplyError(`no embedding returned for input ${missing} of ${n}`, true);
  // One model answers one length: vectors of several lengths in one reply are a broken reply, not a setting.
  const lengths = [...new Set(out.map((v) => v!.length))];
  if (lengths.length > 1) throw new BadReplyError(`embeddings of mixed lengths in one reply (${lengths.join(', ')})`, true);
  return out as Float32Array[];
}
