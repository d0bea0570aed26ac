/**
 * Mem0 under the same protocol as RAW-RAG (`--system mem0 -S url=URL`): a running Mem0 service —
 * the open-source REST server or the hosted platform — is fed each episode's history through its
 * add API and searched with each question; the memories it returns are the evidence the benchmark's
 * own reader is shown. Ingest is resumable and never adds twice (src/systems/memory-service/), and
 * Mem0's add events become the write-decision log.
 */
import { InvalidArgumentError } from 'commander';
import { z } from 'zod';
import { aliasFlags, serviceSettingsShape, type ServiceSettings } from '../memory-service/config.js';
import { serviceSystem } from '../memory-service/plugin.js';
import { Mem0Service, type Mem0Api } from './client.js';

export const MEM0_SECTION = 'mem0';
const KEY_ENV = 'MEM0_API_KEY';

export const Mem0Schema = z
  .object({
    ...serviceSettingsShape({ keyEnv: KEY_ENV, batch: 2, top_k: 10, owners: 'per-episode' }),
    api: z
      .enum(['oss', 'platform'])
      .default('oss')
      .describe("which of Mem0's APIs the URL serves: oss (the open-source server, server/main.py) or platform (the hosted API)"),
  })
  .strict();
export type Mem0Config = z.infer<typeof Mem0Schema> & ServiceSettings;

function api(value: string): Mem0Api {
  if (value !== 'oss' && value !== 'platform') throw new InvalidArgumentError(`'${value}' is not one of oss, platform.`);
  return value;
}

export const mem0 = serviceSystem<Mem0Config>({
  name: 'mem0',
  section: MEM0_SECTION,
  description: 'a running Mem0 service (open-source server or platform) through its REST API',
  about: {
    label: 'Mem0',
    kind: 'service',
    start: [
      'open-source server: git clone https://github.com/mem0ai/mem0 && cd mem0/server && docker compose up -d   (listens on :8888)',
      'platform: -S api=platform -S url=https://api.mem0.ai with MEM0_API_KEY set',
    ],
  },
  schema: Mem0Schema as unknown as z.ZodType<Mem0Config>,
  connect: (cfg, key, transport) => new Mem0Service(cfg.url!, cfg.api, key, transport),
  refuse: (cfg, key) => (!key && cfg.api === 'platform' ? `Mem0's platform API needs a key: set ${cfg.keyEnv}` : null),
  aliases: [
    { flags: '--mem0-url <url>', description: 'the same as -S url=URL', config: [MEM0_SECTION, 'url'] },
    { flags: '--mem0-api <api>', description: 'the same as -S api=oss|platform', parse: api, config: [MEM0_SECTION, 'api'] },
    ...aliasFlags('mem0', MEM0_SECTION, {
      keyEnv: KEY_ENV,
      keyHelp: "the service's key",
      batchFlag: '--mem0-batch',
      batchHelp: 'the same as -S batch=N|session',
    }),
  ],
  // The paper's motivation audit of Mem0's write decisions (its Claim and Diagnostics sections).
  paperRows: [
    {
      kind: 'write-audit',
      benchmark: 'locomo',
      reader: 'gpt-4o-mini',
      title: "Mem0's write decisions: proposed UPDATE+DELETE share (rawrag memory audit also gives effective mutations)",
      paper: 'UPDATE+DELETE 4.39 % of 33,902 decisions (LongMemEval 2.46 % of 428,858); effective 1.90 % / 1.34 %',
      paperValue: 4.39,
      flags: '-S url=URL',
    },
  ],
});
