/**
 * Started for you: a memory system installed with `rawrag systems install NAME` is started by the
 * command that needs it (run, a grid, `memory purge`, `systems check`) when no `-S url=` is given —
 * its environment's Python running its script (integrations/sidecars/) on a free loopback port,
 * its state under rawrag's cache (`<cache>/sidecars/<system>/`, kept between commands so a run can
 * be resumed and purged later), the offline environment block (offline-env.ts). The command waits
 * until it answers, shares one instance between everything it runs (a grid's cells), and stops it
 * when it ends, however it ends. Another command already running one on the same state folder is
 * used as it is (and left running).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { resolveCacheDir } from '../../providers/cache.js';
import { onCommandEnd } from '../../util/command-end.js';
import { InputError } from '../../util/errors.js';
import { readJsonFile, writeJsonAtomic } from '../../util/fsx.js';
import { fromRoot } from '../../util/paths.js';
import type { InstallSpec } from '../../core/install-spec.js';
import { currentInstall } from './installer.js';
import { libraryEndpoint, offlineEnv, seedTiktoken } from './offline-env.js';
import { checkReachable } from './reachable.js';
import { systemPaths, systemsDir, type InstalledRecord } from './systems-dir.js';

export interface StartedService {
  url: string;
  pid: number;
  /** What the run records: the library, its version and where it came from. */
  library: { name: string; version: string; source: string; python: string; installed: string; script: string; notes: string[] };
  /** The state folder (the library's stores). */
  state: string;
  /** Started by another command, used as it is. */
  shared: boolean;
}

export interface LaunchRequest {
  system: string;
  spec: InstallSpec;
  /** The script, relative to rawrag's folder. */
  script: string;
  env: NodeJS.ProcessEnv;
  /** --cache-dir, when given. */
  cacheDir: string | null;
  /** The reader's base URL, when set: the library's endpoint if the environment names none. */
  readerBaseUrl?: string;
  /** How long the library may take to import and listen (default 180 s). */
  startTimeoutMs?: number;
  /** The script's own flags the run's `-S` options stand for (a sidecar plug-in's flagsOf). */
  args?: readonly string[];
}

const running = new Map<string, Promise<StartedService>>();

/** The state folder of a started system (under rawrag's cache, never the working directory). */
export function startedStateDir(system: string, env: NodeJS.ProcessEnv, cacheDir: string | null): string {
  return join(resolveCacheDir(cacheDir, env), 'sidecars', system);
}

/** The running instance of `system` for this command, started on first use. */
export function ensureStarted(req: LaunchRequest): Promise<StartedService> {
  const state = startedStateDir(req.system, req.env, req.cacheDir);
  let p = running.get(state);
  if (!p) {
    p = launch(req, state);
    running.set(state, p);
    p.catch(() => running.delete(state));
  }
  return p;
}

/** Why `system` cannot be started for you, or null: not installed (the error names both ways out). */
export function notInstalledMessage(system: string, spec: InstallSpec, env: NodeJS.ProcessEnv, cacheDir: string | null): string | null {
  if (spec.unavailable)
    return `--system ${system} cannot be installed here (${spec.unavailable}): give -S url=URL of one running elsewhere`;
  const dir = systemsDir(env, cacheDir);
  if (currentInstall(system, spec, dir)) return null;
  return `--system ${system} is not installed here (${dir}/${system}): run 'rawrag systems install ${system}' and rawrag starts it for you, or give -S url=URL of one you started yourself`;
}

function sourceOf(rec: InstalledRecord): string {
  return rec.source.kind === 'index'
    ? `package index (${rec.source.packages.join(' ')})`
    : `checkout ${rec.source.repo}@${rec.source.commit.slice(0, 12)} (${rec.source.dir})`;
}

async function launch(req: LaunchRequest, state: string): Promise<StartedService> {
  const dir = systemsDir(req.env, req.cacheDir);
  const rec = currentInstall(req.system, req.spec, dir);
  if (!rec) throw new InputError(notInstalledMessage(req.system, req.spec, req.env, req.cacheDir)!, { place: `--system ${req.system}` });
  const library = {
    name: rec.library.name,
    version: rec.library.version,
    source: sourceOf(rec),
    python: rec.python.version,
    installed: rec.date,
    script: req.script,
    notes: rec.notes,
  };
  mkdirSync(state, { recursive: true });
  const args = [...(req.args ?? [])];
  const shared = await alreadyRunning(state);
  if (shared && JSON.stringify(shared.args ?? []) !== JSON.stringify(args))
    throw new InputError(
      `another command runs ${req.system} on ${state} with flags [${(shared.args ?? []).join(' ')}], not [${args.join(' ')}] as this run's -S options say: wait for it to end`,
      { place: `--system ${req.system}` },
    );
  if (shared) return { url: shared.url, pid: shared.pid, library, state, shared: true };
  const tiktoken = req.spec.tiktoken?.length
    ? await seedTiktoken(join(resolveCacheDir(req.cacheDir, req.env), 'tiktoken'), req.spec.tiktoken)
    : null;
  const env = offlineEnv(req.spec, req.env, { endpoint: libraryEndpoint(req.env, req.readerBaseUrl), tiktokenDir: tiktoken });
  const logFile = join(state, 'sidecar.log');
  const log = openSync(logFile, 'a');
  const python = systemPaths(req.system, dir).python;
  const child = spawn(python, [fromRoot(req.script), '--port', '0', '--state', state, ...args], { env, stdio: ['ignore', 'pipe', log] });
  const stop = registerStop(child, state);
  try {
    const url = await firstUrl(child, req.startTimeoutMs ?? 180_000, logFile);
    await checkReachable(url, { label: req.system, startHint: `${python} ${req.script} --port 0`, timeoutMs: 10_000 });
    writeJsonAtomic(join(state, 'started.json'), { pid: child.pid, url, started: new Date().toISOString(), args });
    return { url, pid: child.pid!, library, state, shared: false };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** A started instance another command keeps on this state folder, when its process lives and answers. */
async function alreadyRunning(state: string): Promise<{ url: string; pid: number; args?: string[] } | null> {
  const file = join(state, 'started.json');
  if (!existsSync(file)) return null;
  const s = readJsonFile(file) as { pid: number; url: string; args?: string[] };
  try {
    process.kill(s.pid, 0);
    await checkReachable(s.url, { label: 'started', startHint: '', timeoutMs: 2000 });
    return s;
  } catch {
    rmSync(file, { force: true });
    return null;
  }
}

/** The URL of the first stdout line (`... listening on http://127.0.0.1:PORT ...`); the log's tail if it exits first. */
function firstUrl(child: ChildProcess, timeoutMs: number, logFile: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const fail = (why: string) => {
      clearTimeout(timer);
      lines.close();
      const tail = existsSync(logFile) ? readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-12).join('\n') : '';
      reject(new InputError(`the started memory system ${why}; the end of ${logFile}:\n${tail}`));
    };
    const timer = setTimeout(() => fail(`did not listen within ${timeoutMs / 1000} s`), timeoutMs);
    child.once('exit', (code, signal) => fail(`exited (${signal ?? `exit ${code}`}) before it listened`));
    child.once('error', (e) => fail(`could not start: ${e.message}`));
    lines.once('line', (line) => {
      const m = /listening on (http:\/\/[^\s)]+)/.exec(line);
      if (!m) return fail(`printed '${line.slice(0, 200)}' instead of its address`);
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.removeAllListeners('error');
      // Keep reading stdout so a chatty library never blocks on a full pipe.
      child.stdout!.resume();
      resolvePromise(m[1]!);
    });
  });
}

/** Stops the child at the command's end (SIGTERM, then SIGKILL after 5 s), or at process exit. */
function registerStop(child: ChildProcess, state: string): () => Promise<void> {
  let done = false;
  const stop = async () => {
    if (done) return;
    done = true;
    // Forgotten at once, so a later command in the same process starts a fresh one.
    running.delete(state);
    unregister();
    rmSync(join(state, 'started.json'), { force: true });
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  const unregister = onCommandEnd({
    stop,
    atExit: () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(join(state, 'started.json'), { force: true });
    },
  });
  // A child that dies on its own is forgotten too (the next use starts another).
  child.once('exit', () => running.delete(state));
  return stop;
}
