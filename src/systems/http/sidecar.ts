/**
 * A Python library behind one of rawrag's sidecars (integrations/sidecars/<system>.py, speaking the
 * memory protocol of protocol.ts) as a named system: its label in manifests, stats and reports, how
 * to install and start it, its authors' LoCoMo protocol and the sidecar's deviations. The client is
 * the protocol's own (HttpMemoryService); each system folder only declares its data.
 */
import { z } from 'zod';
import type { CaptionPolicy, CheckedAgainst, SystemDescriptor, VendorProtocol } from '../../core/system.js';
import type { InstallSpec } from '../../core/install-spec.js';
import type { ModelEntry } from '../../providers/models.js';
import type { ProviderSession } from '../../providers/session.js';
import { serviceSettingsShape, type ServiceSettings } from '../memory-service/config.js';
import { serviceSystem } from '../memory-service/plugin.js';
import { HttpMemoryService } from './client.js';

export const SIDECAR_KEY_ENV = 'RAWRAG_SIDECAR_KEY';

export interface SidecarPlugin {
  /** The `--system` value; its config section has the same name. */
  name: string;
  /** As the paper names it: manifests, stats and reports say this. */
  label: string;
  description: string;
  /** The sidecar script, e.g. `integrations/sidecars/simplemem.py`. */
  script: string;
  /** Commands before the sidecar starts: the library's install at the pinned commit, its stores. */
  setup: readonly string[];
  /** The sidecar's own flags worth showing in its start command (after --port). */
  flags?: string;
  /** What the library reads from the environment (its LLM and embedding endpoints). */
  env: ReadonlyArray<{ name: string; description: string }>;
  protocol: VendorProtocol;
  /** Memories a search returns (the authors' depth). */
  top_k: number;
  /** The library cannot say which turns a memory came from: why (coverage is then absent). */
  noCoverage?: string;
  /** The library keeps one process-wide store: episodes are ingested, answered and cleared one after another. */
  oneEpisodeAtATime?: boolean;
  /** Its library's install (`rawrag systems install NAME`): then a run without `-S url=` starts this sidecar for you. */
  install?: InstallSpec;
  /** What it was checked against: its real library (version, date) or a stand-in only, and why. */
  checked?: CheckedAgainst;
  /** The plug-in's own `-S` keys (each `.describe()`d), beside the shared service settings. */
  options?: z.ZodRawShape;
  /** The sidecar flags those keys stand for (a sidecar started for you gets them; one you start yourself needs them too). */
  flagsOf?(cfg: SidecarConfig): string[];
  /** Its name in manifests and tables when the keys choose another library; default: `label`. */
  labelOf?(cfg: SidecarConfig): string;
  /** Which image captions its authors' benchmark loader feeds the library (default all): see SystemAbout.captions. */
  captions?: CaptionPolicy;
}

export type SidecarConfig = ServiceSettings & Record<string, unknown>;

export function sidecarSystem(p: SidecarPlugin): SystemDescriptor<ProviderSession, ModelEntry> {
  const schema = z
    .object({
      ...serviceSettingsShape({ keyEnv: SIDECAR_KEY_ENV, batch: 'session', top_k: p.top_k, owners: 'per-episode' }),
      // The sidecar feeds an owner's whole history to the library at /ready (LLM work per turn): hours, not minutes.
      readyTimeout: z
        .number()
        .positive()
        .default(14_400)
        .describe("seconds to wait after an owner's last add while the sidecar feeds the history to the library (LLM work per turn)"),
      ...p.options,
    })
    .strict();
  return serviceSystem<SidecarConfig>({
    name: p.name,
    description: p.description,
    about: {
      label: p.label,
      kind: 'sidecar',
      // No --state: the sidecar keeps its state under rawrag's cache (<cache>/sidecars/<name>), never in the current folder.
      start: [
        ...p.setup,
        `python3 ${p.script} --port 8787${p.flags ? ` ${p.flags}` : ''}   (state: <rawrag cache>/sidecars/${p.name}; --state DIR to choose)`,
      ],
      env: p.env,
      protocol: p.protocol,
      ...(p.captions ? { captions: p.captions } : {}),
    },
    schema: schema as unknown as z.ZodType<SidecarConfig>,
    connect: (cfg, key, transport) => new HttpMemoryService(cfg.url!, p.labelOf?.(cfg) ?? p.label, key, transport),
    ...(p.noCoverage ? { noCoverage: () => p.noCoverage } : {}),
    ...(p.oneEpisodeAtATime ? { oneEpisodeAtATime: () => true } : {}),
    ...(p.labelOf ? { labelOf: p.labelOf } : {}),
    ...(p.flagsOf ? { launchArgs: p.flagsOf } : {}),
    ...(p.install ? { install: { ...p.install, script: p.install.script ?? p.script } } : {}),
    ...(p.checked ? { checked: p.checked } : {}),
  });
}
