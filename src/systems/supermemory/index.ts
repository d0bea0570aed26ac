/**
 * Supermemory (`--system supermemory`): its hosted API only (the self-hosted server is a closed
 * binary downloaded at install, which cannot be fetched here), driven as the vendor's own
 * benchmark harness drives it (supermemoryai/memorybench@25729a76, src/providers/supermemory/):
 * one document per session (its date, then its messages as JSON), the container's documents
 * waited on until indexed, each question searched for memories with their chunks. Checked against
 * a loopback server written from its published API only (tests/helpers/fake-supermemory.ts).
 */
import { z } from 'zod';
import { serviceSettingsShape, type ServiceSettings } from '../memory-service/config.js';
import { serviceSystem } from '../memory-service/plugin.js';
import type { VendorProtocol } from '../../core/system.js';
import { SupermemoryService } from './client.js';

const KEY_ENV = 'SUPERMEMORY_API_KEY';
export const SUPERMEMORY_URL = 'https://api.supermemory.ai';
const BENCH = 'supermemoryai/memorybench@25729a76';
const API = 'supermemoryai/supermemory@34876664 apps/docs';

export const SUPERMEMORY_PROTOCOL: VendorProtocol = {
  summary:
    'one container per conversation; one document per session, in order, its content "Here is the date the following session took place: <h:mm am on D Month, YYYY>" then the session\'s messages as stringified JSON ({role: user for speaker_a else assistant, content: text, speaker}; < and > escaped; no image captions), metadata {sessionId, date}; every document of the conversation waited on until `done` before its first question; each question searched verbatim for memories (limit 10, threshold 0.3, with their chunks); the reader shown the memories, dated by their temporal context, then the de-duplicated chunks',
  sources: [
    `${BENCH} src/providers/supermemory/index.ts L19-46 (one add per session: content, containerTag, metadata {sessionId, date}), L49-79 (awaitIndexing: documents.get until done or failed, every 2 s, up to 300 s), L82-96 (search.memories: q, containerTag, limit, threshold, include.chunks)`,
    `${BENCH} src/providers/supermemory/prompts.ts (buildSupermemoryContext: numbered memories with their temporal context, then "=== DEDUPLICATED CHUNKS ===")`,
    `${BENCH} src/benchmarks/locomo/index.ts L11-27 (parseLocomoDate: the formatted date), L115-150 (messages: role user for speaker_a, content = text, speaker; no captions)`,
    `${BENCH} src/orchestrator/phases/search.ts L60-61 (limit 10, threshold 0.3); phases/ingest.ts L8 (1 s between sessions), L32 (container per question: questionId-runId)`,
    `${API}/api-reference/ingest.mdx, documents.mdx (POST /v3/documents -> status queued; GET /v3/documents/{id} until done; POST /v3/documents/list), search.mdx + recall/search.mdx (POST /v4/search: q, containerTag, limit, threshold; results [{id, memory | chunk, similarity, metadata}]), container-tags.mdx (DELETE /v3/container-tags/{containerTag}); api-reference/overview.mdx (Authorization: Bearer)`,
  ],
  deviations: [
    "the reader is the benchmark's own reader prompt (the paper's protocol), not memorybench's answer prompt: the memories as dated memory blocks, then the de-duplicated chunks as one block after them",
    "one container per conversation (rawrag's owner id, rawrag-<run>-<episode>: a container per run), where memorybench makes one per question (questionId-runId) and re-ingests the whole conversation for every question: the same documents, ingested once",
    "no 1 s pause between sessions (memorybench's rate limit); -S concurrency bounds the requests in flight",
    "every document also carries rawrag's metadata (rawrag_add, turn_ids as JSON text, session), so that an add whose reply was lost is found in the container's documents, never sent twice",
    'a document not done within -S readyTimeout is an error for its conversation (memorybench gives up after 300 s and searches anyway); rawrag deletes the container on purge (memorybench does not implement clear)',
  ],
};

export const SupermemorySchema = z
  .object({
    ...serviceSettingsShape({ keyEnv: KEY_ENV, batch: 'session', top_k: 10, owners: 'per-episode' }),
    threshold: z.number().min(0).max(1).default(0.3).describe("the search's similarity cutoff (memorybench: 0.3)"),
    chunks: z
      .boolean()
      .default(true)
      .describe("ask for each memory's document chunks and show them, de-duplicated, after the memories (memorybench: include.chunks)"),
  })
  .strict();
export type SupermemoryConfig = z.infer<typeof SupermemorySchema> & ServiceSettings;

export const supermemory = serviceSystem<SupermemoryConfig>({
  name: 'supermemory',
  description: "Supermemory's hosted API under the vendor's own benchmark harness (memorybench): a document per session, indexed, searched",
  about: {
    label: 'Supermemory',
    kind: 'service',
    start: [
      `hosted: export ${KEY_ENV}=...; rawrag run locomo --system supermemory --reader gpt-4o-mini   (-S url= for another address than ${SUPERMEMORY_URL}, e.g. a self-hosted supermemory-server)`,
    ],
    protocol: SUPERMEMORY_PROTOCOL,
  },
  schema: SupermemorySchema as unknown as z.ZodType<SupermemoryConfig>,
  resolve: (cfg) => (cfg.url ? cfg : { ...cfg, url: SUPERMEMORY_URL }),
  connect: (cfg, key, transport) => new SupermemoryService(cfg.url!, { threshold: cfg.threshold, chunks: cfg.chunks }, key, transport),
  refuse: (cfg, key) => (key ? null : `Supermemory's API needs a key: set ${cfg.keyEnv}`),
  noCoverage: () => "Supermemory's search results carry no link to the document (session) a memory was extracted from",
  checked: {
    kind: 'stand-in',
    why: 'hosted API (its self-hosted server is a closed binary its installer downloads, which cannot be fetched here): checked against a loopback server written from its published API (tests/helpers/fake-supermemory.ts)',
  },
});
