/**
 * Ablation of a source's own config section (`memory.*`: recall weights, injection budget,
 * de-duplication threshold): each variant is a plain run of the same source with a different
 * config, written as its own run directory inside the ablation folder, the reference first.
 * Nothing is shared in memory between variants; what is expensive at ingest is shared through the
 * response cache, because the ingest requests (e.g. memory extraction) do not depend on the swept
 * values: the reference pays them, every later variant gets them back from the cache (0 sent).
 */
import { join, resolve } from 'node:path';
import type { RunConfig } from '../config/schema.js';
import type { EvidenceSource } from '../core/evidence-source.js';
import { planStages } from '../pipeline/stages.js';
import { loadRunInputs, runIdFor } from '../pipeline/plan.js';
import { executeRun } from '../pipeline/run.js';
import { createEvidenceSource } from '../systems/registry.js';
import type { ProviderSession } from '../providers/session.js';
import { RunDir } from '../run-files/run-dir.js';
import type { AblationHooks, AblationOutcome, AblationRequest, VariantOutcome } from './types.js';
import type { Variant } from './variants.js';

/** The system name of a variant's run: the source's own for the reference, `<system> <variant>` otherwise. */
export function configVariantSystem(system: string, v: Variant): string {
  return v.isDefault ? system : `${system} ${v.name}`;
}

export async function runConfigVariants(req: AblationRequest, hooks: AblationHooks, system: string): Promise<AblationOutcome> {
  const t0 = performance.now();
  const dir = resolve(req.out);
  const { benchmark, questions } = await loadRunInputs(req.base);
  const total = questions.length * req.variants.length;
  const outcomes: VariantOutcome[] = [];
  let before = 0;
  hooks.progress?.(0, total);
  // The reference runs first: it is the one that pays the shared ingest requests.
  const ordered = [...req.variants.filter((v) => v.isDefault), ...req.variants.filter((v) => !v.isDefault)];
  for (const v of ordered) {
    if (hooks.signal?.aborted || req.transport?.costCap?.reached) break;
    hooks.log(`variant ${v.name}: ${join(dir, v.name)}`);
    const run = await executeRun(
      {
        cfg: v.cfg,
        out: join(dir, v.name),
        retryErrors: req.retryErrors,
        transport: req.transport,
        name: req.name,
        compose: {
          source: async (cfg: RunConfig, session: ProviderSession, opts: { runDir: string }) =>
            renamed(await createEvidenceSource(cfg, session, opts), (s) => configVariantSystem(s, v)),
          stages: planStages,
          runId: runIdFor(v.cfg),
          // Same setting for every variant, so `rawrag stats` compares them with each other.
          setting: (data: string) => `${data}/${req.base.reader.model ?? 'no-reader'}`,
        },
      },
      {
        log: hooks.log,
        signal: hooks.signal,
        progress: (done) => hooks.progress?.(before + done, total),
      },
    );
    before += questions.length;
    const byId = new Map(new RunDir(run.dir).readItems().map((i) => [i.id, i]));
    outcomes.push({
      variant: v,
      adds: { indexBuilds: 0, windows: 0, windowTokens: 0, searches: 0, rerankCalls: 0, newEvidenceSets: 0, newEvidenceTokens: 0 },
      dir: run.dir,
      manifest: run.manifest,
      summary: run.summary,
      items: questions.map((q) => byId.get(q.id)).filter((i) => i !== undefined),
    });
  }
  // The table lists the variants in the order they were asked for.
  outcomes.sort((a, b) => req.variants.indexOf(a.variant) - req.variants.indexOf(b.variant));
  return {
    dir,
    benchmark: benchmark.name,
    retriever: req.base.retrieval.retriever,
    system,
    name: req.name ?? null,
    plainRuns: true,
    retrievalReport: {},
    variants: outcomes,
    work: {
      windowSizes: 0,
      indexBuilds: 0,
      searches: 0,
      rerankCalls: 0,
      stageRuns: outcomes.length * questions.length,
      reused: 0,
      questions: questions.length,
    },
    wallMs: performance.now() - t0,
  };
}

/** The same source under another system name (its methods keep their `this`). */
function renamed(source: EvidenceSource, name: (system: string) => string): EvidenceSource {
  return Object.assign(Object.create(source) as EvidenceSource, { system: name(source.system) });
}
