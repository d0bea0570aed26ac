/**
 * A memory service as a plug-in folder: `src/systems/<name>/index.ts` gives a `ServicePlugin` (its
 * options as a zod schema, its vendor protocol, how to start it) and `client.ts` the adapter (a
 * `MemoryService`: its paths, body and reply shapes, readiness); `serviceSystem` makes the system
 * descriptor from the shared parts (ingest, resume, readiness, search, purge, export, dry run,
 * summary), so a new service writes no wiring. Options are `-S key=value`; keys come from the
 * environment variable `keyEnv` names and never from a flag that lands in a manifest.
 */
import type { z } from 'zod';
import type { RunConfig } from '../../config/schema.js';
import type { SystemAbout, SystemDescriptor, SystemOption, SystemPaperRow } from '../../core/system.js';
import type { ModelEntry } from '../../providers/models.js';
import { Secrets, keyFrom } from '../../providers/secrets.js';
import type { ProviderSession } from '../../providers/session.js';
import { defaultTransport } from '../../providers/transport.js';
import { InputError } from '../../util/errors.js';
import type { ServiceSettings } from './config.js';
import { estimateService } from './estimate.js';
import type { ServiceTransport } from './http.js';
import type { MemoryService } from './service.js';
import { serviceSource } from './source.js';
import { serviceStore } from './store.js';
import { serviceSummaryLines } from './summary.js';

export interface ServicePlugin<C extends ServiceSettings> {
  /** The `--system` value. */
  name: string;
  /** Its config section (`-S` sets keys in it); default: the name. */
  section?: string;
  description: string;
  /** Label, kind (`service` or `sidecar`), environment, start commands, vendor protocol. */
  about: SystemAbout & { label: string };
  /** `{...serviceSettingsShape(defaults), own keys}`, `.strict()`, every key `.describe()`d. */
  schema: z.ZodType<C>;
  /** The adapter for these settings; nothing is sent until the first call. */
  connect(cfg: C, key: string | undefined, transport: ServiceTransport): MemoryService;
  /** Why these settings cannot run (a key the API needs, a URL of the wrong kind), or null. */
  refuse?(cfg: C, key: string | undefined): string | null;
  /** The service cannot map a memory back to the turns it came from: why (coverage is then absent, not 0 %). */
  noCoverage?(cfg: C): string | undefined;
  /** The service holds one owner at a time (its search takes no owner): episodes run one after another, each cleared when answered. */
  oneEpisodeAtATime?(cfg: C): boolean;
  /** Its name in manifests and tables when the settings choose it (a generic protocol's `name`); default: `about.label`. */
  labelOf?(cfg: C): string;
  /**
   * Settings whose defaults depend on other settings (MemU: the batch and owners follow `api` and
   * `protocol`), filled in after validation; every use of the settings (run, dry run, store) sees the result.
   */
  resolve?(cfg: C): C;
  /** Older flags kept as documented aliases of `-S` options. */
  aliases?: readonly SystemOption[];
  paperRows?: readonly SystemPaperRow[];
}

/** The system descriptor of a service plug-in. */
export function serviceSystem<C extends ServiceSettings>(p: ServicePlugin<C>): SystemDescriptor<ProviderSession, ModelEntry> {
  const section = p.section ?? p.name;
  const parsed = (cfg: RunConfig): C => (cfg[section] as C | undefined) ?? p.schema.parse({});
  const settingsOf = (cfg: RunConfig): C => (p.resolve ? p.resolve(parsed(cfg)) : parsed(cfg));

  /** The adapter a config names; the key is read from the environment (never from a file). */
  const connect = (cfg: RunConfig, env: NodeJS.ProcessEnv, transport = defaultTransport(env), secrets = new Secrets()) => {
    const settings = settingsOf(cfg);
    if (!settings.url) throw new InputError(`--system ${p.name} needs the service: give -S url=URL`, { place: '-S url' });
    const key = secrets.add(keyFrom(env, settings.keyEnv));
    const refused = p.refuse?.(settings, key);
    if (refused) throw new InputError(refused, { place: `--system ${p.name}` });
    const service = p.connect(settings, key, {
      timeoutMs: transport.timeoutMs,
      retry: transport.retry,
      concurrency: settings.concurrency,
      secrets,
    });
    return { service, settings };
  };
  const store = serviceStore(p.name, (cfg) => connect(cfg, process.env));

  return {
    name: p.name,
    description: p.description,
    about: {
      ...p.about,
      env: [{ name: schemaKeyEnv(p), description: `${p.about.label}'s key, when the service needs one` }, ...(p.about.env ?? [])],
    },
    config: { key: section, schema: p.schema },
    ...(p.aliases ? { options: p.aliases } : {}),
    ...(p.paperRows ? { paperRows: p.paperRows } : {}),
    async create(cfg, session, opts) {
      const { service, settings } = connect(cfg, session.transport.env, session.transport, session.secrets);
      return serviceSource(service, settings, {
        runDir: opts.runDir,
        noCoverage: p.noCoverage?.(settings),
        oneEpisodeAtATime: p.oneEpisodeAtATime?.(settings) ?? false,
        captions: p.about.captions ?? 'all',
      });
    },
    estimate: (input) => {
      const settings = settingsOf(input.cfg);
      return estimateService(p.labelOf?.(settings) ?? p.about.label, settings, input, p.about.captions ?? 'all');
    },
    summaryLines: serviceSummaryLines,
    store,
    exportStore: (runDir) => store.exportStore(runDir),
  };
}

/** The environment variable a plug-in reads its key from by default. */
function schemaKeyEnv<C extends ServiceSettings>(p: ServicePlugin<C>): string {
  return p.schema.parse({}).keyEnv;
}
