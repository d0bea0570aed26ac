/**
 * MemMachine under the same protocol as RAW-RAG (`--system memmachine -S url=URL`): a running
 * MemMachine server (REST API v2) is fed each conversation as its vendor's own LoCoMo evaluation
 * feeds it (evaluation/episodic_memory/restapiv2_locomo_ingest.py: batches of 10 episodic messages
 * per session, the speaker as producer, timestamps one second apart), one project per conversation,
 * and searched as restapiv2_locomo_search.py searches it (top_k 50, no context expansion); the
 * episodes it returns, long-term and short-term, and its working-memory summary are the evidence.
 */
import { z } from 'zod';
import { serviceSettingsShape, type ServiceSettings } from '../memory-service/config.js';
import { serviceSystem } from '../memory-service/plugin.js';
import { MemMachineService } from './client.js';
import { PAPER_ROWS } from '../../benchmarks/paper-rows.js';
import { readProtocol } from '../protocol-file.js';

const KEY_ENV = 'MEMMACHINE_API_KEY';

export const MemMachineSchema = z
  .object({
    ...serviceSettingsShape({ keyEnv: KEY_ENV, batch: 10, top_k: 50, owners: 'per-episode' }),
    org: z
      .string()
      .regex(/^[\p{L}\p{N}_:-]+$/u, 'letters, digits, _, : and - only (MemMachine ids)')
      .default('universal')
      .describe("the org_id every project is created in (the server's default org is 'universal')"),
    expand_context: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe(
        'episodes around each long-term match returned with it (0: the REST search script; its in-process script uses 3, with top_k=30)',
      ),
  })
  .strict();
export type MemMachineConfig = z.infer<typeof MemMachineSchema> & ServiceSettings;

export const memmachine = serviceSystem<MemMachineConfig>({
  name: 'memmachine',
  description: 'a running MemMachine server (REST API v2): episodic memory, one project per conversation',
  about: {
    label: 'MemMachine',
    kind: 'service',
    start: [
      'git clone https://github.com/MemMachine/MemMachine && cd MemMachine',
      'cp sample_configs/env.dockercompose .env && cp sample_configs/episodic_memory_config.sample configuration.yml   (set OPENAI_API_KEY, the Neo4j password, host neo4j)',
      'docker compose up -d   (or ./memmachine-compose.sh; PostgreSQL/pgvector, Neo4j, MemMachine on :8080)',
      'rawrag run locomo --system memmachine -S url=http://localhost:8080 --reader gpt-4o-mini',
    ],
    protocol: readProtocol(import.meta.url),
  },
  schema: MemMachineSchema as unknown as z.ZodType<MemMachineConfig>,
  checked: {
    kind: 'stand-in',
    why: 'memmachine-server needs Python >= 3.12 (installed only inside a Debian 13 root, not started): only the loopback MemMachine server (tests/helpers/fake-memmachine.ts) ran',
  },
  install: {
    python: '>=3.12',
    packages: ['memmachine-server==0.4.0'],
    library: { name: 'memmachine-server', version: '0.4.0' },
    unavailable:
      "memmachine-server 0.4.0 requires Python >= 3.12 (this machine: 3.11). Tried once (2026-12-07): a Debian 13 root (debootstrap --variant=minbase trixie from the Debian mirror, 6.6 min) gives Python 3.13.5 there; in a venv there memmachine-server 0.4.0 installed (7 min) and imports (its retrieval agent's multi-hop decomposer prints 'No module named spacy' and is skipped), but only inside that root (its python3.13 needs glibc 2.38; this machine has 2.36). Its vendor configs want Neo4j for long-term memory: the replacement would be its SQLite `event` backend with sqlite_vector_store (a labelled deviation) and NLTK's punkt/stopwords provisioned; the server was not started (time-box). Not run on its real library",
  },
  connect: (cfg, key, transport) =>
    new MemMachineService(cfg.url!, key, transport, {
      org: cfg.org,
      expandContext: cfg.expand_context,
      deleteTimeoutMs: cfg.deleteTimeout * 1000,
    }),
  // The paper's main table: MemMachine is the strongest rival on LoCoMo and MEME. Its figures are the
  // main table's own (src/benchmarks/paper-rows.ts `strongestOther`), never a second copy.
  paperRows: PAPER_ROWS.filter((r) => r.retriever === 'openai' && r.strongestOther?.system === 'MemMachine').map((r) => ({
    kind: 'leaderboard' as const,
    benchmark: r.benchmark,
    reader: r.reader,
    title: `MemMachine on ${r.benchmark === 'locomo' ? 'LoCoMo' : 'MEME'}, read by ${r.reader} (its own row of the paper's main table)`,
    paper: `${r.strongestOther!.accuracy.toFixed(2)}${r.benchmark === 'meme' ? ', six-task macro' : ''} (RAW-RAG ${r.accuracy.toFixed(2)})`,
    paperValue: r.strongestOther!.accuracy,
    flags: '-S url=URL',
    needs: 'a running MemMachine server (-S url=URL)',
  })),
});
