/**
 * What the loopback end-to-end suites share (agentic memory, Mem0, the RAW-RAG variants, the
 * write audit, ...): the environment of a run whose providers are loopback peers, the `rawrag run
 * locomo` command of a system pointed at one peer, a reader that answers from its evidence, a run's
 * items, rows of a run's SQLite store read while another process writes it, and a kill -9 mid-run.
 * Runs go through the CLI in this process (tests/helpers/in-process.ts); the kill needs a real
 * child, bin/rawrag.js.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { defaultChat, endpointArgs } from './fake-api.js';
import { BIN, ROOT } from './cli.js';
import { rawragInProcess } from './in-process.js';

export type Env = Record<string, string | undefined>;

/**
 * A run's environment: the test's keys (an OpenAI one always, a Cohere one when the run reranks
 * there), quick retries, and none of the caller's base URLs or cache directory.
 */
export function loopbackEnv(keys: { openai: string; cohere?: string }, extra: Env = {}): Env {
  return {
    OPENAI_API_KEY: keys.openai,
    ...(keys.cohere === undefined ? {} : { COHERE_API_KEY: keys.cohere, COHERE_BASE_URL: undefined }),
    RAWRAG_RETRY_BASE_MS: '5',
    OPENAI_BASE_URL: undefined,
    RAWRAG_CACHE_DIR: undefined,
    ...extra,
  };
}

export interface LocomoRun {
  /** `run` (default) or `ablate` (then without the PNG and the HTML report). */
  command?: 'run' | 'ablate';
  /** --system (default: none, RAW-RAG). */
  system?: string;
  out: string;
  /** The loopback peer every provider role talks to. */
  peer: { url: string };
  /** Only the reader and judge on the peer (a system with its own store, e.g. Mem0; RAW-RAG with the local retriever). */
  chatOnly?: boolean;
  cache: string;
  retriever?: string;
  limit?: number;
  /** --data: a LoCoMo file other than the bundled copy (e.g. a cut, tests/helpers/locomo-cut.ts). */
  data?: string;
  judgeRuns?: number;
  /** --json (default: for `run`). */
  json?: boolean;
  extra?: string[];
}

/** `rawrag run locomo` (or `ablate locomo`) with gpt-4o-mini reading, against the peer, with its own cache, no progress bar. */
export function locomoRunArgs(r: LocomoRun): string[] {
  const peer = r.chatOnly ? endpointArgs(r.peer).slice(0, 4) : endpointArgs(r.peer);
  const ablate = r.command === 'ablate';
  return [
    ablate ? 'ablate' : 'run',
    'locomo',
    ...(r.system ? ['--system', r.system] : []),
    '--reader',
    'gpt-4o-mini',
    ...(r.retriever ? ['--retriever', r.retriever] : []),
    ...(r.limit ? ['--limit', String(r.limit)] : []),
    ...(r.data ? ['--data', r.data] : []),
    ...(r.judgeRuns ? ['--judge-runs', String(r.judgeRuns)] : []),
    ...((r.json ?? !ablate) ? ['--json'] : []),
    ...(ablate ? ['--no-png', '--no-report'] : []),
    '--out',
    r.out,
    ...peer,
    '--cache-dir',
    r.cache,
    '--no-progress',
    ...(r.extra ?? []),
  ];
}

/**
 * A reader that answers with the gold answer exactly when its context holds it (else "I don't
 * know"), for the LoCoMo reader prompt; every other chat request (the judge) gets `fallback`.
 */
export function evidenceReader(
  questions: Array<{ text: string; gold: string }>,
  fallback: (body: any) => string = defaultChat,
): (body: any) => string {
  const goldOf = new Map(questions.map((q) => [q.text, q.gold]));
  return (body) => {
    const user: string = (body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'user')?.content ?? '';
    const m = /# Question: \n([\s\S]*?)\n\n# Context: \n([\s\S]*)$/.exec(user);
    if (!m) return fallback(body);
    const gold = goldOf.get(m[1]!) ?? '';
    return gold.trim() !== '' && m[2]!.toLowerCase().includes(gold.toLowerCase()) ? gold : "I don't know";
  };
}

/** A run directory's items.jsonl, parsed. */
export function readItems(dir: string): any[] {
  return readFileSync(join(dir, 'items.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

/**
 * A memory-service run's ingest log (service-ingest.jsonl), parsed; [] while absent. A torn last
 * line (a run killed mid-write) is skipped, as the shared layer's reader skips it.
 */
export function ingestLog(dir: string): any[] {
  const file = join(dir, 'service-ingest.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [JSON.parse(l)];
      } catch {
        return [];
      }
    });
}

/** The pairwise comparisons (rows with system_a / system_b) anywhere in a stats.json. */
export function statsPairs(statsJson: string): Array<Record<string, unknown>> {
  const pairs: Array<Record<string, unknown>> = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      if ('system_a' in v) pairs.push(v as Record<string, unknown>);
      Object.values(v).forEach(walk);
    }
  };
  walk(JSON.parse(readFileSync(statsJson, 'utf8')));
  return pairs;
}

/** The `k` column of a query on a SQLite file another process may be writing: [] while it is absent or unreadable. */
export function sqliteKeys(file: string, sql: string): string[] {
  if (!existsSync(file)) return [];
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare(sql).all() as Array<{ k: string }>).map((r) => r.k);
    } finally {
      db.close();
    }
  } catch {
    return [];
  }
}

/**
 * Starts bin/rawrag.js with `args` in a child process, waits until `ready()` (polled every
 * `pollMs`, for at most a minute), kills it with SIGKILL and returns how it ended (the signal).
 */
export async function killMidRun(args: string[], env: Env, ready: () => boolean, pollMs = 25): Promise<NodeJS.Signals | number | null> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', ...env } as NodeJS.ProcessEnv,
    stdio: 'ignore',
  });
  const exited = new Promise<NodeJS.Signals | number | null>((r) => child.on('exit', (code, signal) => r(signal ?? code)));
  const deadline = Date.now() + 60_000;
  while (!ready() && Date.now() < deadline) await new Promise((r) => setTimeout(r, pollMs));
  child.kill('SIGKILL');
  return exited;
}

/** What `rawrag systems --json` prints: each system's declared options, environment, start commands and protocol. */
export interface SystemsListing {
  systems: Array<{
    name: string;
    options: Array<{ key: string; default: unknown }>;
    env: Array<{ name: string }>;
    start: string[];
    protocol: any;
  }>;
  paper_opponents: Array<{ name: string; system: string | null; available?: boolean }>;
}

/** Runs `rawrag systems --json` in this process; fails the test on a non-zero exit. */
export async function systemsJson(): Promise<SystemsListing> {
  const r = await rawragInProcess(['systems', '--json'], {});
  if (r.code !== 0) throw new Error(`rawrag systems --json exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as SystemsListing;
}
