/**
 * Mem0 as Mem0's own LoCoMo evaluation runs it (`--system mem0 -S url=URL`): a running Mem0
 * service — the open-source REST server or the hosted platform — is fed each conversation through
 * its add API, one store per speaker with every message in both (mirrored roles, `Name: text`, two
 * messages per add, the session's date in metadata), and searched in both stores with the question
 * (top 30 each); both speakers' memories, labelled, are the evidence the benchmark's own reader is
 * shown. Every part is an option. Ingest is resumable and never adds twice
 * (src/systems/memory-service/), and Mem0's add events become the write-decision log.
 */
import { z } from 'zod';
import { promptFile } from '../../scoring/prompts.js';
import { serviceSettingsShape, type ServiceSettings } from '../memory-service/config.js';
import { serviceSystem } from '../memory-service/plugin.js';
import type { InstallSpec } from '../../core/install-spec.js';
import { Mem0Service } from './client.js';
import { readProtocol } from '../protocol-file.js';
import { figureEntry, figure, paperFigures, points } from '../../benchmarks/paper-figures.js';
import { coverageStanding, percentOf } from '../../benchmarks/paper-system-figures.js';

/** The paper's audit of Mem0's write decisions (figures.json `audits`), as its rows show it. */
function auditFigures(): { locomo: { paper: string; paperValue: number }; longmemeval: { paper: string; paperValue: number } } {
  const audits = paperFigures().audits;
  const [l, m] = [figureEntry(audits, 'audits', 'locomo'), figureEntry(audits, 'audits', 'longmemeval')];
  const pct = (x: number) => points(percentOf(x));
  const ops = (['NONE', 'ADD'] as const).flatMap((op) => (m.operations[op] === undefined ? [] : [`${op} ${pct(m.operations[op])} %`]));
  return {
    locomo: {
      paper: `UPDATE+DELETE ${pct(l.proposed_mutation_rate)} % of ${figure(l.decisions)} decisions (LongMemEval ${pct(m.proposed_mutation_rate)} % of ${figure(m.decisions)}); effective ${pct(l.effective_mutation_rate)} % / ${pct(m.effective_mutation_rate)} %`,
      paperValue: percentOf(l.proposed_mutation_rate),
    },
    longmemeval: {
      paper: `UPDATE+DELETE ${pct(m.proposed_mutation_rate)} % of ${figure(m.decisions)} decisions; effective ${pct(m.effective_mutation_rate)} % (${ops.join(', ')})`,
      paperValue: percentOf(m.proposed_mutation_rate),
    },
  };
}

export const MEM0_SECTION = 'mem0';

/**
 * Mem0's own library, `mem0ai` from the package index, without its [nlp] and [extras] extras (their
 * spaCy model and fastembed's BM25 model would be downloaded at first use): the REST routes of
 * Mem0's server (not in the package) are served over `mem0.Memory` by integrations/sidecars/mem0.py.
 */
export const MEM0_INSTALL: InstallSpec = {
  python: '>=3.10',
  packages: ['mem0ai==2.2.1'],
  library: { name: 'mem0ai', version: '2.2.1' },
  script: 'integrations/sidecars/mem0.py',
  notes: [
    "mem0ai is installed without [nlp] and [extras]: its v3 search scores memories semantically only (BM25 keyword search needs fastembed's Qdrant/bm25 model, entity boosts need spaCy's en_core_web_sm; both would be downloaded at first use)",
  ],
};
const KEY_ENV = 'MEM0_API_KEY';
/** configs/prompts/ file of Mem0's evaluation's custom instructions (mem0-SOURCE.md). */
export const MEM0_INSTRUCTIONS = 'mem0-custom-instructions';

export const Mem0Schema = z
  .object({
    ...serviceSettingsShape({ keyEnv: KEY_ENV, batch: 2, top_k: 30, owners: 'per-speaker' }),
    api: z
      .enum(['oss', 'platform'])
      .default('oss')
      .describe("which of Mem0's APIs the URL serves: oss (the open-source server, server/main.py) or platform (the hosted API)"),
    instructions: z
      .enum(['mem0-eval', 'none'])
      .default('mem0-eval')
      .describe(
        "extraction instructions sent with every add: mem0-eval (the custom instructions of Mem0's own LoCoMo evaluation, configs/prompts/mem0-custom-instructions.txt) or none (the service's own)",
      ),
    captions: z.boolean().default(false).describe("append image captions to a message's text (Mem0's evaluation sends the text alone)"),
  })
  .strict();
export type Mem0Config = z.infer<typeof Mem0Schema> & ServiceSettings;

export const mem0 = serviceSystem<Mem0Config>({
  name: 'mem0',
  section: MEM0_SECTION,
  description: "a running Mem0 service (open-source server or platform) through its REST API, under Mem0's own LoCoMo protocol",
  about: {
    label: 'Mem0',
    kind: 'service',
    start: [
      "started for you: 'rawrag systems install mem0' once, then a run without -S url= starts Mem0's library behind its REST routes (integrations/sidecars/mem0.py) and stops it at the end",
      'by hand: <systems dir>/mem0/venv/bin/python integrations/sidecars/mem0.py --port 8888 --state DIR, then -S url=http://127.0.0.1:8888',
      "Mem0's own server: git clone https://github.com/mem0ai/mem0 && cd mem0/server && docker compose up -d   (listens on :8888)",
      'platform: -S api=platform -S url=https://api.mem0.ai with MEM0_API_KEY set',
    ],
    protocol: readProtocol(import.meta.url),
  },
  schema: Mem0Schema as unknown as z.ZodType<Mem0Config>,
  connect: (cfg, key, transport) =>
    new Mem0Service(
      cfg.url!,
      {
        api: cfg.api,
        captions: cfg.captions,
        instructions: cfg.instructions === 'mem0-eval' ? promptFile(MEM0_INSTRUCTIONS) : null,
        waitMs: cfg.readyTimeout * 1000,
      },
      key,
      transport,
    ),
  install: MEM0_INSTALL,
  // What `npm run test:real` ran (tests/real/mem0.test.ts), against the loopback OpenAI-compatible API.
  checked: {
    kind: 'real',
    library: 'mem0ai',
    version: '2.2.1',
    date: '2026-12-07',
    how: 'npm run test:real: rawrag run locomo --system mem0 --reader gpt-4o-mini --limit 20 through its sidecar, 0 errors, then purged',
  },
  // The hosted platform is never started here.
  startable: (cfg) => cfg.api === 'oss',
  refuse: (cfg, key) => (!key && cfg.api === 'platform' ? `Mem0's platform API needs a key: set ${cfg.keyEnv}` : null),
  // The paper's motivation audit of Mem0's write decisions (its Claim and Diagnostics sections).
  paperRows: [
    {
      kind: 'write-audit',
      benchmark: 'locomo',
      reader: 'gpt-4o-mini',
      title: "Mem0's write decisions: proposed UPDATE+DELETE share (rawrag memory audit also gives effective mutations)",
      ...auditFigures().locomo,
      flags: '-S url=URL',
      needs: 'a running Mem0 server (-S url=URL)',
    },
    {
      kind: 'write-audit',
      benchmark: 'longmemeval',
      reader: 'gpt-4.1-mini',
      title: "Mem0's write decisions: proposed UPDATE+DELETE share (rawrag memory audit also gives effective mutations)",
      ...auditFigures().longmemeval,
      flags: '-S url=URL',
      needs: 'a running Mem0 server (-S url=URL)',
    },
    {
      kind: 'coverage',
      benchmark: 'memoryagentbench',
      reader: 'gpt-4o-mini',
      title: "Mem0's evidence coverage (share of questions whose retrieved memories suffice)",
      ...coverageStanding('memoryagentbench', 'Mem0'),
      flags: '-S url=URL',
      needs: 'a running Mem0 server (-S url=URL)',
    },
  ],
});
