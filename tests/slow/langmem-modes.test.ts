/**
 * LangMem's own `-S` options reach the sidecar rawrag starts for you (as its flags): `-S mode=store`
 * searches each speaker's store directly, the default `mode=agent` asks each speaker's agent, as
 * Mem0's script does. The sidecar (integrations/sidecars/langmem.py) runs over the stand-ins of
 * langmem and langgraph (tests/fixtures/sidecars/), from a systems folder where langmem looks
 * installed (its venv's python is this machine's python3).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { rawragInProcess } from '../helpers/in-process.js';
import { tempDir } from '../helpers/cli.js';
import { STANDINS, requirePython, type StandinCall } from '../helpers/sidecar-peer.js';
import { langmem } from '../../src/systems/langmem/index.js';

describe('langmem: -S mode= reaches the sidecar started for you', () => {
  const root = tempDir('rawrag-langmem-modes-');
  const systems = join(root, 'systems');
  const log = join(root, 'calls.jsonl');
  const env = () => ({
    RAWRAG_SYSTEMS_DIR: systems,
    RAWRAG_CACHE_DIR: join(root, 'cache'),
    PYTHONPATH: STANDINS,
    RAWRAG_STANDIN_LOG: log,
    RAWRAG_STANDIN_DIR: join(root, 'standin'),
    OPENAI_API_KEY: undefined,
    RAWRAG_SIDECAR_KEY: undefined,
  });
  const calls = (): StandinCall[] =>
    readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as StandinCall);

  beforeAll(() => {
    requirePython();
    const bin = join(systems, 'langmem', 'venv', 'bin');
    mkdirSync(bin, { recursive: true });
    symlinkSync(spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).stdout.trim(), join(bin, 'python'));
    writeFileSync(
      join(systems, 'langmem', 'installed.json'),
      JSON.stringify({
        system: 'langmem',
        library: langmem.about!.install!.library,
        source: { kind: 'index', packages: ['langmem==0.0.30'] },
        python: { path: 'python3', version: '3.11' },
        date: '2026-12-07T00:00:00.000Z',
        freeze_sha256: 'x',
        freeze_library: [],
        notes: [],
      }),
    );
  });

  const run = async (name: string, extra: string[]) => {
    const out = join(root, name);
    const r = await rawragInProcess(
      ['run', 'locomo', '--system', 'langmem', '--limit', '3', '--out', out, '--no-progress', ...extra],
      env(),
      { cwd: root },
    );
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
  };
  const sidecarLog = () => readFileSync(join(root, 'cache', 'sidecars', 'langmem', 'sidecar.log'), 'utf8');

  it('mode=store: no agent is asked a question; the reader gets the stored memories', async () => {
    const manifest = await run('store', ['-S', 'mode=store']);
    expect(manifest.questions).toMatchObject({ done: 3, errors: 0 });
    expect(manifest.system).toBe('LangMem (store search)');
    expect(sidecarLog()).toMatch(/mode store/);
    const asked = calls().filter((c) => c.call === 'search_memory');
    expect(asked).toEqual([]);
    // Every turn went to its speaker's agent all the same (the same ingestion in both modes).
    expect(calls().filter((c) => c.call === 'manage_memory').length).toBeGreaterThan(400);
  });

  it('mode=agent (the default): each question is sent to both speakers\' agents', async () => {
    const before = calls().length;
    const manifest = await run('agent', []);
    expect(manifest.questions).toMatchObject({ done: 3, errors: 0 });
    expect(manifest.system).toBe('LangMem');
    expect(sidecarLog()).toMatch(/mode agent/);
    const asked = calls()
      .slice(before)
      .filter((c) => c.call === 'search_memory');
    expect(asked).toHaveLength(6);
    expect(new Set(asked.map((c) => c.agent)).size).toBe(2);
  });
});
