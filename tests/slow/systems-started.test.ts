/**
 * Issue 40's machinery, in process: `rawrag systems install` refusals, started for you (a run
 * without `-S url=` starts the installed sidecar on a free loopback port, records its library,
 * stops it at the end), `rawrag systems check`, and the reachability check a run makes before it
 * sends anything (a dead URL fails at once with the start command; one probe, before the first add).
 * The started sidecar is a real one (integrations/sidecars/recmem.py) over its library's stand-in,
 * from an environment whose python is this machine's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { rawragInProcess } from '../helpers/in-process.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { FakeMem0 } from '../helpers/fake-mem0.js';
import { STANDINS, requirePython } from '../helpers/sidecar-peer.js';
import { registerSystem, unregisterSystem } from '../../src/systems/registry.js';
import { sidecarSystem } from '../../src/systems/http/sidecar.js';
import type { InstallSpec } from '../../src/core/install-spec.js';
import { recmem } from '../../src/systems/recmem/index.js';
import { COGNEE_INSTALL } from '../../src/systems/cognee/index.js';
import { ensureStarted } from '../../src/systems/memory-service/launcher.js';
import { checkReachable } from '../../src/systems/memory-service/reachable.js';
import { CommandScope, endCommand, runInCommand } from '../../src/util/command-end.js';

const STANDIN = 'started-standin';
const spec = (extra: Partial<InstallSpec> = {}): InstallSpec => ({
  python: '>=3.8',
  packages: [],
  library: { name: 'recmem-standin', version: '0.0.1' },
  ...extra,
});
const plugin = (name: string, install: InstallSpec) =>
  sidecarSystem({
    name,
    label: 'Started stand-in',
    description: 'the RecMem sidecar over its stand-in library, installed in a test environment',
    script: 'integrations/sidecars/recmem.py',
    setup: [],
    env: [],
    top_k: 5,
    protocol: recmem.about!.protocol!,
    install,
  });

/** A free port nobody listens on (bound, then released). */
async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** A systems folder where `name` looks installed: its venv's python is this machine's python3. */
function fakeInstall(dir: string, name: string, s: InstallSpec): void {
  const bin = join(dir, name, 'venv', 'bin');
  mkdirSync(bin, { recursive: true });
  const python = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).stdout.trim();
  symlinkSync(python, join(bin, 'python'));
  writeFileSync(
    join(dir, name, 'installed.json'),
    JSON.stringify({
      system: name,
      library: s.library,
      source: { kind: 'index', packages: ['recmem-standin==0.0.1'] },
      python: { path: 'python3', version: '3.11' },
      date: '2026-12-07T00:00:00.000Z',
      freeze_sha256: 'x',
      freeze_library: [],
      notes: ['a test environment'],
    }),
  );
}

describe('started for you, systems install / check, reachability', () => {
  const root = tempDir('rawrag-started-');
  const systems = join(root, 'systems');
  const cache = join(root, 'cache');
  const env = {
    RAWRAG_SYSTEMS_DIR: systems,
    RAWRAG_CACHE_DIR: cache,
    PYTHONPATH: STANDINS,
    RAWRAG_STANDIN_LOG: join(root, 'calls.jsonl'),
    RAWRAG_STANDIN_DIR: join(root, 'standin'),
    OPENAI_API_KEY: undefined,
    RAWRAG_SIDECAR_KEY: undefined,
  };

  beforeAll(() => {
    requirePython();
    registerSystem(plugin(STANDIN, spec()));
    registerSystem(plugin('unavailable-standin', spec({ unavailable: 'needs Python 3.13 (none here)' })));
    registerSystem(plugin('newer-python-standin', spec({ python: '>=3.99' })));
    registerSystem(
      plugin(
        'checkout-standin',
        spec({ source: { repo: 'someone/SomeLib', commit: 'a84252f6', steps: [['install', '-r', 'requirements.txt']] } }),
      ),
    );
    fakeInstall(systems, STANDIN, spec());
  });
  afterAll(() => {
    for (const n of [STANDIN, 'unavailable-standin', 'newer-python-standin', 'checkout-standin']) unregisterSystem(n);
  });

  // Item 8: the sidecar case (a-mem) the issue measured, and a service (mem0).
  it.each([
    ['a-mem', 'A-MEM'],
    ['mem0', 'Mem0'],
  ])('a run of %s against a dead -S url fails at once, naming how to start it, and writes nothing', async (system, label) => {
    const port = await deadPort();
    const out = join(root, `dead-${system}`);
    const t0 = performance.now();
    const r = await rawragInProcess(
      ['run', 'locomo', '--system', system, '-S', `url=http://127.0.0.1:${port}`, '--limit', '5', '--out', out],
      env,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${label} at http://127.0.0.1:${port} does not answer (ECONNREFUSED): is it running? start it with: 'rawrag systems install ${system}'`,
    );
    // No retry loop on a refused connection: well under the retry policy's first backoff sum.
    expect(performance.now() - t0).toBeLessThan(20_000);
    expect(existsSync(join(out, 'items.jsonl'))).toBe(false);
  });

  it('sends one reachability probe, before the first add', async () => {
    const server = await new FakeMem0().start();
    try {
      const r = await rawragInProcess(
        ['run', 'locomo', '--system', 'mem0', '-S', `url=${server.url}`, '--limit', '2', '--out', join(root, 'probe')],
        {
          ...env,
          MEM0_API_KEY: undefined,
        },
      );
      expect(r.code, r.stderr).toBe(0);
      const probes = server.requests.filter((q) => q.method === 'GET' && q.path === '/');
      expect(probes).toHaveLength(1);
      expect(server.requests[0]).toBe(probes[0]);
      expect(server.requests.some((q) => q.method === 'POST' && q.path === '/memories')).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('not installed and no -S url: the error names rawrag systems install NAME and -S url=', async () => {
    const r = await rawragInProcess(['run', 'locomo', '--system', 'mem0', '--limit', '2', '--out', join(root, 'none')], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--system mem0 is not installed here .*run 'rawrag systems install mem0'.*or give -S url=URL/);
  });

  it('a hosted API is never started: the platform needs -S url=', async () => {
    const r = await rawragInProcess(
      ['run', 'locomo', '--system', 'mem0', '-S', 'api=platform', '--limit', '2', '--out', join(root, 'hosted')],
      {
        ...env,
        MEM0_API_KEY: 'k-test',
      },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--system mem0 needs the service: give -S url=URL/);
    expect(existsSync(join(cache, 'sidecars', 'mem0'))).toBe(false);
  });

  it('systems install refuses what cannot be installed, saying why', async () => {
    const unavailable = await rawragInProcess(['systems', 'install', 'unavailable-standin'], env);
    expect(unavailable.code).toBe(2);
    expect(unavailable.stderr).toMatch(/unavailable-standin cannot be installed here: needs Python 3\.13 \(none here\)/);
    const newer = await rawragInProcess(['systems', 'install', 'newer-python-standin'], env);
    expect(newer.stderr).toMatch(
      /newer-python-standin needs Python >=3\.99; 'python3' is 3\.\d+\.\d+ \(give another interpreter with --python PATH\)/,
    );
    // --python names the interpreter checked.
    const fake = join(root, 'python3.9');
    writeFileSync(fake, '#!/bin/sh\necho 3.9.18\n');
    chmodSync(fake, 0o755);
    const old = await rawragInProcess(['systems', 'install', 'newer-python-standin', '--python', fake], env);
    expect(old.stderr).toMatch(/newer-python-standin needs Python >=3\.99; '.*python3\.9' is 3\.9\.18/);
    const checkout = await rawragInProcess(['systems', 'install', 'checkout-standin'], { ...env, RAWRAG_SOURCES: undefined });
    expect(checkout.stderr).toMatch(/installs from a checkout of someone\/SomeLib at a84252f6: give it with --source DIR/);
    const missing = await rawragInProcess(['systems', 'install', 'checkout-standin'], { ...env, RAWRAG_SOURCES: join(root, 'sources') });
    expect(missing.stderr).toMatch(/no checkout at .*sources\/SomeLib/);
    // Nothing was made for a refused install.
    expect(existsSync(join(systems, 'unavailable-standin'))).toBe(false);
  });

  it('a run without -S url= starts the installed sidecar, records its library, and stops it at the end', async () => {
    const out = join(root, 'started');
    const r = await rawragInProcess(['run', 'locomo', '--system', STANDIN, '--limit', '3', '--out', out, '--no-progress'], env, {
      cwd: root,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/started for you: recmem-standin 0\.0\.1 from the package index/);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(manifest.questions).toMatchObject({ done: 3, errors: 0 });
    expect(manifest.retriever.name).toBe('Started stand-in@recmem-standin==0.0.1');
    expect(manifest.retriever.library).toMatchObject({
      name: 'recmem-standin',
      version: '0.0.1',
      script: 'integrations/sidecars/recmem.py',
    });
    // State under rawrag's cache, not the working directory; the process is gone after the command.
    const state = join(cache, 'sidecars', STANDIN);
    expect(manifest.retriever.library.state).toBe(state);
    expect(existsSync(join(state, 'owners'))).toBe(true);
    expect(existsSync(join(root, `rawrag-sidecar-${STANDIN}`))).toBe(false);
    expect(existsSync(join(state, 'started.json'))).toBe(false);
    const url = manifest.retriever.library.url as string;
    await expect(fetch(url, { signal: AbortSignal.timeout(2000) })).rejects.toThrow();
    // The same command again resumes (the identity does not carry the port).
    const again = await rawragInProcess(['run', 'locomo', '--system', STANDIN, '--limit', '3', '--out', out, '--no-progress'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/3 of 3 questions already done/);
  });

  it("a grid's cells share the one instance its command started, stopped at the command's end", async () => {
    const out = join(root, 'grid-started');
    const data = `longmemeval=${join(ROOT, 'tests', 'fixtures', 'longmemeval', 'longmemeval_oracle.sample.json')}`;
    const r = await rawragInProcess(
      [
        'run',
        'locomo,longmemeval',
        '--system',
        STANDIN,
        '--limit',
        '2',
        '--data',
        data,
        '--parallel-cells',
        '2',
        '--out',
        out,
        '--no-progress',
      ],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    const manifests = (readdirSync(out, { recursive: true }) as string[])
      .filter((f) => f.endsWith('manifest.json'))
      .map((f) => JSON.parse(readFileSync(join(out, f), 'utf8')));
    expect(manifests.map((m) => m.benchmark).sort()).toEqual(['locomo', 'longmemeval']);
    for (const m of manifests) expect(m.questions).toMatchObject({ done: 2, errors: 0 });
    const urls = new Set(manifests.map((m) => m.retriever.library.url as string));
    expect(urls.size).toBe(1);
    await expect(fetch([...urls][0]!, { signal: AbortSignal.timeout(2000) })).rejects.toThrow();
  }, 120_000);

  it('only the command that started an instance stops it: a second command in this process uses it and leaves it running', async () => {
    // The first command: started for it (as the real tier's withStarted does around its own calls).
    const first = new CommandScope();
    const processEnv = Object.fromEntries(Object.entries({ ...process.env, ...env }).filter(([, v]) => v !== undefined));
    const started = await runInCommand(first, () =>
      ensureStarted({ system: STANDIN, spec: spec(), script: 'integrations/sidecars/recmem.py', env: processEnv, cacheDir: null }),
    );
    expect(started.shared).toBe(false);
    try {
      // A second command while the first still uses it: one instance per state folder, so the run uses this one ...
      const out = join(root, 'second-command');
      const r = await rawragInProcess(['run', 'locomo', '--system', STANDIN, '--limit', '2', '--out', out, '--no-progress'], env);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).retriever.library.url).toBe(started.url);
      // ... and its end leaves it running: the first command goes on using it.
      await checkReachable(started.url, { label: STANDIN, startHint: '', timeoutMs: 5000 });
    } finally {
      await endCommand(first);
    }
    // The first command's end stops it.
    await expect(fetch(started.url, { signal: AbortSignal.timeout(2000) })).rejects.toThrow();
  }, 120_000);

  it("a sidecar plug-in's -S options reach the sidecar started for you as its flags (Cognee: -S search_type=SUMMARIES over its stand-in)", async () => {
    fakeInstall(systems, 'cognee', COGNEE_INSTALL);
    const out = join(root, 'cognee-summaries');
    const run = ['run', 'locomo', '--system', 'cognee', '--limit', '2', '--out', out, '--no-progress'];
    const r = await rawragInProcess([...run, '-S', 'search_type=SUMMARIES', '-S', 'chunk_size=300'], env);
    expect(r.code, r.stderr).toBe(0);
    const calls = readFileSync(join(root, 'calls.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((c) => c.lib === 'cognee');
    expect(calls.filter((c) => c.call === 'cognify').map((c) => c.chunk_size)).toEqual([300]);
    const searches = calls.filter((c) => c.call === 'search');
    expect(searches).toHaveLength(2);
    expect(searches.every((c) => c.query_type === 'SUMMARIES')).toBe(true);
    // Without the option, the default (CHUNKS): the sidecar is started again, without the flag.
    const plain = await rawragInProcess(
      ['run', 'locomo', '--system', 'cognee', '--limit', '1', '--out', join(root, 'cognee-chunks'), '--no-progress'],
      env,
    );
    expect(plain.code, plain.stderr).toBe(0);
    const last = readFileSync(join(root, 'calls.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((c) => c.call === 'search')
      .pop();
    expect(last.query_type).toBe('CHUNKS');
  }, 120_000);

  it('systems check: the probe conversation written, searched and deleted, each step timed; a dead URL fails', async () => {
    const ok = await rawragInProcess(['systems', 'check', STANDIN, '-S', 'readyTimeout=30'], env);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^ok +add \(2 turns\) +\d+\.\d\d s/m);
    expect(ok.stdout).toMatch(/^ok +search "What is the name of Ada's dog\?"/m);
    expect(ok.stdout).toMatch(/^ok +delete +\d+\.\d\d s +deleted, 0 memories left/m);
    expect(ok.stdout).toMatch(/verdict: started-standin works/);
    const port = await deadPort();
    const dead = await rawragInProcess(['systems', 'check', STANDIN, '-S', `url=http://127.0.0.1:${port}`], env);
    expect(dead.code).toBe(2);
    expect(dead.stdout).toMatch(/^FAIL reach the service .*is it running\? start it with:/m);
    expect(dead.stdout).toMatch(/verdict: started-standin FAILED/);
    // Its help says the exit status it gives.
    const help = await rawragInProcess(['systems', 'check', '--help'], env);
    expect(help.stdout).toMatch(/then a verdict \(exit 2 on failure\)/);
  }, 120_000);

  it('rawrag systems (and --json) say per opponent what it was checked against', async () => {
    const json = await rawragInProcess(['systems', '--json'], env);
    const info = JSON.parse(json.stdout) as { systems: any[]; paper_opponents: any[] };
    const mem0 = info.systems.find((s) => s.name === 'mem0');
    expect(mem0.checked).toMatch(/^real library mem0ai at version 2\.2\.1, 2026-12-07 /);
    expect(mem0.install).toMatchObject({ library: 'mem0ai', version: '2.2.1', python: '>=3.10', from: 'package index (mem0ai==2.2.1)' });
    expect(info.systems.find((s) => s.name === STANDIN).checked).toMatch(
      /^stand-in only: recmem-standin 0\.0\.1 is declared .* no real-library run is recorded/,
    );
    expect(info.systems.find((s) => s.name === 'unavailable-standin').checked).toMatch(
      /^stand-in only: its library cannot be installed here/,
    );
    expect(info.paper_opponents.find((o) => o.name === 'Mem0').checked).toBe(mem0.checked);
    // Where the install comes from, whole: a package installed without its requirements too; nothing, for one that cannot install.
    expect(info.systems.find((s) => s.name === 'memoryos').install.from).toMatch(
      /^package index \(.*faiss-cpu.* memoryos-pro==0\.1\.0 \(--no-deps\)\)$/,
    );
    expect(info.systems.find((s) => s.name === 'evermemos').install.from).toBe('no package or checkout declared');
    const evermemos = await rawragInProcess(['systems', 'evermemos'], env);
    expect(evermemos.stdout).toMatch(
      /^Install \(rawrag systems install evermemos\): EverMemOS \(EverCore\) e37205f5 \(no package or checkout declared\), Python >=3\.12,<3\.13$/m,
    );
    const detail = await rawragInProcess(['systems', 'mem0'], env);
    expect(detail.stdout).toMatch(/^Checked against: real library mem0ai at version 2\.2\.1/m);
    expect(detail.stdout).toMatch(/^Install \(rawrag systems install mem0\): mem0ai 2\.2\.1 from the package index/m);
    const table = await rawragInProcess(['systems'], env);
    expect(table.stdout).toMatch(/\| Mem0 .*\| real library mem0ai at version 2\.2\.1/);
  });
});
