/**
 * Mem0 under the same protocol as RAW-RAG (`--system mem0 --mem0-url URL`): a running Mem0
 * service — the open-source REST server or the hosted platform — is fed each episode's history
 * through its add API and searched with each question; the memories it returns are the evidence
 * the benchmark's own reader is shown. Ingest is resumable and never adds twice
 * (src/systems/memory-service/), and Mem0's add events become the write-decision log.
 */
import { InvalidArgumentError } from 'commander';
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
import { Mem0Service, type Mem0Api } from './client.js';

export const MEM0_SECTION = 'mem0';
const KEY_ENV = 'MEM0_API_KEY';

export const Mem0Schema = z
  .object({
    ...serviceSettingsShape({ keyEnv: KEY_ENV, batch: 2 }),
    /** Which of Mem0's APIs the URL serves: the open-source server (server/main.py) or the hosted platform. */
    api: z.enum(['oss', 'platform']).default('oss'),
  })
  .strict();
export type Mem0Config = z.infer<typeof Mem0Schema>;

export function mem0Config(cfg: RunConfig): Mem0Config {
  return (cfg[MEM0_SECTION] as Mem0Config | undefined) ?? Mem0Schema.parse({});
}

function api(value: string): Mem0Api {
  if (value !== 'oss' && value !== 'platform') throw new InvalidArgumentError(`'${value}' is not one of oss, platform.`);
  return value;
}

/** The service a config names; the key is read from the environment (never from a file). */
export function mem0Service(
  cfg: RunConfig,
  env: NodeJS.ProcessEnv,
  transport = defaultTransport(env),
  secrets = new Secrets(),
): Mem0Service {
  const m = mem0Config(cfg);
  if (!m.url)
    throw new InputError('--system mem0 needs the service: give --mem0-url URL (e.g. http://localhost:8888)', { place: '--mem0-url' });
  const key = secrets.add(keyFrom(env, m.keyEnv));
  if (!key && m.api === 'platform')
    throw new InputError(`Mem0's platform API needs a key: set ${m.keyEnv} (or give --mem0-key)`, { place: '--mem0-key' });
  return new Mem0Service(m.url, m.api, key, {
    timeoutMs: transport.timeoutMs,
    retry: transport.retry,
    concurrency: m.concurrency,
    secrets,
  });
}

export const mem0: SystemDescriptor<ProviderSession, ModelEntry> = {
  name: 'mem0',
  // The paper's motivation audit of Mem0's write decisions (its Claim and Diagnostics sections).
  paperRows: [
    {
      kind: 'write-audit',
      benchmark: 'locomo',
      reader: 'gpt-4o-mini',
      title: "Mem0's write decisions: proposed UPDATE+DELETE share (rawrag memory audit also gives effective mutations)",
      paper: 'UPDATE+DELETE 4.39 % of 33,902 decisions (LongMemEval 2.46 % of 428,858); effective 1.90 % / 1.34 %',
      paperValue: 4.39,
      flags: '--mem0-url URL',
      needs: 'a running Mem0 server (--mem0-url URL)',
    },
    {
      kind: 'write-audit',
      benchmark: 'longmemeval',
      reader: 'gpt-4.1-mini',
      title: "Mem0's write decisions: proposed UPDATE+DELETE share (rawrag memory audit also gives effective mutations)",
      paper: 'UPDATE+DELETE 2.46 % of 428,858 decisions; effective 1.34 % (NONE 73.04 %, ADD 24.51 %)',
      paperValue: 2.46,
      flags: '--mem0-url URL',
      needs: 'a running Mem0 server (--mem0-url URL)',
    },
  ],
  description: 'a running Mem0 service (open-source server or platform) through its REST API',
  config: { key: MEM0_SECTION, schema: Mem0Schema },
  options: [
    { flags: '--mem0-url <url>', description: 'base URL of the Mem0 service', config: [MEM0_SECTION, 'url'] },
    {
      flags: '--mem0-api <api>',
      description: 'oss (the open-source server, default) | platform (the hosted API)',
      parse: api,
      config: [MEM0_SECTION, 'api'],
    },
    ...serviceOptions('mem0', MEM0_SECTION, {
      keyEnv: KEY_ENV,
      keyHelp: "the service's key",
      batchFlag: '--mem0-batch',
      batchHelp: "turns per add call, or 'session' (default 2, as Mem0's own evaluation)",
    }),
  ],
  async create(cfg, session, opts) {
    return serviceSource(mem0Service(cfg, session.transport.env, session.transport, session.secrets), mem0Config(cfg), opts);
  },
  estimate: (input) => estimateService('mem0', mem0Config(input.cfg), input),
  summaryLines: serviceSummaryLines,
  store: serviceStore('mem0', (cfg) => mem0Service(cfg, process.env)),
};
