/**
 * A memory service as a plug-in folder: `src/systems/<name>/index.ts` gives a `ServicePlugin` (its
 * options as a zod schema, its vendor protocol, how to start it) and `client.ts` the adapter (a
 * `MemoryService`: its paths, body and reply shapes, readiness); `serviceSystem` makes the system
 * descriptor from the shared parts (ingest, resume, readiness, search, purge, export, dry run,
 * summary), so a new service writes no wiring. Options are `-S key=value`; keys come from the
 * environment variable `keyEnv` names and never from a flag that lands in a manifest.
 */
import { CREDENTIALS_IN_URL, hasUrlCredentials } from '../../util/url-credentials.js';
import type { z } from 'zod';
import type { RunConfig } from '../../config/schema.js';
import type { CheckedAgainst, SystemAbout, SystemDescriptor, SystemPaperRow, SystemPreflight } from '../../core/system.js';
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
import type { InstallSpec } from '../../core/install-spec.js';
import { ensureStarted, type StartedService } from './launcher.js';
import { checkReachable } from './reachable.js';
import { libraryEndpoint } from './offline-env.js';
import { checkService } from './check.js';

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
  /** Under these settings the service's own agent answers each question (its search replies carry `answer`), with this LLM: no reader is called. */
  answersItself?(cfg: C): { model: string } | null;
  /** Its name in manifests and tables when the settings choose it (a generic protocol's `name`); default: `about.label`. */
  labelOf?(cfg: C): string;
  /**
   * Settings whose defaults depend on other settings (MemU: the batch and owners follow `api` and
   * `protocol`), filled in after validation; every use of the settings (run, dry run, store) sees the result.
   */
  resolve?(cfg: C): C;
  paperRows?: readonly SystemPaperRow[];
  /**
   * Its own library's install (`rawrag systems install NAME`); then a run without `-S url=` starts
   * it for you (install.script, or the sidecar's script).
   */
  install?: InstallSpec;
  /** Whether these settings name something rawrag may start (default: yes); a hosted API (a platform) never is. */
  startable?(cfg: C): boolean;
  /** The started script's own flags that the config's keys stand for (a sidecar plug-in's flagsOf). */
  launchArgs?(cfg: C): string[];
  /** What it was checked against: its real library (version, date) or a stand-in only, and why. */
  checked?: CheckedAgainst;
}

/** The system descriptor of a service plug-in. */
export function serviceSystem<C extends ServiceSettings>(p: ServicePlugin<C>): SystemDescriptor<ProviderSession, ModelEntry> {
  const section = p.section ?? p.name;
  const parsed = (cfg: RunConfig): C => (cfg[section] as C | undefined) ?? p.schema.parse({});
  const settingsOf = (cfg: RunConfig): C => (p.resolve ? p.resolve(parsed(cfg)) : parsed(cfg));

  /**
   * The adapter a config names; the key is read from the environment (never from a file). Without
   * `-S url=`, an installed system is started for you (launcher.ts); a given URL is checked to
   * answer at all before anything is sent (reachable.ts): a dead URL fails in seconds, not retries.
   */
  const connect = async (cfg: RunConfig, env: NodeJS.ProcessEnv, transport = defaultTransport(env), secrets = new Secrets()) => {
    const settings = settingsOf(cfg);
    const key = secrets.add(keyFrom(env, settings.keyEnv));
    const refused = p.refuse?.(settings, key);
    if (refused) throw new InputError(refused, { place: `--system ${p.name}` });
    // However the URL came (a flag, a file, a recorded manifest), a password in it is never sent on or recorded.
    if (settings.url && hasUrlCredentials(settings.url)) throw new InputError(CREDENTIALS_IN_URL, { place: '-S url' });
    let started: StartedService | null = null;
    if (!settings.url) {
      if (!p.install || !(p.startable?.(settings) ?? true))
        throw new InputError(`--system ${p.name} needs the service: give -S url=URL`, { place: '-S url' });
      const endpointCredentials = libraryEndpointCredentials(env);
      if (endpointCredentials) throw new InputError(CREDENTIALS_IN_URL, { place: endpointCredentials });
      started = await ensureStarted({
        system: p.name,
        spec: p.install,
        script: p.install.script!,
        env,
        cacheDir: transport.cacheDir,
        readerBaseUrl: transport.baseUrls.reader,
        args: p.launchArgs?.(settings) ?? [],
      });
    } else if (!transport.reachedServices?.includes(settings.url))
      // Probed here unless the pre-flight's probe, handed over in the transport, found it answering.
      await checkReachable(settings.url, { label: p.about.label, startHint: startHint(p) });
    const effective = { ...settings, url: started?.url ?? settings.url };
    const service = p.connect(effective, key, {
      timeoutMs: transport.timeoutMs,
      retry: transport.retry,
      concurrency: settings.concurrency,
      secrets,
      ...(started ? { endpoint: libraryEndpoint(env, transport.baseUrls.reader) } : {}),
    });
    return { service, settings: effective, started };
  };
  /** What connect would refuse, and a given URL that does not answer, as problems (the pre-flight's). */
  const preflight = async (cfg: RunConfig, env: NodeJS.ProcessEnv): Promise<SystemPreflight> => {
    const settings = settingsOf(cfg);
    const refused = p.refuse?.(settings, keyFrom(env, settings.keyEnv));
    if (refused) return { problems: [`--system ${p.name}: ${refused}`], reached: [] };
    if (!settings.url) {
      // A library started for you gets this endpoint: with a password it cannot work (each call a "Connection error").
      const endpointCredentials = p.install ? libraryEndpointCredentials(env) : null;
      return { problems: endpointCredentials ? [`${endpointCredentials}: ${CREDENTIALS_IN_URL}`] : [], reached: [] };
    }
    try {
      await checkReachable(settings.url, { label: p.about.label, startHint: startHint(p) });
      return { problems: [], reached: [settings.url] };
    } catch (e) {
      return { problems: [(e as Error).message], reached: [] };
    }
  };
  const store = serviceStore(p.name, (cfg) => connect(cfg, process.env));

  return {
    name: p.name,
    description: p.description,
    about: {
      ...p.about,
      env: [{ name: schemaKeyEnv(p), description: `${p.about.label}'s key, when the service needs one` }, ...(p.about.env ?? [])],
      ...(p.install ? { install: p.install } : {}),
      ...(p.checked ? { checked: p.checked } : {}),
    },
    config: { key: section, schema: p.schema },
    ...(p.paperRows ? { paperRows: p.paperRows } : {}),
    preflight,
    async create(cfg, session, opts) {
      const { service, settings, started } = await connect(cfg, session.transport.env, session.transport, session.secrets);
      return serviceSource(service, settings, {
        runDir: opts.runDir,
        ...(started ? { started } : {}),
        noCoverage: p.noCoverage?.(settings),
        oneEpisodeAtATime: p.oneEpisodeAtATime?.(settings) ?? false,
        answersItself: p.answersItself?.(settings) ?? null,
        captions: p.about.captions ?? 'all',
      });
    },
    estimate: (input) => {
      const settings = settingsOf(input.cfg);
      const label = p.labelOf?.(settings) ?? p.about.label;
      const e = estimateService(label, settings, input, p.about.captions ?? 'all');
      const self = p.answersItself?.(settings);
      if (!self) return e;
      return {
        ...e,
        answersItself: `${label}'s own agent (LLM ${self.model}) answers each question: no reader calls (its LLM calls are the service's, not in the total)`,
      };
    },
    summaryLines: serviceSummaryLines,
    async check(cfg, env, log) {
      const { service } = await connect(cfg, env);
      try {
        const steps = await checkService(service, settingsOf(cfg), log);
        return steps.length > 0 && steps.every((s) => s.ok) && steps.some((s) => s.step === 'delete');
      } finally {
        await service.close?.();
      }
    },
    store,
    exportStore: (runDir) => store.exportStore(runDir),
  };
}

/** How to start a plug-in's service, for the message of a URL that does not answer. */
export function startHint<C extends ServiceSettings>(p: Pick<ServicePlugin<C>, 'name' | 'about' | 'install'>): string {
  const own = (p.about.start ?? []).join('; then ');
  if (!p.install || p.install.unavailable) return own || `the ${p.about.label} service`;
  return `'rawrag systems install ${p.name}' and leave out -S url= (rawrag starts it for you); 'rawrag systems ${p.name}' shows the other ways`;
}

/** The environment variable a plug-in reads its key from by default. */
function schemaKeyEnv<C extends ServiceSettings>(p: ServicePlugin<C>): string {
  return p.schema.parse({}).keyEnv;
}

/** The variable naming the OpenAI-compatible endpoint a started library would get, when that URL carries a user name or password. */
function libraryEndpointCredentials(env: NodeJS.ProcessEnv): string | null {
  for (const name of ['OPENAI_BASE_URL', 'OPENAI_API_BASE']) if (env[name]) return hasUrlCredentials(env[name]!) ? name : null;
  return null;
}
