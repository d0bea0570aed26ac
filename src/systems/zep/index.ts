/**
 * Zep as its own LoCoMo evaluation drives it (`--system zep`), on one of two APIs (`-S api=`):
 * - graphiti (default): Graphiti, Zep's open-source engine (graphiti-core from the package index),
 *   on an embedded Kuzu graph database, behind integrations/sidecars/zep.py: `rawrag systems
 *   install zep` once, then a run without `-S url=` starts it for you; labelled "Graphiti (Zep's
 *   open-source engine)";
 * - cloud: Zep's hosted API (client.ts), with ZEP_API_KEY.
 * Either way: one graph per conversation, one episode per message at its session's date, each
 * question searched for 20 facts (cross-encoder) and 20 entities (RRF) (protocol.md).
 */
import { z } from 'zod';
import type { InstallSpec } from '../../core/install-spec.js';
import { HttpMemoryService } from '../http/client.js';
import { serviceSettingsShape, type ServiceSettings } from '../memory-service/config.js';
import { serviceSystem } from '../memory-service/plugin.js';
import { ZepCloudService } from './client.js';
import { readProtocol } from '../protocol-file.js';

const KEY_ENV = 'ZEP_API_KEY';
export const ZEP_CLOUD_URL = 'https://api.getzep.com/api/v2';
export const GRAPHITI_LABEL = "Graphiti (Zep's open-source engine)";

/**
 * graphiti-core with its Kuzu extra and Kuzu's last release (its full-text and vector extensions
 * built in: nothing downloaded at run time). graphiti-core 0.31.2 imports httpx without declaring
 * it (the openai package it pulls in moved to httpx2), so httpx is installed beside it.
 */
export const ZEP_INSTALL: InstallSpec = {
  python: '>=3.10',
  packages: ['graphiti-core[kuzu]==0.31.2', 'kuzu==0.11.3', 'httpx==0.29.0'],
  library: { name: 'graphiti-core', version: '0.31.2' },
  script: 'integrations/sidecars/zep.py',
  heavy:
    'slow, not large: Graphiti makes several LLM calls per message, so one LoCoMo conversation (419 messages) takes 15-30 minutes on two cores',
  env: { GRAPHITI_TELEMETRY_ENABLED: 'false' },
  notes: [
    'Graphiti on an embedded Kuzu database (kuzu 0.11.3; the Kuzu backend is deprecated upstream but is the only embedded store on Python 3.11), not Zep\'s hosted service: runs are labelled "Graphiti (Zep\'s open-source engine)"',
  ],
};

export const ZepSchema = z
  .object({
    ...serviceSettingsShape({ keyEnv: KEY_ENV, batch: 1, top_k: 40, owners: 'per-episode' }),
    // Graphiti extracts entities and facts per message (several LLM calls each) when the sidecar is fed: hours, not minutes.
    readyTimeout: z
      .number()
      .positive()
      .default(14_400)
      .describe(
        "seconds to wait after a conversation's last add until Zep has processed it (Graphiti: the sidecar feeding every message to the library)",
      ),
    api: z
      .enum(['graphiti', 'cloud'])
      .default('graphiti')
      .describe(
        `graphiti: Zep's open-source engine (graphiti-core on Kuzu, started for you after 'rawrag systems install zep', or -S url= of its sidecar); cloud: Zep's hosted API (default URL ${ZEP_CLOUD_URL}, key in ${KEY_ENV})`,
      ),
  })
  .strict();
export type ZepConfig = z.infer<typeof ZepSchema> & ServiceSettings;

export const zep = serviceSystem<ZepConfig>({
  name: 'zep',
  description: "Zep under its own LoCoMo protocol: Graphiti, its open-source engine, on Kuzu (default), or Zep's hosted API (-S api=cloud)",
  about: {
    label: 'Zep',
    kind: 'service',
    start: [
      "started for you: 'rawrag systems install zep' once (graphiti-core 0.31.2 with Kuzu), then a run without -S url= starts Graphiti behind integrations/sidecars/zep.py and stops it at the end; its LLM, embedder and cross-encoder use OPENAI_BASE_URL (else the reader's base URL)",
      'by hand: <systems dir>/zep/venv/bin/python integrations/sidecars/zep.py --port 8787 --state DIR, then -S url=http://127.0.0.1:8787',
      `hosted: export ${KEY_ENV}=...; rawrag run locomo --system zep -S api=cloud --reader gpt-4o-mini   (-S url= for another address than ${ZEP_CLOUD_URL})`,
    ],
    env: [
      {
        name: 'OPENAI_BASE_URL',
        description: "api=graphiti: the library's OpenAI-compatible endpoint (LLM, embeddings, cross-encoder); OPENAI_API_KEY its key",
      },
      {
        name: 'GRAPHITI_LLM_MODEL',
        description:
          "api=graphiti: the library's LLM (default gpt-4.1-mini, OpenAIGenericClient's); GRAPHITI_SMALL_MODEL, GRAPHITI_RERANKER_MODEL, GRAPHITI_EMBEDDING_MODEL likewise",
      },
    ],
    protocol: readProtocol(import.meta.url),
  },
  schema: ZepSchema as unknown as z.ZodType<ZepConfig>,
  resolve: (cfg) => (cfg.api === 'cloud' && !cfg.url ? { ...cfg, url: ZEP_CLOUD_URL } : cfg),
  connect: (cfg, key, transport) =>
    cfg.api === 'cloud' ? new ZepCloudService(cfg.url!, key, transport) : new HttpMemoryService(cfg.url!, GRAPHITI_LABEL, key, transport),
  labelOf: (cfg) => (cfg.api === 'cloud' ? 'Zep' : GRAPHITI_LABEL),
  install: ZEP_INSTALL,
  // What was run here against the loopback OpenAI-compatible API (tests/real/zep.test.ts runs the same).
  checked: {
    kind: 'real',
    library: 'graphiti-core (on kuzu 0.11.3)',
    version: '0.31.2',
    date: '2026-12-07',
    how: "api=graphiti: RAWRAG_REAL_HEAVY=1 npx vitest run --config vitest.real.config.ts tests/real/zep.test.ts passed (2.7 min): rawrag run locomo --system zep -S api=graphiti --reader gpt-4o-mini --limit 20 on conv-26 cut to its first 20 questions' evidence sessions (164 messages), started for you, against the loopback API answering Graphiti's own prompts: 0 errors, one entity and one fact extraction per message, every message the source of a fact in Kuzu (326 facts, 102 entities), rawrag stats paired with RAW-RAG (n 20), purged to 0; the whole conversation by hand against scripts/loopback-openai.mjs (419 episodes in 19-32 min, 0 errors, 1064 facts and entities, coverage 35 % vs RAW-RAG 65 % in rawrag stats, purged to 0); api=cloud: stand-in only: hosted API (a loopback server written from Zep's SDK)",
  },
  startable: (cfg) => cfg.api === 'graphiti',
  refuse: (cfg, key) => (!key && cfg.api === 'cloud' ? `Zep's hosted API needs a key: set ${cfg.keyEnv}` : null),
});
