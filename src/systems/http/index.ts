/**
 * Any memory service under the same protocol as RAW-RAG (`--system http --memory-url URL`): a
 * service that answers rawrag's four-call memory protocol (protocol.ts, docs/memory-services.md)
 * — MemOS, Zep/Graphiti, Letta or your own system behind a small shim — is ingested, searched,
 * resumed and purged exactly as Mem0 is (src/systems/memory-service/).
 */
import { z } from 'zod';
import type { RunConfig } from '../../config/schema.js';
import type { SystemDescriptor } from '../../core/system.js';
import type { ModelEntry } from '../../providers/models.js';
import { defaultTransport } from '../../providers/transport.js';
import { Secrets, keyFrom } from '../../providers/secrets.js';
import type { ProviderSession } from '../../providers/session.js';
import { InputError } from '../../util/errors.js';
import { serviceOptions, serviceSettingsShape } from '../memory-service/config.js';
import { estimateService } from '../memory-service/estimate.js';
import { serviceSource } from '../memory-service/source.js';
import { serviceStore } from '../memory-service/store.js';
import { serviceSummaryLines } from '../memory-service/summary.js';
import { HttpMemoryService } from './client.js';

export const SERVICE_SECTION = 'service';
const KEY_ENV = 'RAWRAG_MEMORY_KEY';

export const ServiceSchema = z
  .object({
    ...serviceSettingsShape({ keyEnv: KEY_ENV, batch: 'session' }),
    /** The system's name in manifests and `rawrag stats` (e.g. MemOS). */
    name: z.string().min(1).default('memory-service'),
  })
  .strict();
export type ServiceConfig = z.infer<typeof ServiceSchema>;

export function serviceConfig(cfg: RunConfig): ServiceConfig {
  return (cfg[SERVICE_SECTION] as ServiceConfig | undefined) ?? ServiceSchema.parse({});
}

export function httpService(
  cfg: RunConfig,
  env: NodeJS.ProcessEnv,
  transport = defaultTransport(env),
  secrets = new Secrets(),
): HttpMemoryService {
  const s = serviceConfig(cfg);
  if (!s.url) throw new InputError('--system http needs the service: give --memory-url URL', { place: '--memory-url' });
  const key = secrets.add(keyFrom(env, s.keyEnv));
  return new HttpMemoryService(s.url, s.name, key, {
    timeoutMs: transport.timeoutMs,
    retry: transport.retry,
    concurrency: s.concurrency,
    secrets,
  });
}

export const http: SystemDescriptor<ProviderSession, ModelEntry> = {
  name: 'http',
  description: "any memory service speaking rawrag's memory protocol (add / search / list / delete over HTTP)",
  config: { key: SERVICE_SECTION, schema: ServiceSchema },
  options: [
    {
      flags: '--memory-url <url>',
      description: 'base URL of the service (POST <url>/add, /search, /list, /delete)',
      config: [SERVICE_SECTION, 'url'],
    },
    {
      flags: '--memory-name <name>',
      description: 'its name in manifests and stats (default memory-service)',
      config: [SERVICE_SECTION, 'name'],
    },
    ...serviceOptions('memory', SERVICE_SECTION, {
      keyEnv: KEY_ENV,
      keyHelp: "the service's key, sent as a Bearer token",
      batchFlag: '--memory-add-batch',
      batchHelp: "turns per add call, or 'session' (default session)",
    }),
  ],
  async create(cfg, session, opts) {
    return serviceSource(httpService(cfg, session.transport.env, session.transport, session.secrets), serviceConfig(cfg), opts);
  },
  estimate: (input) => estimateService(serviceConfig(input.cfg).name, serviceConfig(input.cfg), input),
  summaryLines: serviceSummaryLines,
  store: serviceStore('http', (cfg) => httpService(cfg, process.env)),
};
