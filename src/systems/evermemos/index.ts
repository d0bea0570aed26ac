/**
 * EverMemOS under the same protocol as RAW-RAG (`--system evermemos -S url=URL`): a running
 * EverMemOS (EverCore) server, REST API v1, is fed each conversation as one group stream the way
 * its vendor's evaluation builds it (evaluation/src/core/loaders.py: per-speaker sender ids,
 * captions inlined, timestamps 30 s apart within the session), one message per add as the vendor's
 * HTTP adapter sends them, flushed after the last add, and searched as the vendor's local-API config
 * searches it (agentic retrieval, top_k 10, episodic memories of the group); the episodes it returns
 * are the evidence, each `<subject>: <episode>` as the vendor's in-process adapter shows them.
 */
import { z } from 'zod';
import { serviceSettingsShape, type ServiceSettings } from '../memory-service/config.js';
import { serviceSystem } from '../memory-service/plugin.js';
import { EverMemosService } from './client.js';
import { figureField, points } from '../../benchmarks/paper-figures.js';
import { paperRow } from '../../benchmarks/paper-rows.js';
import { personaMemStanding } from '../../benchmarks/paper-system-figures.js';
import { readProtocol } from '../protocol-file.js';

/** LongMemEval-S with gpt-4.1-mini: the paper gives EverMemOS's figure as the strongest other of RAW-RAG's Qwen3-retriever row. */
function longMemEvalFigures(): { paper: string; paperValue: number } {
  const qwen3 = figureField(paperRow('longmemeval', 'gpt-4.1-mini', 'qwen3'), 'rows (longmemeval, gpt-4.1-mini, qwen3)');
  const openai = figureField(paperRow('longmemeval', 'gpt-4.1-mini', 'openai'), 'rows (longmemeval, gpt-4.1-mini, openai)');
  const own = figureField(qwen3.strongestOther, 'rows (longmemeval, gpt-4.1-mini, qwen3).strongestOther');
  return {
    paper: `${points(own.accuracy)} (RAW-RAG ${points(qwen3.accuracy)} with the Qwen3 retriever, ${points(openai.accuracy)} with openai)`,
    paperValue: own.accuracy,
  };
}

const KEY_ENV = 'EVERMEMOS_API_KEY';

export const EverMemosSchema = z
  .object({
    ...serviceSettingsShape({ keyEnv: KEY_ENV, batch: 1, top_k: 10, owners: 'per-episode' }),
    // SearchMemoriesRequest.top_k: -1 or 1-100.
    top_k: z.number().int().positive().max(100).default(10).describe('memories a search returns (EverMemOS answers at most 100)'),
    method: z
      .enum(['keyword', 'vector', 'hybrid', 'agentic'])
      .default('agentic')
      .describe("search method (the vendor's local-API config: agentic, LLM-guided multi-round; the server's own default is hybrid)"),
    memory_types: z
      .array(z.enum(['episodic_memory', 'profile', 'raw_message', 'agent_memory']))
      .min(1)
      .default(['episodic_memory'])
      .describe('memory types a search asks for (only episodes are read as evidence), e.g. -S memory_types=[episodic_memory]'),
    step: z.number().min(0).default(30).describe("seconds between a session's messages (the vendor loader's default interval)"),
    fit: z
      .number()
      .gt(0)
      .max(1)
      .default(0.9)
      .describe("share of the gap to the next session a session's messages may span (the loader squeezes its 30 s steps into 90 %)"),
  })
  .strict();
export type EverMemosConfig = z.infer<typeof EverMemosSchema> & ServiceSettings;

const NO_COVERAGE =
  'EverMemOS v1 episodes name no source message (SearchEpisodeItem / EpisodeItem carry id, timestamp, participants, subject, episode and a parent MemCell id that no v1 route returns), so a memory cannot be mapped back to its turns';

export const evermemos = serviceSystem<EverMemosConfig>({
  name: 'evermemos',
  description: 'a running EverMemOS (EverCore) server (REST API v1): each conversation one group stream, flushed, searched agentically',
  about: {
    label: 'EverMemOS',
    kind: 'service',
    // evaluation/src/core/loaders.py inlines a caption only for a turn with img_url.
    captions: 'with-image',
    start: [
      'git clone https://github.com/EverMind-AI/EverMemOS && cd EverMemOS/methods/EverCore',
      'cp env.template .env   (LLM_BASE_URL and key; VECTORIZE_BASE_URL (Qwen3-Embedding-4B) and RERANK_BASE_URL (Qwen3-Reranker-4B), OpenAI-compatible)',
      'docker compose up -d   (MongoDB, Elasticsearch, Milvus with etcd and MinIO, Redis)',
      'uv sync && uv run python src/run.py   (the API on :1995)',
      'rawrag run locomo --system evermemos -S url=http://localhost:1995 --reader gpt-4o-mini',
    ],
    protocol: readProtocol(import.meta.url),
  },
  schema: EverMemosSchema as unknown as z.ZodType<EverMemosConfig>,
  // GroupAddRequest.messages: 1-500 per call.
  refuse: (cfg) => (typeof cfg.batch === 'number' && cfg.batch > 500 ? '-S batch: EverMemOS takes at most 500 messages per add' : null),
  noCoverage: () => NO_COVERAGE,
  checked: {
    kind: 'stand-in',
    why: 'EverMemOS needs Python 3.12 and MongoDB, Elasticsearch and Milvus: only the loopback EverMemOS server (tests/helpers/fake-evermemos.ts) ran',
  },
  install: {
    python: '>=3.12,<3.13',
    library: { name: 'EverMemOS (EverCore)', version: 'e37205f5' },
    unavailable:
      'not on the package index; its pyproject requires Python >=3.12,<3.13 (this machine: 3.11; the Debian 13 root tried on 2026-12-07 has 3.13, and no 3.12 is obtainable here), and its service needs MongoDB, Elasticsearch and Milvus (none obtainable offline here). Not tried beyond that; not run on its real library',
  },
  connect: (cfg, key, transport) =>
    new EverMemosService(cfg.url!, key, transport, {
      method: cfg.method,
      memoryTypes: cfg.memory_types,
      stepSeconds: cfg.step,
      fitToGap: cfg.fit,
    }),
  // The paper's own EverMemOS figures: LongMemEval (the Qwen3-retriever line, read by gpt-4.1-mini) and PersonaMem-v2 (no reader named).
  paperRows: [
    {
      kind: 'leaderboard',
      benchmark: 'longmemeval',
      reader: 'gpt-4.1-mini',
      title: "EverMemOS on LongMemEval-S, read by gpt-4.1-mini (the paper's figure beside RAW-RAG's Qwen3-retriever row)",
      ...longMemEvalFigures(),
      flags: '-S url=URL',
      needs: 'a running EverMemOS server (-S url=URL)',
    },
    {
      kind: 'leaderboard',
      benchmark: 'personamem',
      reader: 'gpt-4o-mini',
      title: 'EverMemOS on PersonaMem-v2 (multiple-choice accuracy; the paper names no reader)',
      ...personaMemStanding('EverMemOS', true),
      flags: '-S url=URL',
      needs: 'a running EverMemOS server (-S url=URL)',
    },
  ],
});
