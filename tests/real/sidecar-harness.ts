/**
 * The real-library tier's minimal harness for a sidecar: the library's own environment (made by
 * `rawrag systems install NAME`: RAWRAG_SYSTEMS_DIR/<name>/venv) runs integrations/sidecars/<name>.py
 * against the loopback OpenAI-compatible API, offline (tiktoken's files seeded from js-tiktoken's
 * ranks, hubs off, every request other than 127.0.0.1 sent to a dead proxy so a download fails
 * loudly). `notRun` says why a system cannot run here (no environment, no checkout), for the tier's
 * ran / not-run report.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { ROOT, tempDir } from '../helpers/cli.js';

export const SYSTEMS_DIR = process.env.RAWRAG_SYSTEMS_DIR || join(homedir(), '.cache', 'rawrag', 'systems');
export const SOURCES_DIR = process.env.RAWRAG_SOURCES || '';

export function venvPython(system: string): string {
  return join(SYSTEMS_DIR, system, 'venv', 'bin', 'python');
}

/** Why `system` cannot run on its real library here, or null. */
export function notRun(system: string, checkout?: string): string | null {
  if (!existsSync(venvPython(system))) return `no environment at ${venvPython(system)} (rawrag systems install ${system})`;
  if (checkout !== undefined && !existsSync(checkout)) return `no checkout at ${checkout} (RAWRAG_SOURCES)`;
  return null;
}

/** tiktoken's cache files (named by the SHA-1 of the URL it would download) written from js-tiktoken's ranks. */
export async function seedTiktoken(dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  for (const [name, ranks] of [
    ['cl100k_base', cl100k.bpe_ranks],
    ['o200k_base', o200k.bpe_ranks],
  ] as const) {
    const rows: Array<[number, string]> = [];
    for (const line of ranks.split('\n')) {
      if (!line) continue;
      const [, first, ...tokens] = line.split(' ');
      tokens.forEach((t, i) => rows.push([Number(first) + i, t]));
    }
    rows.sort((a, b) => a[0] - b[0]);
    const key = createHash('sha1').update(`https://openaipublic.blob.core.windows.net/encodings/${name}.tiktoken`).digest('hex');
    writeFileSync(join(dir, key), rows.map(([r, t]) => `${t} ${r}\n`).join(''));
  }
  return dir;
}

/** The environment a real library gets: the loopback API under every name libraries read, offline switches. */
export function offlineEnv(apiUrl: string, tiktokenDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const base = `${apiUrl}/v1`;
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const n of ['OPENAI_BASE_URL', 'OPENAI_API_BASE', 'LLM_BASE_URL', 'EMBEDDING_BASE_URL']) env[n] = base;
  for (const n of ['OPENAI_API_KEY', 'LLM_API_KEY', 'EMBEDDING_API_KEY']) env[n] = 'sk-real-tier-0123456789';
  return {
    ...env,
    TIKTOKEN_CACHE_DIR: tiktokenDir,
    HF_HUB_OFFLINE: '1',
    TRANSFORMERS_OFFLINE: '1',
    // Anything but the loopback goes to a dead proxy: a library that downloads fails loudly.
    HTTP_PROXY: 'http://127.0.0.1:9',
    HTTPS_PROXY: 'http://127.0.0.1:9',
    NO_PROXY: '127.0.0.1,localhost',
    PYTHONUNBUFFERED: '1',
    PYTHONPATH: '',
    ...extra,
  };
}

/** A temporary folder others may traverse: under root, a sidecar's private PostgreSQL runs as the `postgres` user. */
function openDir(dir: string): string {
  chmodSync(dir, 0o755);
  return dir;
}

export class RealSidecar {
  url = '';
  stderr = '';
  readonly state = join(openDir(tempDir('rawrag-real-')), 'state');
  private child: ChildProcess | null = null;

  constructor(
    readonly system: string,
    readonly args: string[],
    readonly env: NodeJS.ProcessEnv,
  ) {}

  async start(timeoutMs = 120_000): Promise<this> {
    const child = spawn(
      venvPython(this.system),
      [join(ROOT, 'integrations', 'sidecars', `${this.system}.py`), '--port', '0', '--state', this.state, ...this.args],
      {
        env: this.env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.child = child;
    child.stderr!.on('data', (d) => (this.stderr = (this.stderr + d).slice(-50_000)));
    const first = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.system} did not listen within ${timeoutMs} ms:\n${this.stderr}`)), timeoutMs);
      createInterface({ input: child.stdout! }).once('line', (l) => (clearTimeout(timer), resolve(l)));
      child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`${this.system} exited (${code}):\n${this.stderr}`))));
    });
    child.stdout!.resume();
    this.url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(first)![1]!;
    return this;
  }

  async call(path: string, body: unknown): Promise<any> {
    const r = await fetch(this.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await r.text();
    if (!r.ok) throw new Error(`${path} ${r.status}: ${text}`);
    return JSON.parse(text);
  }

  async stop(): Promise<void> {
    if (!this.child) return;
    const exited = new Promise((r) => this.child!.once('exit', r));
    this.child.kill('SIGTERM');
    await exited;
    this.child = null;
  }
}
