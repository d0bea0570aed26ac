/**
 * A system under test as a plug-in (src/systems/<name>/, registered in src/systems/registry.ts),
 * the way a benchmark is an adapter (src/benchmarks/<name>/). Everything that differs between
 * systems travels through this descriptor as data: its config section (its `-S` options), how it builds
 * its evidence source, what a dry run charges for it, the summary lines it adds and the knobs
 * `rawrag ablate` may sweep. No stage outside src/systems/ asks which system it runs.
 */
import type { z } from 'zod';
import type { RunConfig } from '../config/schema.js';
import type { EvidenceSource } from './evidence-source.js';
import type { Dataset, Question } from './schema.js';
import type { Benchmark } from './benchmark.js';
import type { IngestedEpisode } from './ingested-episode.js';
import type { Policy } from './policy.js';
import type { WriteDecision } from './write-decisions.js';
import type { InstallSpec } from './install-spec.js';

/**
 * A config value `rawrag ablate` may sweep for this system with its own reading of the list, e.g.
 * `-S items=3,5,10` (a key without a knob is swept with each value read as YAML).
 */
export interface SweepKnob {
  /** The `-S` key of the list (the top-level key of the system's config section), e.g. `items`. */
  key: string;
  description: string;
  /** Where each value goes in the run config, e.g. `['memory', 'items']`. */
  config: readonly string[];
  /** Parses the comma-separated list (throws an InputError naming `flag`). */
  parse(list: string, flag: string): unknown[];
  /** The variant-name part of a value, e.g. `items=3`. */
  label(value: unknown): string;
}

/**
 * What a dry run may read to estimate a system's own calls (ingest, retrieval). `Session` and
 * `Model` are the provider layer's types (src/providers), bound in src/systems/registry.ts: the
 * vocabulary here stays below the providers.
 */
export interface EstimateInput<Session, Model> {
  cfg: RunConfig;
  benchmark: Benchmark;
  dataset: Dataset;
  questions: Question[];
  /** One entry per (episode, visibility horizon) index the run would open, with its questions. */
  groups: Array<{ ep: IngestedEpisode; policy: Policy; questions: Question[] }>;
  /** A session without a cache: model lookup, prices, availability. Nothing is sent. */
  session: Session;
  /** Records a note when a model cannot run here (no key, no endpoint). */
  check(model: Model, role: 'embed' | 'rerank' | 'reader' | 'judge'): void;
}

/** One row of the dry run's cost table. */
export interface EstimateRow<Model> {
  role: 'embed' | 'rerank' | 'reader' | 'judge';
  model: Model;
  calls: number;
  input_tokens: number;
  output_tokens: number;
  search_units?: number;
}

export interface SystemEstimate<Model> {
  /** The system's own provider calls (embedding, reranking), priced by the pipeline. */
  rows: EstimateRow<Model>[];
  /** cl100k tokens of evidence the reader would be shown, per question id. */
  evidenceTokens: Map<string, number>;
  /** Paid LLM work at ingest (extraction, summaries), rendered as its own section; `cost_usd` joins the total. */
  ingest?: { cost_usd: number | null; lines: string[]; data: Record<string, unknown> };
  notes?: string[];
  /** The system answers each question itself (its capabilities' `answersItself`): no reader calls; this sentence says so. */
  answersItself?: string;
}

/**
 * A figure the paper reports for this system (`rawrag paper` lists it beside the command that
 * regenerates it, and beside rawrag's figure from a complete run of the same setting:
 * src/core/comparability.ts):
 * - `leaderboard`: the system's own row in the paper's main tables (its accuracy on a benchmark with
 *   a reader), beside rawrag's figure for a complete run of this system in that setting, paired
 *   against RAW-RAG's run of the same benchmark and reader;
 * - `add-on`: a memory-management operation on RAW-RAG's backbone, paired against RAW-RAG's run of
 *   the same benchmark, reader and retriever, with its ingest cost (LLM tokens, wall time);
 * - `write-audit`: the proposed mutation rate of the system's write-decision log (`rawrag memory audit`);
 * - `ablation`: one variant of `rawrag ablate` on this system (`sweep` its flags, `variant` the variant's name).
 */
export interface SystemPaperRow {
  kind: 'leaderboard' | 'add-on' | 'write-audit' | 'ablation' | 'coverage';
  benchmark: string;
  reader: string;
  /** What the paper measured, in a few words. */
  title: string;
  /** The paper's figure(s), as text. */
  paper: string;
  /** The paper's main figure in the unit rawrag prints beside it (leaderboard: accuracy %; add-ons: none, the paired delta is shown). */
  paperValue?: number;
  /** Flags the command needs besides `--system` and `--reader` (e.g. a service URL); add-ons also get `--retriever openai`. */
  flags?: string;
  /**
   * A service or input the run needs that rawrag cannot start itself (e.g. `a running Mem0 server: -S url=URL`):
   * `rawrag paper --run` skips the row and says so until the flag is given.
   */
  needs?: string;
  /** The system the paper measured the figure on, when it is not this one (the add-only control: Mem0's figure, this system's sweep): its runs are another system beside it. */
  paperSystem?: string;
  /** An `ablation`'s sweep flags (e.g. `-S mutations=on,off`) and the variant that holds the figure (e.g. `mutations=off`). */
  sweep?: string;
  variant?: string;
  /**
   * Figures of one column or question type of the benchmark's aggregation the paper names for this row
   * (e.g. MemoryAgentBench's `TTL` competency: RAW-RAG 47.68, this system 15.37), read with `rawrag stats`'s own computation.
   */
  breakdown?: ReadonlyArray<{ column: string; label: string; paperValue: number; referenceValue?: number }>;
}

/** What `create` is given besides the config and the provider session. */
/** A system's pre-flight: its problems (one line each) and the service URLs its probe found answering. */
export interface SystemPreflight {
  problems: string[];
  /** URLs that answered the probe: the run that follows is handed them and does not probe again. */
  reached: string[];
}

export interface CreateContext {
  runDir: string;
  /**
   * Another run directory's system, read from its manifest (the store oracle reads other systems'
   * stores). Passed in by the registry, so a system never imports the registry that lists it.
   */
  systemOfRun?(dir: string): SystemDescriptor;
}

/**
 * How the system's own authors drive it on a benchmark, and where rawrag departs from that: shown by
 * `rawrag systems` and `rawrag protocol`, recorded in each run's manifest (`system_protocol`).
 */
export interface VendorProtocol {
  /** What the vendor's own evaluation does (owners, roles, content, timestamps, batch size, search depth, waits). */
  summary: string;
  /** The upstream files it follows (`owner/repo@commit path Lx-y`). */
  sources: readonly string[];
  /** Each departure from the vendor's script, and why; every one is an option where it can be. */
  deviations: readonly string[];
}

/** How `rawrag systems` presents a system: what it is, what it needs, how to start it. */
export interface SystemAbout {
  /** Its name in manifests, tables and reports (e.g. `MemMachine`); default: the `--system` value. */
  label?: string;
  /**
   * `method`: the paper's method and its variants; `built-in`: a system implemented inside rawrag;
   * `oracle`: evidence chosen with gold knowledge; `service`: a running REST service rawrag drives;
   * `sidecar`: a Python library behind rawrag's memory protocol (a sidecar script in integrations/sidecars/).
   */
  kind: 'method' | 'built-in' | 'oracle' | 'service' | 'sidecar';
  /** Environment variables it reads (keys are only ever read from the environment). */
  env?: ReadonlyArray<{ name: string; description: string }>;
  /** Commands that start what it needs (a service, a sidecar), in order. */
  start?: readonly string[];
  protocol?: VendorProtocol;
  /**
   * Which image captions it is fed, as its vendor's benchmark loader feeds them: `all` (default;
   * RAW-RAG, as the paper) or `with-image` (a caption only where the image itself is in the data,
   * LoCoMo `img_url`: the loaders of EverMemOS, memU's evaluators, SimpleMem, A-MEM and EMem).
   */
  captions?: CaptionPolicy;
  /** Its own library's install (`rawrag systems install NAME`), and what a run then starts for you. */
  install?: InstallSpec;
  /** What rawrag checked it against: its real library (which version, when) or only a stand-in, and why. */
  checked?: CheckedAgainst;
}

export type CaptionPolicy = 'all' | 'with-image';

/**
 * What an opponent was checked against, as data in its plug-in (set from what was actually run):
 * `real` = its own library ran end to end here (the real-library tier, `npm run test:real`),
 * `stand-in` = only rawrag's imitation of it did, with the reason.
 */
export type CheckedAgainst =
  { kind: 'real'; library: string; version: string; date: string; how: string } | { kind: 'stand-in'; why: string };

export interface SystemDescriptor<Session = unknown, Model = unknown> {
  /** The `--system` value. */
  name: string;
  /** One line for `--system`'s help. */
  description: string;
  /** `rawrag systems`: label, kind, environment, start commands, vendor protocol. */
  about?: SystemAbout;
  /** The paper's method: stats takes it as the default baseline and summaries print the paper's row beside it. */
  reference?: boolean;
  /** Chooses evidence with gold knowledge (an upper bound, not a system under comparison): its manifests say `"oracle": true`. */
  oracle?: boolean;
  /**
   * The system's own config section: `key` in the run config, validated by `schema`, absent = its
   * defaults. Its keys are the system's options: `-S key=value` on the command line (each key
   * `.describe()`d: `rawrag systems` lists them with their types and defaults).
   */
  config?: { key: string; schema: z.ZodType };
  sweep?: readonly SweepKnob[];
  /**
   * Refuses a config whose values would do nothing on these questions (e.g. a flag about phases on a
   * benchmark without them): called with the selected questions before anything is written.
   */
  checkQuestions?(cfg: RunConfig, questions: readonly Question[]): void;
  /** Builds the evidence source; checks what it needs (models, keys) and writes nothing before `open`. */
  create(cfg: RunConfig, session: Session, opts: CreateContext): Promise<EvidenceSource>;
  /** `--dry-run`: the system's own calls and the evidence size per question. */
  estimate(input: EstimateInput<Session, Model>): SystemEstimate<Model>;
  /** Lines the run's printed summary adds, read from summary.json (what the source's `report()` put there). */
  summaryLines?(summary: Record<string, unknown>): string[];
  /** A system that keeps a memory store per run answers `rawrag memory show | purge` through this. */
  store?: MemoryStoreAccess;
  /** The paper's figures for this system (`rawrag paper`). */
  paperRows?: readonly SystemPaperRow[];
  /**
   * The pre-flight's look at what this system needs before anything is sent (its key, its service
   * answering): one line per problem, nothing started and nothing written.
   */
  preflight?(cfg: RunConfig, env: NodeJS.ProcessEnv): Promise<SystemPreflight>;
  /**
   * `rawrag systems check NAME`: a pre-flight of the system as `cfg` names it (a probe conversation
   * written, waited for, searched, deleted), each step printed through `log`; true when all passed.
   */
  check?(
    cfg: RunConfig,
    env: NodeJS.ProcessEnv,
    log: (step: { step: string; ok: boolean; ms: number; detail: string }) => void,
  ): Promise<boolean>;
  /** The whole persisted store of one of this system's run directories, for `--system store-oracle -S store=RUN_DIR`. */
  exportStore?(runDir: string): import('./store-record.js').StoreRecord[];
}

export interface MemoryStoreAccess {
  /** Whether `runDir` holds this system's store (a folder without a manifest is recognised by it). */
  exists(runDir: string): boolean;
  /** The store's items as text (or JSON with `json`). */
  show(runDir: string, opts: { owner?: string; all?: boolean; json?: boolean }): string;
  /**
   * Deletes one owner's data physically wherever the system keeps it, verified; returns what was
   * done. `config`: the run's config with the user's `-S` overrides (a service that moved), else the manifest's.
   */
  purge(runDir: string, owner: string, opts: { cacheDir?: string; config?: RunConfig }): Promise<string>;
  /** The write-decision log of the run's store (src/core/write-decisions.ts), for `rawrag memory audit`. */
  decisions?(runDir: string): WriteDecision[];
  /** Deletes everything the run stored (`rawrag run --cleanup`: a memory service's owners); absent = nothing outside the run directory. */
  purgeAll?(runDir: string, opts?: { config?: RunConfig }): Promise<string>;
}
