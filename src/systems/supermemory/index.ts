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
import { readProtocol } from '../protocol-file.js';
import { SupermemoryService } from './client.js';

const KEY_ENV = 'SUPERMEMORY_API_KEY';
export const SUPERMEMORY_URL = 'https://api.supermemory.ai';

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
    protocol: readProtocol(import.meta.url),
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
