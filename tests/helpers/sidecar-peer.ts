/**
 * A sidecar (integrations/sidecars/<system>.py) as the conformance suite's peer: the real Python
 * process, run against its library's stand-in (tests/fixtures/sidecars/ on PYTHONPATH), behind a
 * small loopback proxy that injects the suite's faults (a status, a slow reply, a reset before or
 * after the sidecar did the work, a torn 200) and records every request. What the library was asked
 * comes from the stand-in's call log: `applied` lists each item a library call stored (`<scope>#<epoch>
 * <item>`, the epoch moving on each call that emptied the scope's store), so an add applied twice
 * shows as the same entry twice; `totalHeld` sums the stand-ins' stores on disk. The sidecar can be
 * killed (SIGKILL) and started again on the same state folder, behind the same proxy URL.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { RecordedRequest } from './loopback-server.js';
import { MemoryServiceFake } from './memory-service-fake.js';
import { ROOT } from './cli.js';

export const STANDINS = join(ROOT, 'tests', 'fixtures', 'sidecars');

export interface StandinCall {
  lib: string;
  call: string;
  scope: string;
  pid: number;
  adds?: string[];
  reset?: boolean;
  [k: string]: unknown;
}

/** Fails loudly (never skips) where python3 is missing: CI has it, and the sidecars are part of the project. */
export function requirePython(): string {
  const r = spawnSync('python3', ['--version'], { encoding: 'utf8' });
  if (r.error || r.status !== 0)
    throw new Error(`python3 is not on PATH (${r.error?.message ?? r.stderr}): the sidecar tests need Python 3.11, as CI has`);
  return (r.stdout || r.stderr).trim();
}

/** `applied` entries of a call log: each stored item under its scope and the scope's epoch (a reset starts a new one). */
export function appliedOf(calls: readonly StandinCall[]): string[] {
  const epoch = new Map<string, number>();
  const out: string[] = [];
  for (const c of calls) {
    if (c.reset) epoch.set(c.scope, (epoch.get(c.scope) ?? 0) + 1);
    for (const item of c.adds ?? []) out.push(`${c.scope}#${epoch.get(c.scope) ?? 0} ${item}`);
  }
  return out;
}

/** `applied` entries of each scope's current epoch: what the library should hold now, had nothing been deleted. */
export function liveAppliedOf(calls: readonly StandinCall[]): string[] {
  const last = new Map<string, number>();
  for (const c of calls) if (c.reset) last.set(c.scope, (last.get(c.scope) ?? 0) + 1);
  return appliedOf(calls).filter((a) => {
    const m = /^(.*)#(\d+) /.exec(a)!;
    return Number(m[2]) === (last.get(m[1]!) ?? 0);
  });
}

function standinFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return standinFiles(p);
    return name.endsWith('.standin.json') ? [p] : [];
  });
}

export class SidecarPeer extends MemoryServiceFake {
  readonly dir = mkdtempSync(join(tmpdir(), 'rawrag-sidecar-'));
  readonly state = join(this.dir, 'state');
  readonly log = join(this.dir, 'calls.jsonl');
  readonly standinDir = join(this.dir, 'standin');
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  sidecarUrl = '';
  stderr = '';

  /** `system`: the sidecar's file name without `.py`; `args`: its own flags; `env`: more environment for it. */
  constructor(
    readonly system: string,
    readonly args: string[] = [],
    readonly env: Record<string, string> = {},
  ) {
    super();
  }

  override async start(port = 0): Promise<this> {
    await this.launch();
    return super.start(port);
  }

  /** Starts the sidecar on the state folder (again, after a kill) and waits for its address line. */
  async launch(extraEnv: Record<string, string> = {}): Promise<void> {
    requirePython();
    const child = spawn(
      'python3',
      [join(ROOT, 'integrations', 'sidecars', `${this.system}.py`), '--port', '0', '--state', this.state, ...this.args],
      {
        cwd: this.dir,
        env: {
          ...process.env,
          PYTHONPATH: STANDINS,
          RAWRAG_STANDIN_LOG: this.log,
          RAWRAG_STANDIN_DIR: this.standinDir,
          // Nemori's stand-in keeps its episodes in a file: a DSN, never connected to, so the sidecar starts no PostgreSQL.
          DATABASE_URL: 'postgresql://nemori@127.0.0.1:9/standin',
          PYTHONUNBUFFERED: '1',
          ...this.env,
          ...extraEnv,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.child = child;
    this.exited = new Promise((r) => child.once('exit', () => r()));
    child.stderr!.on('data', (d) => (this.stderr = (this.stderr + d).slice(-20_000)));
    const first = await new Promise<string>((resolve, reject) => {
      const lines = createInterface({ input: child.stdout! });
      lines.once('line', (l) => resolve(l));
      child.once('exit', (code) => reject(new Error(`sidecar ${this.system} exited (${code}) before listening:\n${this.stderr}`)));
    });
    child.stdout!.resume();
    const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(first);
    if (!m) throw new Error(`sidecar ${this.system} printed no address first: ${first}`);
    this.sidecarUrl = m[1]!;
  }

  /** SIGKILL, as a crash: nothing is flushed or cleaned up. */
  async kill(): Promise<void> {
    this.child?.kill('SIGKILL');
    await this.exited;
    this.child = null;
  }

  override async close(): Promise<void> {
    this.child?.kill('SIGTERM');
    await this.exited;
    this.child = null;
    await super.close();
  }

  calls(): StandinCall[] {
    if (!existsSync(this.log)) return [];
    // The stand-in may be appending while we read (a reply we gave up on, a kill):
    // only newline-terminated lines are finished records; the tail is dropped.
    const lines = readFileSync(this.log, 'utf8').split('\n');
    lines.pop();
    return lines.filter((l) => l.trim()).map((l) => JSON.parse(l) as StandinCall);
  }

  isAdd(r: RecordedRequest): boolean {
    return r.method === 'POST' && r.path === '/add';
  }

  /** Items the library holds now: the stand-ins' stores on disk. */
  totalHeld(): number {
    return [...standinFiles(this.state), ...standinFiles(this.standinDir)].reduce(
      (n, f) => n + (JSON.parse(readFileSync(f, 'utf8')) as { items: unknown[] }).items.length,
      0,
    );
  }

  private refresh(): void {
    this.applied.splice(0, this.applied.length, ...appliedOf(this.calls()));
  }

  override appliedTwice(): string[] {
    this.refresh();
    return super.appliedTwice();
  }

  protected async route(r: RecordedRequest): Promise<[number, unknown]> {
    if (this.blindSearch && r.path === '/search') return [200, { results: [] }];
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    for (const h of ['authorization', 'x-rawrag-memory-protocol'])
      if (typeof r.headers[h] === 'string') headers[h] = r.headers[h] as string;
    try {
      const res = await fetch(this.sidecarUrl + r.path, {
        method: r.method,
        headers,
        body: r.method === 'POST' ? JSON.stringify(r.body) : undefined,
      });
      const text = await res.text();
      return [res.status, text ? JSON.parse(text) : undefined];
    } catch (e) {
      return [502, { detail: `the sidecar did not answer: ${(e as Error).message}` }];
    } finally {
      this.refresh();
    }
  }
}
