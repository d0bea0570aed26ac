/** `manifest.json`: what was run, on what, with which code, and how far it got. */
import type { PhaseFigures } from '../core/phases.js';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { RunConfig } from '../config/schema.js';
import type { DatasetSource, LoadWarning } from '../core/schema.js';
import { fromRoot, projectRoot } from '../util/paths.js';
import type { RunIdentity } from './identity.js';

/**
 * `complete`: every selected question has an item and none failed. `incomplete`: the pass ended
 * with failed items (`questions.errors`; `--retry-errors` redoes them) or without some (deferred to
 * a batch, or a resume is needed); shown as `incomplete (N failed)` (src/run-files/status.ts). `interrupted`: stopped by a signal.
 * `stopped-cost-cap`: stopped before a request could cross `--max-cost` (the same command with a
 * higher cap resumes). `failed`: the run itself failed (not single items: those are item errors).
 */
export type RunStatus = 'running' | 'complete' | 'incomplete' | 'interrupted' | 'stopped-cost-cap' | 'failed';

export interface Manifest {
  /** The run record's version (src/run-files/record.ts; rawrag.run/1 manifests said `format: 'rawrag.run/1'`). */
  schema: 'rawrag.run/2';
  run_id: string;
  /** The system under test, e.g. `RAW-RAG/local`; `rawrag stats` compares systems within a setting. */
  system: string;
  /** The user's label for this run (`--name`), shown beside the system everywhere; absent when none was given. */
  name?: string;
  /** The system is the paper's method (its descriptor says so): stats' default baseline, the paper's row beside it. */
  reference?: boolean;
  /** The system chooses evidence with gold knowledge (its descriptor says so): `rawrag paper` reads its runs as oracle rows. */
  oracle?: boolean;
  /** `rawrag stats` also pairs this run against that system's run in the same setting (the source says which). */
  pair_with?: string;
  /** The system's vendor protocol (its descriptor's `about.protocol`): what its authors' own evaluation does, and rawrag's deviations. */
  system_protocol?: import('../core/system.js').VendorProtocol;
  benchmark: string;
  /** What makes runs comparable: benchmark + reader, e.g. `locomo/gpt-4o-mini`. */
  setting: string;
  status: RunStatus;
  /** A re-judge of a run that was not whole: why this one is `incomplete` although every answer it had was judged. */
  incomplete_because?: string;
  /** Hash of the semantic config; a run directory only ever resumes the same config. */
  config_hash: string;
  /** What a resume must match: config hash, effective system and source, data sha256, tool version. */
  identity: RunIdentity;
  /** Earlier identities this directory was forcibly resumed from (`--force-resume`). */
  forced_from?: Array<Partial<RunIdentity>>;
  config: RunConfig;
  /** The benchmark policy after config overrides (chunking, expansion, ordering). */
  policy: Record<string, unknown>;
  /** `stand_in`: an offline stand-in for the paper's retriever (src/retrieval/retriever.ts). */
  /** `library`: the memory system's own library a run started for you (name, version, where it came from). */
  retriever: { name: string; notes: string[]; stand_in?: boolean; library?: Record<string, unknown> };
  /** The options the command was given besides the config, without secrets: `rawrag resume DIR` goes on with them. */
  invocation?: import('./invocation.js').Invocation;
  /** `--shard I/N`: this directory holds every N-th conversation's questions from the I-th (`rawrag merge` joins the shards). */
  shard?: { index: number; count: number };
  /** Set on a run joined from shards by `rawrag merge`: where its items came from. */
  merged_from?: Array<{ dir: string; run_id: string; shard: { index: number; count: number } | null; items: number }>;
  /** The response cache folder the run used (null: --no-cache), so `rawrag memory purge` finds the replies to delete. */
  cache_dir?: string | null;
  /** What was not done in this run and why (no reader, no keys, ...). */
  skipped: string[];
  /** Where the config departs from the benchmark's protocol (reader temperature, max_tokens, prompt); empty = none. */
  deviations?: string[];
  /** `questions`: how many the data holds under the run's options, before --limit, --sample or --ids (the whole question set). */
  dataset: DatasetSource & { warnings: LoadWarning[]; questions?: number };
  questions: { selected: number; done: number; errors: number };
  tool: { name: 'rawrag'; version: string; node: string };
  git: { commit: string | null; dirty: boolean | null };
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  timings: Record<string, number>;
  /**
   * Wall time of each phase summed over the processes that wrote the items (a resume adds its own):
   * adding histories to the index, finding evidence, and the time either ran. Milliseconds.
   */
  phase_wall_ms?: { ingest: number; search: number; add_search: number; processes: number };
  error: string | null;
  /**
   * USD spent on provider requests by the processes that wrote this directory (replies from the
   * cache cost nothing; `--max-cost` counts from it); null when a price was unknown.
   */
  spent_usd?: number | null;
  /**
   * The last process's phases as it last wrote them (ingest, index, answer, judge: done/total, rate,
   * time left, money; src/core/phases.ts), rewritten at most once a second while it runs: what
   * `rawrag view` shows of a run still running. Figures of this process only (a resume plans what is left).
   */
  progress?: { updated_at: string; phases: PhaseFigures[] };
}

export function toolInfo(): Manifest['tool'] {
  const pkg = JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as { version: string };
  return { name: 'rawrag', version: pkg.version, node: process.version };
}

const REV_PARSE = ['rev-parse', 'HEAD'];
const STATUS = ['status', '--porcelain', '--untracked-files=no'];

/** The checkout's commit and whether it is dirty, both git commands at once and in the background: a run starts it first and loads its data meanwhile. */
export async function gitInfo(): Promise<Manifest['git']> {
  const git = (args: string[]) =>
    new Promise<string>((resolve, reject) =>
      execFile('git', args, { cwd: projectRoot(), encoding: 'utf8' }, (e, stdout) => (e ? reject(e) : resolve(stdout.trim()))),
    );
  try {
    const [commit, status] = await Promise.all([git(REV_PARSE), git(STATUS)]);
    return { commit, dirty: status.length > 0 };
  } catch {
    return { commit: null, dirty: null };
  }
}
