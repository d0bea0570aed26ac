/**
 * The systems under test, by name: the one table from a `--system` value to its descriptor
 * (src/core/system.ts), as src/benchmarks/registry.ts is for benchmarks. Help texts, the run config's
 * sections and the list of flags are generated from it. Public, so a test can register a system of
 * its own (`registerSystem`) and run it through every command.
 */
import { readRunManifest } from '../run-files/record.js';
import { z } from 'zod';
import { BaseRunConfigSchema, type RunConfig } from '../config/schema.js';
import type { EvidenceSource } from '../core/evidence-source.js';
import type { MemoryStoreAccess, SystemDescriptor, SweepKnob } from '../core/system.js';
import type { ModelEntry } from '../providers/models.js';
import type { ProviderSession } from '../providers/session.js';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError, UsageError } from '../util/errors.js';
import { agenticMemory } from './agentic-memory/index.js';
import { rawRag } from './raw-rag/index.js';
import { rawRagFacts } from './raw-rag-facts/index.js';
import { rawRagGraph } from './raw-rag-graph/index.js';
import { rawRagSummaries } from './raw-rag-summaries/index.js';
import { storeOracle } from './store-oracle/index.js';
import { mem0 } from './mem0/index.js';
import { http } from './http/index.js';
import { memmachine } from './memmachine/index.js';
import { memos } from './memos/index.js';
import { evermemos } from './evermemos/index.js';
import { memu } from './memu/index.js';
// The paper's library-only opponents, each behind its sidecar (integrations/sidecars/).
import { simplemem } from './simplemem/index.js';
import { aMem } from './a-mem/index.js';
import { recmem } from './recmem/index.js';
import { memoryos } from './memoryos/index.js';
import { nemori } from './nemori/index.js';
import { emem } from './emem/index.js';
// Beyond the paper's twelve (issue 45).
import { zep } from './zep/index.js';
import { supermemory } from './supermemory/index.js';
import { cognee } from './cognee/index.js';
import { langmem } from './langmem/index.js';
import { letta } from './letta/index.js';

export type System = SystemDescriptor<ProviderSession, ModelEntry>;

/** The system a run config without `system` runs. */
export const DEFAULT_SYSTEM = rawRag.name;

const SYSTEMS = new Map<string, System>();

export function registerSystem(system: System): void {
  if (SYSTEMS.has(system.name)) throw new Error(`system '${system.name}' is registered twice`);
  const section = system.config?.key;
  if (section !== undefined) {
    if (section in BaseRunConfigSchema.shape) throw new Error(`system '${system.name}': config key '${section}' is a shared key`);
    for (const other of SYSTEMS.values())
      if (other.config?.key === section) throw new Error(`systems '${other.name}' and '${system.name}' both claim config key '${section}'`);
  }
  SYSTEMS.set(system.name, system);
}

/** Removes a system (tests that registered one of their own). */
export function unregisterSystem(name: string): void {
  SYSTEMS.delete(name);
}

for (const s of [rawRag, agenticMemory, rawRagFacts, rawRagSummaries, rawRagGraph, storeOracle, mem0, http]) registerSystem(s);
for (const s of [memmachine, memos]) registerSystem(s);
registerSystem(evermemos);
registerSystem(memu);
for (const s of [simplemem, aMem, recmem, memoryos, nemori, emem]) registerSystem(s);
for (const s of [zep, supermemory]) registerSystem(s);
registerSystem(cognee);
registerSystem(langmem);
registerSystem(letta);

export function listSystems(): System[] {
  return [...SYSTEMS.values()];
}

export function getSystem(name: string): System {
  const s = SYSTEMS.get(name);
  if (!s) throw new InputError(`unknown system '${name}' (known: ${[...SYSTEMS.keys()].join(', ')})`, { place: '--system' });
  return s;
}

/** The system a config runs (its default when the config names none). */
export function systemOf(cfg: Pick<RunConfig, 'system'>): System {
  return getSystem(cfg.system ?? DEFAULT_SYSTEM);
}

/** Every system's sweep knobs (`rawrag ablate -S key=list` with the system's own reading of the list). */
export function sweepKnobs(): Array<{ system: string; knob: SweepKnob }> {
  return listSystems().flatMap((s) => (s.sweep ?? []).map((knob) => ({ system: s.name, knob })));
}

/**
 * The run config: the shared part plus every registered system's section (optional: absent = the
 * system's defaults, so a config that does not use a section keeps its hash), `system` checked
 * against the registry and defaulted. Built on each call, so a system registered later counts.
 */
function composeRunConfigSchema(): z.ZodType<RunConfig> {
  const sections: Record<string, z.ZodType> = {};
  for (const s of SYSTEMS.values()) if (s.config) sections[s.config.key] = s.config.schema.optional();
  return BaseRunConfigSchema.extend(sections)
    .superRefine((cfg, ctx) => {
      const name = (cfg.system as string | undefined) ?? DEFAULT_SYSTEM;
      if (!SYSTEMS.has(name))
        ctx.addIssue({ code: 'custom', path: ['system'], message: `unknown system '${name}' (known: ${[...SYSTEMS.keys()].join(', ')})` });
    })
    .transform((cfg) => ({ ...cfg, system: cfg.system ?? DEFAULT_SYSTEM })) as unknown as z.ZodType<RunConfig>;
}

/** `RunConfigSchema.parse(...)` / `.safeParse(...)` over the systems registered now. */
export const RunConfigSchema = {
  parse: (input: unknown): RunConfig => composeRunConfigSchema().parse(input),
  safeParse: (input: unknown) => composeRunConfigSchema().safeParse(input),
} as unknown as z.ZodType<RunConfig>;

/** The evidence source of the config's system; nothing is written before its first `open`. */
export async function createEvidenceSource(cfg: RunConfig, session: ProviderSession, opts: { runDir: string }): Promise<EvidenceSource> {
  return systemOf(cfg).create(cfg, session, { ...opts, systemOfRun: (dir) => systemOfRun(dir).system as SystemDescriptor });
}

/** A run directory's system, from its manifest. */
export function systemOfRun(dir: string): { runDir: string; system: System } {
  const runDir = resolve(dir);
  // Through the run record (src/run-files/record.ts): validated, an older version upgraded.
  const cfg = (readRunManifest(runDir).manifest as { config?: { system?: string } }).config;
  return { runDir, system: getSystem(cfg?.system ?? DEFAULT_SYSTEM) };
}

/**
 * A run directory's memory store and the system that keeps it: the system its manifest names, or
 * (a folder without a manifest) the one system whose store is there. The error names what is missing.
 */
export function storeOfRun(dir: string | undefined): { runDir: string; system: System; store: MemoryStoreAccess } {
  if (!dir) throw new UsageError('give the run directory (rawrag memory show DIR)');
  const runDir = resolve(dir);
  const manifest = join(runDir, 'manifest.json');
  if (existsSync(manifest)) {
    const cfg = (readRunManifest(runDir).manifest as { config?: { system?: string } }).config;
    const system = getSystem(cfg?.system ?? DEFAULT_SYSTEM);
    if (!system.store) throw new InputError(`system '${system.name}' keeps no memory store`, { file: manifest });
    return { runDir, system, store: system.store };
  }
  const found = listSystems().filter((s) => s.store?.exists(runDir));
  if (found.length !== 1)
    throw new InputError(
      found.length === 0 ? 'no memory store here (not a run directory of a system that keeps one)' : 'more than one system store here',
      { file: runDir },
    );
  return { runDir, system: found[0]!, store: found[0]!.store! };
}
