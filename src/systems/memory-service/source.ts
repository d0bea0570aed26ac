/**
 * A memory service as an evidence source (src/core/evidence-source.ts), shared by every service
 * plug-in. Ingest: each owner of the episode (one, or one per speaker) gets its history added
 * call by call, resumably (ingest.ts), then waits until the service says it is searchable. Query:
 * the question verbatim, searched in every owner of the episode; the memories returned, labelled by
 * whose store they are and dated, are the evidence block the benchmark's own reader prompt shows.
 * The turns behind them (rawrag's own record of the adds, else the service's metadata) give coverage.
 */
import type { EpisodeEvidence, EvidenceSource, SourceContext } from '../../core/evidence-source.js';
import type { CaptionPolicy } from '../../core/system.js';
import type { IngestedEpisode } from '../../core/ingested-episode.js';
import { DecisionWriter } from './decisions.js';
import { IngestLog } from './ingest-log.js';
import { ingestOwner, type IngestFigures } from './ingest.js';
import { planEpisode, runTag, type EpisodePlan } from './plan.js';
import type { MemoryService, ServiceProbe } from './service.js';
import type { ServiceSettings } from './config.js';
import { evidenceOf, quantiles, SearchFigures } from './search.js';
import { purgeOwner } from './purge.js';
import type { StartedService } from './launcher.js';

export { memoriesBlock, memoryHeader } from './search.js';

export interface ServiceSourceOptions {
  runDir: string;
  /** The service cannot say which turns a memory came from: coverage is absent, for this reason. */
  noCoverage?: string;
  /**
   * The service holds one owner at a time (its search takes no owner): episodes are ingested,
   * answered and cleared one after another.
   */
  oneEpisodeAtATime?: boolean;
  /** Its search replies carry its own agent's answer, which takes the reader's place (capabilities `answersItself`). */
  answersItself?: { model: string } | null;
  /** Which image captions the service is fed (its vendor's loader): default all. */
  captions?: CaptionPolicy;
  /** The system's own library, started for this command (launcher.ts): named in the source and the manifest. */
  started?: StartedService;
}

export function serviceSource(service: MemoryService, settings: ServiceSettings, opts: ServiceSourceOptions): EvidenceSource {
  const runId = runTag(opts.runDir);
  let log: IngestLog | null = null;
  let decisions: DecisionWriter | null = null;
  // Opened at the first episode: the run directory exists by then, and a dry run never gets here.
  const logOf = (): IngestLog => (log ??= new IngestLog(opts.runDir));
  const decisionsOf = (): DecisionWriter => (decisions ??= new DecisionWriter(opts.runDir, logOf()));
  const figures: IngestFigures = { adds_sent: 0, adds_skipped: 0, adds_recovered: 0, messages_sent: 0 };
  const searches = new SearchFigures();
  const readyMs: number[] = [];
  const planNotes = new Set<string>();
  const notes = startingNotes(opts);
  const lib = opts.started?.library;
  const probe = probeOnce(service, logOf);
  const building = new Map<string, Promise<Record<string, number>>>();

  const ingest = async (
    ep: IngestedEpisode,
    plan: EpisodePlan,
    progress?: (done: number, total: number) => void,
  ): Promise<Record<string, number>> => {
    const p = await probe();
    for (const n of p.notes ?? []) if (!notes.includes(n)) notes.push(n);
    if (opts.oneEpisodeAtATime) await clearOthers(plan);
    const before = { ...figures };
    const t0 = performance.now();
    // Adds acknowledged over the episode's adds (every owner's), for the run's ingest progress.
    const adds = plan.owners.reduce((n, o) => n + o.calls.length, 0);
    let acknowledged = 0;
    const added = (n: number) => progress?.((acknowledged += n), adds);
    const done = await Promise.all(
      plan.owners.map((o) =>
        ingestOwner(o, {
          service,
          log: logOf(),
          decisions: decisionsOf(),
          runDir: opts.runDir,
          episode: ep.episode.id,
          scope: ep.visibleTurns,
          readyTimeoutMs: settings.readyTimeout * 1000,
          figures,
          added,
        }),
      ),
    );
    const ready = done.filter((d) => d !== null);
    if (ready.length) readyMs.push(Math.max(...ready.map((d) => d.readyMs)));
    return {
      ms: Math.round(performance.now() - t0),
      adds: figures.adds_sent - before.adds_sent,
      adds_recovered: figures.adds_recovered - before.adds_recovered,
      messages: figures.messages_sent - before.messages_sent,
      ...(ready.length ? { ready_ms: Math.round(Math.max(...ready.map((d) => d.readyMs))) } : {}),
    };
  };

  /** A service that holds one owner at a time: whatever another episode left there (a killed run) goes first. */
  const clearOthers = async (plan: EpisodePlan): Promise<void> => {
    const mine = new Set(plan.owners.map((o) => o.owner));
    for (const s of logOf().liveOwners())
      if (!mine.has(s.owner)) await purgeOwner(service, logOf(), s.owner, settings.deleteTimeout * 1000, opts.runDir);
  };

  return {
    system: service.system,
    // A started library's port changes from command to command: its name and version say which service it is.
    name: lib ? `${service.system}@${lib.name}==${lib.version}` : `${service.system}@${service.url}`,
    ...(lib ? { library: { ...lib, url: opts.started!.url, state: opts.started!.state } } : {}),
    capabilities: {
      remote: true,
      llmAtIngest: true,
      questionRole: 'chat',
      ranksWindows: false,
      cheapDeepRanking: false,
      ...(opts.oneEpisodeAtATime ? { episodesAtOnce: 1 } : {}),
      ...(opts.answersItself ? { answersItself: opts.answersItself } : {}),
    },
    notes,
    async open(ep: IngestedEpisode, ctx: SourceContext): Promise<EpisodeEvidence> {
      const plan = planEpisode(ep, runId, settings, opts.captions);
      if (plan.note && !planNotes.has(plan.note)) {
        planNotes.add(plan.note);
        notes.push(plan.note);
      }
      const key = plan.owners.map((o) => o.owner).join(' ');
      let p = building.get(key);
      if (!p) {
        p = ingest(ep, plan, ctx.ingestProgress);
        building.set(key, p);
        p.catch(() => building.delete(key));
      }
      const ingestFigures = await p;
      return {
        ingest: ingestFigures,
        evidenceFor: (q, item) => evidenceOf(q, item, { service, settings, ep, plan, log: logOf(), searches, noCoverage: opts.noCoverage }),
        ...(opts.oneEpisodeAtATime
          ? {
              release: async () => {
                building.delete(key);
                for (const o of plan.owners) await purgeOwner(service, logOf(), o.owner, settings.deleteTimeout * 1000, opts.runDir);
              },
            }
          : {}),
      };
    },
    report: () => serviceReport({ service, settings, opts, log: logOf(), figures, searches, readyMs }),
    async close() {
      await service.close?.();
    },
  };
}

/** The source's notes before any episode: why coverage is absent, and which library was started for this command. */
function startingNotes(opts: ServiceSourceOptions): string[] {
  const notes: string[] = opts.noCoverage ? [`coverage: ${opts.noCoverage}; coverage is absent for this system, not 0 %`] : [];
  const lib = opts.started?.library;
  if (lib)
    notes.push(
      `started for you: ${lib.name} ${lib.version} from the ${lib.source}, Python ${lib.python}, ${lib.script} on ${opts.started!.url}${opts.started!.shared ? ' (already running for another command)' : ''}`,
      ...lib.notes,
    );
  return notes;
}

/**
 * The service's probe, asked once per process and recorded in the ingest log: the audit and later
 * summaries read what the service said. A service without a probe answers `{}` and logs nothing.
 */
function probeOnce(service: MemoryService, logOf: () => IngestLog): () => Promise<ServiceProbe> {
  let probed: Promise<ServiceProbe> | null = null;
  return () =>
    (probed ??= (service.probe?.() ?? Promise.resolve({} as ServiceProbe)).then((p) => {
      if (service.probe)
        logOf().append({
          type: 'probe',
          version: p.version ?? null,
          add_only: p.addOnly ?? null,
          notes: p.notes ?? [],
          at: new Date().toISOString(),
        });
      return p;
    }));
}

/** What a service source adds to the run's summary: the service, what it acknowledged, this run's figures and timings. */
function serviceReport(p: {
  service: MemoryService;
  settings: ServiceSettings;
  opts: ServiceSourceOptions;
  log: IngestLog;
  figures: IngestFigures;
  searches: SearchFigures;
  readyMs: number[];
}): Record<string, unknown> {
  const { service, settings, opts, figures, searches, readyMs } = p;
  const logOf = () => p.log;
  // A resumed run that opened no episode still reports what the service acknowledged.
  const totals = logOf().totals();
  const owners = logOf().liveOwners();
  const ready = owners.map((s) => s.readyMs).filter((v): v is number => v !== null);
  return {
    service: {
      system: service.system,
      api: service.api,
      url: service.url,
      owners: settings.owners,
      top_k: settings.top_k,
      batch: settings.batch,
      ingest_log: logOf().path,
      acknowledged: totals,
      this_run: { ...figures, searches: searches.count },
      timing: { add_to_ready_ms: quantiles(ready), this_run_ready_ms: quantiles(readyMs), search_ms: searches.latency() },
      empty_searches: searches.empty,
      ...(logOf().probe() ? { probe: logOf().probe() } : {}),
      ...(opts.noCoverage ? { coverage: null, no_coverage: opts.noCoverage } : {}),
      requests: service.report(),
    },
  };
}
