/**
 * MemU under the same protocol as RAW-RAG (`--system memu`), through either of its two APIs:
 * - `-S api=cloud` (default): memU's hosted API, as the third parties' LoCoMo evaluations drive it —
 *   `-S protocol=evermemos` (default) as EverMemOS's memu_adapter.py (each speaker's store gets the
 *   whole conversation in one memorize, messages dated 30 s apart, `session_date` the first day; the
 *   task polled every 15 s; both stores searched with top_k 20, min_similarity 0.3, with the
 *   category overview), `-S protocol=memos` as MemOS's utils/client.py (one memorize per session
 *   and speaker, `session_date` the session's ISO time, polled every 2 s; top_k 20, min_similarity 0.1);
 * - `-S api=server`: a self-hosted memU-server, whose retrieve takes no owner: one store per
 *   conversation, held one at a time (ingested, answered and cleared one after another).
 * memU returns memories it extracted with an LLM, with no message ids or metadata: coverage is absent.
 */
import { z } from 'zod';
import { serviceSettingsShape, type OwnerScheme, type ServiceSettings } from '../memory-service/config.js';
import type { ServiceTransport } from '../memory-service/http.js';
import { serviceSystem } from '../memory-service/plugin.js';
import type { MemoryService } from '../memory-service/service.js';
import { readProtocol } from '../protocol-file.js';
import { MemuCloudService } from './cloud.js';
import { MemuServerService } from './server.js';

const KEY_ENV = 'MEMU_API_KEY';

const base = serviceSettingsShape({ keyEnv: KEY_ENV, batch: 'episode', top_k: 20, owners: 'per-speaker' });

export const MemuSchema = z
  .object({
    ...base,
    api: z
      .enum(['cloud', 'server'])
      .default('cloud')
      .describe(
        "cloud: memU's hosted API (api.memu.so; Bearer key from MEMU_API_KEY) as its evaluators drive it; server: a self-hosted memU-server (its retrieve takes no owner: one episode at a time)",
      ),
    protocol: z
      .enum(['evermemos', 'memos'])
      .default('evermemos')
      .describe(
        "api=cloud: whose LoCoMo evaluation to follow — evermemos: EverMemOS's memu_adapter.py (whole conversation per speaker, /api/v0); memos: MemOS's utils/client.py (one memorize per session and speaker, /api/v2 through the memu-py SDK)",
      ),
    owners: z
      .enum(['per-episode', 'per-speaker'])
      .nullable()
      .default(null)
      .describe(`${base.owners.description} (default: per-speaker for api=cloud, per-episode for api=server)`),
    batch: z
      .union([z.literal('session'), z.literal('episode'), z.number().int().positive()])
      .nullable()
      .default(null)
      .describe(
        "turns per memorize: 'episode' (the whole conversation: protocol=evermemos and api=server) or 'session' (protocol=memos), or a number",
      ),
    readyTimeout: z
      .number()
      .positive()
      .default(4800)
      .describe("seconds to poll one memorize task before giving up (EverMemOS's task_timeout 4800; MemOS never stops)"),
    prefix: z
      .string()
      .regex(/^\//, 'a path, e.g. /api/v0/memory')
      .nullable()
      .default(null)
      .describe('api=cloud: the API path prefix (default /api/v0/memory for protocol=evermemos, /api/v2/memory for protocol=memos)'),
    agent_id: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .describe(
        "the agent_id sent (default evaluation_agent_04 for protocol=evermemos, assistant_001 for protocol=memos, and EverMemOS's for api=server)",
      ),
    agent_name: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .describe(
        'api=cloud: the agent_name sent (default "Memory Evaluation Assistant" for protocol=evermemos, assistant_001 for protocol=memos)',
      ),
    min_similarity: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .default(null)
      .describe('api=cloud: the search threshold (default 0.3 for protocol=evermemos, 0.1 for protocol=memos)'),
    categories: z
      .boolean()
      .nullable()
      .default(null)
      .describe(
        "api=cloud: show each store's category overview after its memories (default: true for protocol=evermemos, as its adapter does; false for memos)",
      ),
    poll_interval: z
      .number()
      .positive()
      .nullable()
      .default(null)
      .describe('seconds between task polls (default 15 for protocol=evermemos, 2 for protocol=memos and api=server)'),
    lost_wait: z
      .number()
      .min(0)
      .default(120)
      .describe(
        "seconds to look for the memories of a memorize whose reply was lost (its task may still run) before sending it again; nothing on the service carries rawrag's key",
      ),
  })
  .strict();

export type MemuConfig = Omit<z.infer<typeof MemuSchema>, 'owners' | 'batch'> & ServiceSettings;

const isMemos = (c: MemuConfig) => c.api === 'cloud' && c.protocol === 'memos';

/** The defaults that follow `api` and `protocol`, filled in. */
export function resolveMemu(c: MemuConfig): MemuConfig {
  const memos = isMemos(c);
  return {
    ...c,
    owners: (c.owners as OwnerScheme | null) ?? (c.api === 'server' ? 'per-episode' : 'per-speaker'),
    batch: (c.batch as ServiceSettings['batch'] | null) ?? (memos ? 'session' : 'episode'),
    prefix: c.prefix ?? (memos ? '/api/v2/memory' : '/api/v0/memory'),
    agent_id: c.agent_id ?? (memos ? 'assistant_001' : 'evaluation_agent_04'),
    agent_name: c.agent_name ?? (memos ? 'assistant_001' : 'Memory Evaluation Assistant'),
    min_similarity: c.min_similarity ?? (memos ? 0.1 : 0.3),
    categories: c.categories ?? (c.api === 'cloud' && !memos),
    poll_interval: c.poll_interval ?? (c.api === 'cloud' && !memos ? 15 : 2),
  };
}

function connectMemu(c: MemuConfig, key: string | undefined, transport: ServiceTransport): MemoryService {
  const common = { pollMs: c.poll_interval! * 1000, taskTimeoutMs: c.readyTimeout * 1000, lostWaitMs: c.lost_wait * 1000 };
  if (c.api === 'server') return new MemuServerService(c.url!, transport, { agentId: c.agent_id!, ...common });
  return new MemuCloudService(c.url!, key, transport, {
    protocol: c.protocol,
    prefix: c.prefix!,
    agentId: c.agent_id!,
    agentName: c.agent_name!,
    minSimilarity: c.min_similarity!,
    categories: c.categories!,
    ...common,
  });
}

export const memu = serviceSystem<MemuConfig>({
  name: 'memu',
  description:
    "memU, through its hosted API as EverMemOS's or MemOS's evaluation drives it (-S api=cloud), or a self-hosted memU-server (-S api=server)",
  about: {
    label: 'MemU',
    kind: 'service',
    // Its evaluators (EverMemOS's memu_adapter, on EverMemOS's loader) caption only a turn with img_url.
    captions: 'with-image',
    start: [
      'hosted API (-S api=cloud, default): export MEMU_API_KEY=... (an api.memu.so key), then rawrag run locomo --system memu -S url=https://api.memu.so --reader gpt-4o-mini',
      'self-hosted (-S api=server): git clone https://github.com/NevaMind-AI/memU-server && cd memU-server',
      '  docker compose up -d   (PostgreSQL/pgvector :5432, Temporal :7233, Temporal UI :8088)',
      '  export OPENAI_API_KEY=...; uv sync; uv run fastapi dev   (the API on :8000)   and, in a second terminal, uv run python -m app.workers.worker',
      '  (or: docker run --network memu-network -e OPENAI_API_KEY -e POSTGRES_HOST=postgres -e TEMPORAL_HOST=temporal -p 8000:8000 nevamindai/memu-server:latest, and the same image with `uv run python -m app.workers.worker` for the worker)',
      '  rawrag run locomo --system memu -S api=server -S url=http://localhost:8000 --reader gpt-4o-mini',
    ],
    protocol: readProtocol(import.meta.url),
  },
  schema: MemuSchema as unknown as z.ZodType<MemuConfig>,
  resolve: resolveMemu,
  refuse: (c, key) => {
    if (c.api === 'server' && c.owners === 'per-speaker')
      return "memU-server's /retrieve takes no owner: per-speaker stores cannot be searched apart (-S api=server uses one owner per conversation)";
    if (c.api === 'cloud' && !key)
      return `memU's hosted API needs a key: set ${c.keyEnv} (or -S api=server -S url=... for a self-hosted memU-server)`;
    return null;
  },
  checked: {
    kind: 'stand-in',
    why: 'memu-py needs Python >= 3.13 (installed only inside a Debian 13 root, whose python3.13 cannot run outside it: glibc 2.38 against 2.36) and memU-server needs Temporal and pgvector: only the loopback memU server (tests/helpers/fake-memu.ts) ran',
  },
  install: {
    python: '>=3.13',
    packages: ['memu-py==1.5.1'],
    library: { name: 'memu-py', version: '1.5.1' },
    unavailable:
      "memu-py 1.5.1 requires Python >= 3.13 (this machine: 3.11). Tried once (2026-12-07): a Debian 13 root (debootstrap --variant=minbase trixie from the Debian mirror, 6.6 min) gives Python 3.13.5 there; in a venv there memu-py 1.5.1 installed (3.7 min) and imports (MemoryService, its Rust core memu._core), but only inside that root: its python3.13 needs glibc 2.38 (this machine has 2.36), so rawrag cannot start it as a sidecar from outside the root; and this plug-in speaks memU-server's REST API, whose server needs Temporal and pgvector (not obtainable here). Not run on its real library",
  },
  connect: connectMemu,
  noCoverage: () =>
    'memU returns memories it extracted with an LLM, with no message ids or metadata: no memory maps back to the turns it came from',
  oneEpisodeAtATime: (c) => c.api === 'server',
  labelOf: () => 'MemU',
});
