/**
 * What `rawrag resume DIR` (or `rawrag run --out DIR` with nothing else that defines a run) goes
 * on with: a run directory (its manifest's config and recorded options) or a grid's set folder
 * (set.json: every cell's config, the grid's recorded options).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { Manifest } from '../run-files/manifest.js';
import { RunDir } from '../run-files/run-dir.js';
import { readSet, SET_FILE, type SetManifest } from '../grid/set-manifest.js';
import { InputError, formatPath } from '../util/errors.js';
import { CREDENTIALS_IN_URL, urlCredentialsIn } from '../util/url-credentials.js';
import type { Invocation } from '../run-files/invocation.js';

export type ResumeTarget = { kind: 'run'; dir: string; manifest: Manifest } | { kind: 'grid'; dir: string; set: SetManifest };

/**
 * Options a resume may be given again: where requests go and how (a changed endpoint, timeouts,
 * concurrency, the models file), and how this invocation behaves (progress, output, retries of
 * failed items, limits). Anything else defines another run.
 */
export const RESUME_OPTIONS = new Set([
  'out',
  'retryErrors',
  'forceResume',
  'progress',
  'json',
  'verbose',
  'readerBaseUrl',
  'judgeBaseUrl',
  'embedBaseUrl',
  'rerankBaseUrl',
  'models',
  'cacheDir',
  'cache',
  'shard',
  'timeout',
  'maxRetries',
  'concurrency',
  'parallelCells',
  'maxCost',
  'maxErrorRate',
  'maxFailures',
  'reach',
  'wait',
  'cleanup',
]);

/** The options typed that a resume does not take (empty: a resume may go on). */
export function runDefiningOptions(cmd: Command): string[] {
  return Object.keys(cmd.opts()).filter((k) => cmd.getOptionValueSource(k) === 'cli' && !RESUME_OPTIONS.has(k));
}

/** The run or set folder `dir` holds, or null when it holds neither. */
export function readTarget(dir: string): ResumeTarget | null {
  if (existsSync(join(dir, SET_FILE))) return withoutUrlCredentials({ kind: 'grid', dir, set: readSet(dir)! }, SET_FILE);
  const rundir = new RunDir(dir);
  if (rundir.exists()) return withoutUrlCredentials({ kind: 'run', dir, manifest: rundir.readManifest() }, 'manifest.json');
  return null;
}

/** A recorded config or invocation holding a URL with a password (an older rawrag wrote it) is refused, naming the file and key. */
function withoutUrlCredentials(t: ResumeTarget, file: string): ResumeTarget {
  const secret = urlCredentialsIn(t.kind === 'run' ? t.manifest : t.set);
  if (secret) throw new InputError(CREDENTIALS_IN_URL, { file: join(t.dir, file), place: formatPath(secret) });
  return t;
}

/** `run --out DIR` with no benchmark and only resume options: the folder to go on with (null: an ordinary run). */
export function resumeTargetOf(cmd: Command, benchmark: string | undefined): ResumeTarget | null {
  const out = cmd.opts().out as string | undefined;
  if (out === undefined || benchmark !== undefined || runDefiningOptions(cmd).length > 0) return null;
  return readTarget(out);
}

/** The recorded invocation of a target. */
export function recordedInvocation(t: ResumeTarget): Invocation | undefined {
  return t.kind === 'run' ? t.manifest.invocation : t.set.invocation;
}

/** A target's recorded configs need no more than a resume: a set folder from before configs were kept cannot. */
export function requireCellConfigs(t: Extract<ResumeTarget, { kind: 'grid' }>): void {
  const missing = t.set.cells.filter((c) => !c.config).map((c) => c.name);
  if (missing.length > 0)
    throw new InputError(
      `this set folder does not record the configs of ${missing.length} cells (${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', ...' : ''}): it was written by an older rawrag; resume it with its original command`,
      { file: join(t.dir, SET_FILE) },
    );
}
