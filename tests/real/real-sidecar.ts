/**
 * The real-library tier's sidecar: integrations/sidecars/<system>.py run by the interpreter of the
 * system's installed environment (RAWRAG_SYSTEMS_DIR/<system>/venv, made by `rawrag systems
 * install`), in front of the real library, its LLM and embedding calls sent to the loopback API.
 * `whyNotRun` says why a system cannot run here (no environment, no checkout), so the tier reports
 * it as "not run" with the reason (tests/real/report.ts) instead of failing or passing silently.
 * Heavy (PyTorch) systems run on demand: `RAWRAG_REAL_HEAVY=1 npm run test:real -- tests/real/<system>.test.ts`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT } from '../helpers/cli.js';
import { STANDINS } from '../helpers/sidecar-peer.js';
import { report } from './real-library.js';

export const SYSTEMS_DIR = resolve(process.env.RAWRAG_SYSTEMS_DIR ?? join(process.env.HOME ?? tmpdir(), '.cache', 'rawrag-systems'));
export const SOURCES = process.env.RAWRAG_SOURCES ? resolve(process.env.RAWRAG_SOURCES) : null;

export const venvPython = (system: string) => join(SYSTEMS_DIR, system, 'venv', 'bin', 'python');

/** Why `system` cannot run in this tier here (reported as not run), or null. */
export function whyNotRun(system: string, checkout?: string): string | null {
  const why = whyNot(system, checkout);
  report(system, why === null, why ?? `its environment ${venvPython(system)}`);
  return why;
}

function whyNot(system: string, checkout?: string): string | null {
  if (!process.env.RAWRAG_REAL_HEAVY) return 'heavy (PyTorch, several GB): RAWRAG_REAL_HEAVY=1 runs it';
  if (!existsSync(venvPython(system))) return `not installed: no ${venvPython(system)} (rawrag systems install ${system})`;
  if (checkout && !(SOURCES && existsSync(join(SOURCES, checkout)))) return `no checkout ${checkout} under RAWRAG_SOURCES`;
  return null;
}

export class RealSidecar {
  readonly state = mkdtempSync(join(tmpdir(), 'rawrag-real-sidecar-'));
  url = '';
  stderr = '';
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();

  constructor(
    readonly system: string,
    readonly args: string[],
    readonly env: Record<string, string>,
    /** The interpreter: the system's environment (default) or python3 with the stand-ins (a comparison). */
    readonly python = venvPython(system),
  ) {}

  async start(): Promise<this> {
    const child = spawn(
      this.python,
      [join(ROOT, 'integrations', 'sidecars', `${this.system}.py`), '--port', '0', '--state', this.state, ...this.args],
      {
        cwd: this.state,
        env: { ...process.env, PYTHONUNBUFFERED: '1', ...this.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.child = child;
    this.exited = new Promise((r) => child.once('exit', () => r()));
    child.stderr!.on('data', (d) => (this.stderr = (this.stderr + d).slice(-50_000)));
    const first = await new Promise<string>((res, rej) => {
      createInterface({ input: child.stdout! }).once('line', res);
      child.once('exit', (code) => rej(new Error(`sidecar ${this.system} exited (${code}) before listening:\n${this.stderr}`)));
    });
    child.stdout!.resume();
    this.url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(first)![1]!;
    return this;
  }

  async post(path: string, body: unknown): Promise<any> {
    const res = await fetch(this.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = await res.json();
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}\n${this.stderr.slice(-3000)}`);
    return json;
  }

  /** Sends the adds, then asks /ready until the library holds them. */
  feed(owner: string, adds: unknown[], timeoutMs = 600_000): Promise<void> {
    return feedSide(this, owner, adds, timeoutMs, () => this.stderr.slice(-3000));
  }

  async close(): Promise<void> {
    this.child?.kill('SIGTERM');
    await this.exited;
  }
}

/** Anything that answers the sidecar protocol's POST routes: a RealSidecar, or one started for you (`urlSide`). */
export interface SidecarSide {
  post(path: string, body: unknown): Promise<any>;
}

/** The sidecar protocol at `url` (one rawrag started for you, e.g. inside `realLibrary(...).withStarted`). */
export function urlSide(url: string): SidecarSide {
  return {
    async post(path, body) {
      const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const json = await res.json();
      if (res.status !== 200) throw new Error(`${url}${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    },
  };
}

/** Sends the adds to `side`, then asks /ready until the library holds them. */
export async function feedSide(side: SidecarSide, owner: string, adds: unknown[], timeoutMs = 600_000, log = () => ''): Promise<void> {
  for (const a of adds) await side.post('/add', a);
  const until = Date.now() + timeoutMs;
  while (!(await side.post('/ready', { owner })).ready) {
    if (Date.now() > until) throw new Error(`not ready after ${timeoutMs} ms\n${log()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * The stand-in check: the same calls (probeAdds, then /list, a /search, /delete) to the real library
 * (`real`) and to the stand-in (tests/fixtures/sidecars on PYTHONPATH, this machine's python3, the
 * same sidecar script); returns what `pick` took from each side's /list and /search, real first,
 * for the test to compare. The stand-ins do no LLM work, so `pick` keeps what both must agree on
 * (the turns each memory maps to, the line layout), not LLM-written text.
 */
export async function standinAnswers<T>(o: {
  system: string;
  real: SidecarSide;
  /** The stand-in sidecar's arguments and environment (the loopback API's URL and key). */
  args?: string[];
  env: Record<string, string>;
  query?: string;
  pick: (list: Array<{ id: string; memory: string; turn_ids: string[] }>, search: Array<{ memory: string; turn_ids: string[] }>) => T;
}): Promise<{ real: T; standin: T }> {
  const standin = await new RealSidecar(
    o.system,
    o.args ?? [],
    { PYTHONPATH: STANDINS, RAWRAG_STANDIN_DIR: mkdtempSync(join(tmpdir(), 'rawrag-standin-')), ...o.env },
    'python3',
  ).start();
  try {
    const owner = 'probe-compare';
    const out: T[] = [];
    for (const side of [o.real, standin]) {
      await feedSide(side, owner, probeAdds(owner));
      const list = (await side.post('/list', { owner })).memories;
      const search = (await side.post('/search', { owner, query: o.query ?? 'What did Melanie paint?', limit: 10 })).results;
      out.push(o.pick(list, search));
      await side.post('/delete', { owner });
    }
    return { real: out[0]!, standin: out[1]! };
  } finally {
    await standin.close();
  }
}

/** Two LoCoMo-like adds of one owner (the protocol's body), for the stand-in comparison. */
export function probeAdds(owner: string) {
  const turn = (id: string, speaker: string, text: string) => ({
    role: 'user',
    content: `${speaker}: ${text}`,
    speaker,
    text,
    turn_id: id,
  });
  const base = { owner, speakers: ['Caroline', 'Melanie'] };
  return [
    {
      ...base,
      add_id: 'p1',
      messages: [
        turn('D1:1', 'Caroline', 'I went to a LGBTQ support group yesterday.'),
        turn('D1:2', 'Melanie', 'That is great! I painted a lake sunrise.'),
      ],
      turn_ids: ['D1:1', 'D1:2'],
      session: 'session_1',
      date: '1:56 pm on 8 May, 2023',
      timestamp: 1683554160,
    },
    {
      ...base,
      add_id: 'p2',
      messages: [
        turn('D2:1', 'Caroline', 'I am researching adoption agencies.'),
        turn('D2:2', 'Melanie', 'My kids love the beach in summer.'),
      ],
      turn_ids: ['D2:1', 'D2:2'],
      session: 'session_2',
      date: '1:14 pm on 25 May, 2023',
      timestamp: 1685020440,
    },
  ];
}

/**
 * `rawrag run locomo --system NAME --reader gpt-4o-mini --limit 20 -S url=<real sidecar>` through the
 * CLI: asserts 0 errors and 20 items, hands each owner's /list (what the library holds) to `stored`,
 * then purges every owner and checks the library holds nothing.
 */
export async function locomoThroughRealSidecar(o: {
  system: string;
  real: RealSidecar;
  api: { url: string };
  key: string;
  extra?: string[];
  /** Checks what the library holds for one owner (its /list), after the run and before the purge. */
  stored: (memories: Array<{ memory: string; turn_ids: string[] }>) => void;
}): Promise<{ out: string; items: any[]; owners: Map<string, string> }> {
  const { rawragInProcess } = await import('../helpers/in-process.js');
  const { ingestLog, locomoRunArgs, loopbackEnv, readItems } = await import('../helpers/loopback-run.js');
  const { tempDir } = await import('../helpers/cli.js');
  const root = tempDir(`rawrag-real-${o.system}-`);
  const out = join(root, 'run');
  const env = loopbackEnv({ openai: o.key });
  const args = locomoRunArgs({
    system: o.system,
    out,
    peer: o.api,
    chatOnly: true,
    cache: join(root, 'cache'),
    limit: 20,
    extra: ['-S', `url=${o.real.url}`, ...(o.extra ?? [])],
  });
  const r = await rawragInProcess(args, env);
  if (r.code !== 0) throw new Error(`rawrag run failed (${r.code}):\n${r.stderr}\n${o.real.stderr.slice(-4000)}`);
  const summary = JSON.parse(r.stdout);
  if (summary.errors !== 0 || summary.n !== 20)
    throw new Error(`${summary.errors} errors in ${summary.n} items:\n${o.real.stderr.slice(-4000)}`);
  const items = readItems(out);
  // The library's owners as rawrag named them (run-scoped), from the run's ingest log.
  const owners = new Map<string, string>(ingestLog(out).map((e: { owner: string; episode: string }) => [e.episode, e.owner]));
  if (owners.size === 0) throw new Error('the run added nothing (no service-ingest.jsonl entries)');
  for (const owner of owners.values()) o.stored((await o.real.post('/list', { owner })).memories);
  for (const [episode, owner] of owners) {
    const p = await rawragInProcess(['memory', 'purge', out, '--owner', episode], env);
    if (p.code !== 0) throw new Error(`purge ${episode}: ${p.stderr}`);
    const left = (await o.real.post('/list', { owner })).memories;
    if (left.length) throw new Error(`${owner}: ${left.length} memories left after the purge`);
  }
  return { out, items, owners };
}
