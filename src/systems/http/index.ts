/**
 * Any memory service under the same protocol as RAW-RAG (`--system http -S url=URL -S name=NAME`):
 * a service that answers rawrag's memory protocol (protocol.ts, docs/memory-services.md) — your own
 * system behind a small shim — is ingested, searched, resumed and purged exactly as every other
 * memory service is (src/systems/memory-service/).
 */
import { z } from 'zod';
import { serviceSettingsShape, type ServiceSettings } from '../memory-service/config.js';
import { serviceSystem } from '../memory-service/plugin.js';
import { HttpMemoryService } from './client.js';

const KEY_ENV = 'RAWRAG_HTTP_KEY';

export const ServiceSchema = z
  .object({
    ...serviceSettingsShape({ keyEnv: KEY_ENV, batch: 'session', top_k: 10, owners: 'per-episode' }),
    name: z.string().min(1).default('http').describe('the system\'s name in manifests, stats and reports (e.g. "my-memory")'),
  })
  .strict();
export type ServiceConfig = z.infer<typeof ServiceSchema> & ServiceSettings;

export const http = serviceSystem<ServiceConfig>({
  name: 'http',
  description: "any memory service speaking rawrag's memory protocol (add / search / list / delete over HTTP)",
  about: {
    label: 'http',
    kind: 'service',
    start: ['node docs/examples/memory-shim.mjs   (an example service on 127.0.0.1:8787; replace its handlers with your system)'],
  },
  schema: ServiceSchema as unknown as z.ZodType<ServiceConfig>,
  connect: (cfg, key, transport) => new HttpMemoryService(cfg.url!, cfg.name, key, transport),
  labelOf: (cfg) => cfg.name,
});
